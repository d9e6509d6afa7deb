// Reading the live state a fleet file is compared with, in the fewest requests: the tenant list
// (one request), the active-number list page by page (pages after the first in parallel when the
// answer gives a total), and a number's own read only where the list cannot answer: a number of
// the file the list does not hold (pending, failed, released, or never provisioned), or a list
// entry without a key the file compares. Reads are retried, and share one pause on a 429 (reads.ts).
// Only what a plan can use is kept of each answer, so that ten thousand numbers stay small.

import type { PhoneNumber } from '../api/numbers.js';
import type { Tenant } from '../api/tenants.js';
import { NotFoundError } from '../errors.js';
import { NUMBER_KEYS } from './definition.js';
import type { DesiredFleet, DesiredNumber } from './model.js';
import { forEachConcurrent } from './pool.js';
import type { FleetReads } from './reads.js';

export interface LiveTenant {
  tenantId: string;
  domain?: string | undefined;
  settings: Record<string, unknown>;
}

export interface LiveNumber {
  number: string;
  /** `Active`, `Pending`, `Failed`, `Released`, or whatever the service says. */
  status: string;
  tenantId: string | undefined;
  type: string | undefined;
  class: string | undefined;
  /** The keys of NUMBER_KEYS the answer had (settings apart), as read. */
  values: Record<string, unknown>;
  settings: Record<string, unknown> | undefined;
  /** Where it was read: the list, or the number's own read. */
  source: 'list' | 'read';
}

export interface LiveState {
  tenants: Map<string, LiveTenant>;
  numbers: Map<string, LiveNumber>;
  /** Numbers of the file the service does not show to this account. */
  absent: Set<string>;
}

export interface ReadOptions {
  concurrency: number;
  /** Keep every active number (export), not only those of the file and its tenants. */
  everything?: boolean;
  /** The active list's page size asked for (the service may give fewer). */
  pageSize?: number;
}

const KEPT_KEYS = Object.keys(NUMBER_KEYS).filter((k) => !['number', 'tenant', 'type', 'class', 'settings'].includes(k));

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * What a plan uses of a number's answer. `keys` are the keys of NUMBER_KEYS kept (all of them
 * unless told): a number the file lists is compared on the keys it gives, and nothing else of the
 * answer is kept, so that the list of ten thousand numbers is read without copying what the plan
 * will not look at.
 */
export function liveNumberOf(raw: PhoneNumber, source: LiveNumber['source'], keys: Iterable<string> = KEPT_KEYS): LiveNumber | undefined {
  const number = text(raw['phoneNumber']) ?? text(raw['number']);
  if (number === undefined) return undefined;
  const values: Record<string, unknown> = {};
  for (const key of keys) if (key in raw && raw[key] !== null) values[key] = raw[key];
  const feature = isRecord(raw['messagingFeature']) ? raw['messagingFeature'] : undefined;
  return {
    number,
    status: text(raw['status']) ?? 'Active',
    tenantId: text(raw['tenantId'])?.toLowerCase(),
    type: text(raw['provisionType']) ?? (feature === undefined ? undefined : text(feature['provisionType'])),
    class: text(raw['provisionClass']) ?? (feature === undefined ? undefined : text(feature['provisionClass'])),
    values,
    settings: isRecord(raw['settings']) ? raw['settings'] : undefined,
    source,
  };
}

/** The keys of a number of the file that `diff` compares (its other keys are sent, not compared). */
function comparedKeys(wanted: DesiredNumber): string[] {
  const keys: string[] = [];
  for (const key in wanted.fields) if (NUMBER_KEYS[key]?.treatment === 'compared') keys.push(key);
  return keys;
}

function liveTenantOf(raw: Tenant): LiveTenant | undefined {
  const tenantId = text(raw['tenantId'])?.toLowerCase();
  if (tenantId === undefined) return undefined;
  const settings: Record<string, unknown> = isRecord(raw['settings']) ? { ...raw['settings'] } : {};
  // The document shows webhook fields at the top level of a tenant too; a nested value wins.
  for (const key of ['webhookPrimaryUri', 'webhookSecondaryUri', 'webhookBasicAuthUsername', 'webhookEventType']) {
    if (!(key in settings) && key in raw) settings[key] = raw[key];
  }
  return { tenantId, domain: text(raw['domain']), settings };
}

/** A list entry can answer for a number when it shows what the file compares. */
function listAnswers(live: LiveNumber, wanted: DesiredNumber): boolean {
  if (live.tenantId === undefined || live.type === undefined || live.class === undefined) return false;
  if (wanted.settings !== undefined && live.settings === undefined) return false;
  for (const key in wanted.fields) {
    if (NUMBER_KEYS[key]?.treatment === 'compared' && !(key in live.values)) return false;
  }
  return true;
}

export async function readLiveState(reads: FleetReads, fleet: DesiredFleet, options: ReadOptions): Promise<LiveState> {
  const wanted = new Map<string, DesiredNumber>();
  for (const n of fleet.numbers) wanted.set(n.number, n);
  const fileTenants = new Set(fleet.tenants.map((t) => t.tenantId));
  const state: LiveState = { tenants: new Map(), numbers: new Map(), absent: new Set() };

  const tenantsRead = (async () => {
    const tenants = await reads.listTenants();
    const incomplete: string[] = [];
    for (const raw of tenants) {
      const tenant = liveTenantOf(raw);
      if (tenant === undefined) continue;
      state.tenants.set(tenant.tenantId, tenant);
      if (fileTenants.has(tenant.tenantId) && !isRecord(raw['settings'])) incomplete.push(tenant.tenantId);
    }
    await forEachConcurrent(incomplete, options.concurrency, async (id) => {
      const tenant = liveTenantOf(await reads.getTenant(id));
      if (tenant !== undefined) state.tenants.set(id, tenant);
    });
  })();

  const keep = (raw: unknown): void => {
    if (!isRecord(raw)) return;
    const listed = options.everything ? undefined : wanted.get(text(raw['phoneNumber']) ?? text(raw['number']) ?? '');
    // Only who holds it matters for a number the file leaves out (--prune): none of its values are kept.
    const live = liveNumberOf(raw as PhoneNumber, 'list', options.everything ? KEPT_KEYS : listed === undefined ? [] : comparedKeys(listed));
    if (live === undefined) return;
    if (options.everything || listed !== undefined) state.numbers.set(live.number, live);
    else if (live.tenantId !== undefined && fileTenants.has(live.tenantId)) state.numbers.set(live.number, { ...live, settings: undefined });
  };
  const pageSize = options.pageSize ?? 100;
  const first = await reads.listActiveNumbers(1, pageSize);
  first.items.forEach(keep);
  const total = typeof first.meta['total'] === 'number' ? first.meta['total'] : undefined;
  const given = typeof first.meta['limit'] === 'number' && first.meta['limit'] > 0 ? first.meta['limit'] : first.items.length;
  if (total !== undefined && given > 0) {
    const pages = Array.from({ length: Math.max(0, Math.ceil(total / given) - 1) }, (_, i) => i + 2);
    await forEachConcurrent(pages, options.concurrency, async (page) => {
      (await reads.listActiveNumbers(page, pageSize)).items.forEach(keep);
    });
  } else if (first.items.length > 0) {
    // No total: page on until a page comes back short.
    for (let page = 2, last = first.items.length; last >= given && given > 0; page++) {
      const next = await reads.listActiveNumbers(page, pageSize);
      next.items.forEach(keep);
      last = next.items.length;
    }
  }
  await tenantsRead;

  const toRead = fleet.numbers.filter((n) => {
    const live = state.numbers.get(n.number);
    return live === undefined || !listAnswers(live, n);
  });
  await forEachConcurrent(toRead, options.concurrency, async (n) => {
    try {
      const live = liveNumberOf(await reads.getPhoneNumber(n.number), 'read');
      if (live === undefined) state.absent.add(n.number);
      else state.numbers.set(n.number, live);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      state.absent.add(n.number);
      state.numbers.delete(n.number);
    }
  });
  return state;
}
