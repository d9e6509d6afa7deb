// The plan: what `apply` would change to make the live state match the file, field by field.
// Only what the file names is compared (a setting it leaves out is not drift); keys a provision
// request alone carries are sent when a number is provisioned and never compared; secrets are
// hidden on read and never compared. A difference no request can make is `blocked`.

import { MAX_ORDER_ENTRIES } from '../domain/provisioning.js';
import { NUMBER_KEYS, TENANT_SETTING_KEYS } from './definition.js';
import { isSecretRef, type DesiredFleet, type DesiredNumber, type DesiredTenant } from './model.js';
import type { LiveState } from './read-live.js';

export type ChangeAction = 'create-tenant' | 'update-tenant' | 'provision' | 'update-number' | 'unprovision' | 'blocked';

export interface FieldChange {
  from: unknown;
  to: unknown;
}

export interface Change {
  action: ChangeAction;
  /** A tenantId or an E.164 number. */
  target: string;
  fields: Record<string, FieldChange>;
  /** The tenant of a number change. */
  tenant?: string;
  /** Why a change is blocked. */
  reason?: string;
  /** A provision whose order from an earlier run is still in flight: waited for, not ordered again. */
  inFlight?: boolean;
  /** A provision of a number whose last order failed (or that was released): tried again. */
  retry?: string;
}

export interface OrderPlan {
  tenant: string;
  type: string;
  class: string;
  numbers: string[];
}

export interface Plan {
  changes: Change[];
  inSync: boolean;
  /** Keys of the file that are sent but not compared, said once. */
  notCompared: string[];
  /** The provision orders `apply` would submit (numbers in flight are not in them). */
  orders: OrderPlan[];
}

export interface PlanOptions {
  prune: boolean;
}

function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b) || (typeof a === 'object' && a !== null) || (typeof b === 'object' && b !== null)) {
    return JSON.stringify(a) === JSON.stringify(b);
  }
  return false;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every leaf of a settings object the file gives, as `settings.a.b` -> value. */
export function settingLeaves(settings: Record<string, unknown>, prefix = 'settings'): [string, unknown][] {
  const leaves: [string, unknown][] = [];
  for (const [key, value] of Object.entries(settings)) {
    const path = `${prefix}.${key}`;
    if (isRecord(value)) leaves.push(...settingLeaves(value, path));
    else leaves.push([path, value]);
  }
  return leaves;
}

function tenantFields(tenant: DesiredTenant): [string, unknown][] {
  const fields: [string, unknown][] = [];
  if (tenant.domain !== undefined) fields.push(['domain', tenant.domain]);
  for (const [key, value] of Object.entries(tenant.settings ?? {})) {
    if (isSecretRef(value) || TENANT_SETTING_KEYS[key]?.treatment === 'secret') continue;
    fields.push([`settings.${key}`, value]);
  }
  return fields;
}

/** What a number of the file says, as `path` -> value, compared keys only (provision-only left out unless `all`). */
export function numberFields(n: DesiredNumber, all: boolean): [string, unknown][] {
  const fields: [string, unknown][] = [];
  if (all) fields.push(['tenant', n.tenant], ['type', n.type], ['class', n.class]);
  for (const [key, value] of Object.entries(n.fields)) {
    if (all || NUMBER_KEYS[key]?.treatment === 'compared') fields.push([key, value]);
  }
  if (n.settings !== undefined) fields.push(...settingLeaves(n.settings));
  return fields;
}

/**
 * Each leaf of `desired` that differs from `live`, as `settings.a.b` -> {from, to}, in the file's
 * order, added to `out` (made when the first difference is found). `path` is where `desired`
 * is (['settings', 'a']); a path is written out only for a leaf that differs.
 */
function compareSettings(desired: Record<string, unknown>, live: unknown, path: string[], out: Record<string, FieldChange> | undefined): Record<string, FieldChange> | undefined {
  const current = isRecord(live) ? live : undefined;
  for (const key in desired) {
    const value = desired[key];
    const now = current?.[key];
    if (isRecord(value)) {
      path.push(key);
      out = compareSettings(value, now, path, out);
      path.pop();
    } else if (!same(now ?? null, value)) {
      (out ??= {})[`${path.join('.')}.${key}`] = { from: now ?? null, to: value };
    }
  }
  return out;
}

const LIVE_STATUSES_IN_FLIGHT = /^(pending|processing|inprogress|in progress|submitted|queued)$/i;
const LIVE_STATUSES_GONE = /^(released|unprovisioned|failed|error|rejected|cancell?ed|deleted|inactive)$/i;

export function buildPlan(fleet: DesiredFleet, live: LiveState, options: PlanOptions): Plan {
  const changes: Change[] = tenantChanges(fleet, live);
  const fileTenants = new Set(fleet.tenants.map((t) => t.tenantId));
  const toProvision: DesiredNumber[] = [];
  for (const n of fleet.numbers) {
    const change = numberChange(n, live, fileTenants);
    if (change === undefined) continue;
    changes.push(change);
    if (change.action === 'provision' && change.inFlight !== true) toProvision.push(n);
  }
  if (options.prune) changes.push(...pruneChanges(fleet, live, fileTenants));
  const notCompared = new Set<string>();
  for (const n of fleet.numbers) for (const key in n.fields) if (NUMBER_KEYS[key]?.treatment === 'provision-only') notCompared.add(key);
  return { changes, inSync: changes.length === 0, notCompared: [...notCompared].sort(), orders: ordersFor(toProvision) };
}

/** Tenants to create (every field the file gives) or to update (the fields that differ). */
function tenantChanges(fleet: DesiredFleet, live: LiveState): Change[] {
  const changes: Change[] = [];
  for (const tenant of fleet.tenants) {
    const current = live.tenants.get(tenant.tenantId);
    const fields: Record<string, FieldChange> = {};
    if (current === undefined) {
      for (const [path, value] of tenantFields(tenant)) fields[path] = { from: null, to: value };
      changes.push({ action: 'create-tenant', target: tenant.tenantId, fields });
      continue;
    }
    for (const [path, value] of tenantFields(tenant)) {
      const now = path === 'domain' ? current.domain : current.settings[path.slice('settings.'.length)];
      if (!same(now ?? null, value)) fields[path] = { from: now ?? null, to: value };
    }
    if (Object.keys(fields).length > 0) changes.push({ action: 'update-tenant', target: tenant.tenantId, fields });
  }
  return changes;
}

function provisionChange(n: DesiredNumber, extra: Partial<Change> = {}): Change {
  const fields: Record<string, FieldChange> = {};
  for (const [path, value] of numberFields(n, true)) fields[path] = { from: null, to: value };
  return { action: 'provision', target: n.number, tenant: n.tenant, fields, ...extra };
}

function blocked(n: DesiredNumber, fields: Record<string, FieldChange>, reason: string): Change {
  return { action: 'blocked', target: n.number, tenant: n.tenant, fields, reason };
}

/** What one number of the file needs, or undefined when it is as the file says. */
function numberChange(n: DesiredNumber, live: LiveState, fileTenants: ReadonlySet<string>): Change | undefined {
  const current = live.numbers.get(n.number);
  if (!fileTenants.has(n.tenant) && !live.tenants.has(n.tenant)) return blocked(n, {}, `its tenant ${n.tenant} is neither in the file nor in the account`);
  if (current === undefined || live.absent.has(n.number)) return provisionChange(n);
  if (current.tenantId !== undefined && current.tenantId !== n.tenant) {
    return blocked(n, { tenant: { from: current.tenantId, to: n.tenant } }, `it is held by tenant ${current.tenantId}; a number cannot move between tenants (unprovision it there first)`);
  }
  // Active, as nearly every number of a fleet in sync is, is neither gone nor in flight.
  if (current.status !== 'Active') {
    if (LIVE_STATUSES_GONE.test(current.status)) return provisionChange(n, { retry: `it is ${current.status}` });
    if (LIVE_STATUSES_IN_FLIGHT.test(current.status)) return provisionChange(n, { inFlight: true });
  }
  if ((current.type !== undefined && current.type !== n.type) || (current.class !== undefined && current.class !== n.class)) {
    const immutable: Record<string, FieldChange> = {};
    if (current.type !== undefined && current.type !== n.type) immutable['type'] = { from: current.type, to: n.type };
    if (current.class !== undefined && current.class !== n.class) immutable['class'] = { from: current.class, to: n.class };
    return blocked(n, immutable, `its ${Object.keys(immutable).join(' and ')} cannot change once provisioned (unprovision and provision it again)`);
  }
  // The same comparison as numberFields() would give, without building a path for each leaf
  // that matches, nor anything at all for a number that matches: a fleet in sync is ten
  // thousand numbers of nothing to say.
  let fields: Record<string, FieldChange> | undefined;
  for (const key in n.fields) {
    if (NUMBER_KEYS[key]?.treatment !== 'compared') continue;
    const value = n.fields[key];
    const now = current.values[key];
    if (!same(now ?? null, value)) (fields ??= {})[key] = { from: now ?? null, to: value };
  }
  if (n.settings !== undefined) fields = compareSettings(n.settings, current.settings, ['settings'], fields);
  return fields !== undefined ? { action: 'update-number', target: n.number, tenant: n.tenant, fields } : undefined;
}

/** Live numbers of the file's tenants that the file does not list, settled ones only, in order. */
function pruneChanges(fleet: DesiredFleet, live: LiveState, fileTenants: ReadonlySet<string>): Change[] {
  const listed = new Set(fleet.numbers.map((n) => n.number));
  return [...live.numbers.values()]
    .filter((n) => n.tenantId !== undefined && fileTenants.has(n.tenantId) && !listed.has(n.number) && !LIVE_STATUSES_GONE.test(n.status) && !LIVE_STATUSES_IN_FLIGHT.test(n.status))
    .sort((a, b) => (a.number < b.number ? -1 : 1))
    .map((n) => ({ action: 'unprovision' as const, target: n.number, tenant: n.tenantId!, fields: {} }));
}

/**
 * The fewest orders the service takes: one per tenant and messaging feature (an order has one
 * provision type and class), split at the entries an order may hold.
 */
export function ordersFor(numbers: readonly DesiredNumber[]): OrderPlan[] {
  const groups = new Map<string, OrderPlan>();
  for (const n of numbers) {
    const key = `${n.tenant}/${n.type}/${n.class}`;
    let group = groups.get(key);
    if (group === undefined) groups.set(key, (group = { tenant: n.tenant, type: n.type, class: n.class, numbers: [] }));
    group.numbers.push(n.number);
  }
  const orders: OrderPlan[] = [];
  for (const group of groups.values()) {
    for (let i = 0; i < group.numbers.length; i += MAX_ORDER_ENTRIES) {
      orders.push({ ...group, numbers: group.numbers.slice(i, i + MAX_ORDER_ENTRIES) });
    }
  }
  return orders;
}
