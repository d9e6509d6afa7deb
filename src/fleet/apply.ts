// Making the live state match the file, in the order the service needs: tenants (created with
// the file's tenantId, or updated field by field), provision orders for the missing numbers
// (recorded before they leave), the wait for every order in flight, then the minimal updates
// (only the fields that differ), then with --prune the unprovisioning. A number the service
// answers 409 for ("already provisioned or being provisioned") is read, not crashed on.

import type { ApiClient } from '../api/http.js';
import { submitNumberOrder, updatePhoneNumber, type PhoneNumberUpdate } from '../api/numbers.js';
import { createTenant, updateTenant } from '../api/tenants.js';
import type { Clock } from '../clock.js';
import type { Order, ProvisionEntry } from '../domain/provisioning.js';
import { MAX_ORDER_ENTRIES } from '../domain/provisioning.js';
import { CliError, ExitCode, InterruptedError, NotFoundError } from '../errors.js';
import { PROVISION_ENTRY_KEYS, TENANT_SETTING_KEYS } from './definition.js';
import { isSecretRef, type DesiredFleet, type DesiredNumber, type DesiredTenant } from './model.js';
import { buildPlan, ordersFor, type Change, type OrderPlan, type Plan } from './plan.js';
import { forEachConcurrent } from './pool.js';
import { readLiveState, liveNumberOf } from './read-live.js';
import type { KnownOrder, RecordState, RecordWriter } from './record.js';
import type { FleetReads } from './reads.js';

/** How an order answer is read (the CLI's tolerant reading of orders, handed in by the command). */
export interface OrderReader {
  idOf(order: unknown): string | undefined;
  outcome(order: Order): 'pending' | 'completed' | 'failed';
  entries(order: Order): { number: string; status: string; error: string | undefined }[];
}

export interface ApplyOptions {
  concurrency: number;
  wait: boolean;
  waitTimeoutMs: number | undefined;
  firstPollMs: number;
  updateSecrets: boolean;
  env: Readonly<Record<string, string | undefined>>;
}

/** What a person is told while it runs (stderr); the command decides how to show it. */
export interface ApplyEvents {
  say(line: string): void;
  /** Progress of the wait: one line, replaced as it changes; undefined when it is over. */
  progress(text: string | undefined): void;
}

export type Outcome = 'done' | 'failed' | 'submitted' | 'waited' | 'unchanged';

export interface ChangeResult extends Change {
  outcome: Outcome;
  orderId?: string;
  error?: string;
}

export interface ApplyResult {
  changes: ChangeResult[];
  /** Numbers whose order failed, with the service's reason. */
  failed: { number: string; orderId: string; reason: string }[];
  /** Numbers the service refused that no request of this account can provision (held elsewhere). */
  blocked: { number: string; reason: string }[];
  timedOut: boolean;
  /** Orders still in flight at the end (--no-wait, or a timeout). */
  inFlight: string[];
  writes: number;
}

export interface ApplyDeps {
  api: ApiClient;
  /** The run's reads, sharing one 429 pause. */
  reads: FleetReads;
  clock: Clock;
  signal: AbortSignal;
  orders: OrderReader;
  record: RecordWriter;
  earlier: RecordState;
  events: ApplyEvents;
}

function nest(target: Record<string, unknown>, dotted: string, value: unknown): void {
  const parts = dotted.split('.');
  let holder = target;
  for (const part of parts.slice(0, -1)) {
    const next = holder[part];
    holder = typeof next === 'object' && next !== null && !Array.isArray(next) ? (next as Record<string, unknown>) : (holder[part] = {});
  }
  holder[parts[parts.length - 1]!] = value;
}

function tenantSecrets(tenant: DesiredTenant, secrets: ReadonlyMap<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(tenant.settings ?? {})) {
    if (isSecretRef(value) && TENANT_SETTING_KEYS[key] !== undefined) {
      const secret = secrets.get(value.env);
      if (secret !== undefined) out[key] = secret;
    }
  }
  return out;
}

function entryOf(n: DesiredNumber): ProvisionEntry {
  const entry: ProvisionEntry = { number: n.number, messagingFeature: { provisionType: n.type, provisionClass: n.class } };
  for (const key of PROVISION_ENTRY_KEYS) {
    if (key === 'settings') {
      if (n.settings !== undefined) entry.settings = n.settings;
    } else if (typeof n.fields[key] === 'string') {
      (entry as unknown as Record<string, unknown>)[key] = n.fields[key];
    }
  }
  return entry;
}

const isConflict = (error: unknown): boolean => error instanceof CliError && error.status === 409;

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class FleetApplier {
  private readonly results = new Map<string, ChangeResult>();
  private readonly failed: ApplyResult['failed'] = [];
  private readonly blocked: ApplyResult['blocked'] = [];
  private writes = 0;
  /** Orders to wait for: id -> the numbers in it. */
  private readonly waiting = new Map<string, KnownOrder>();
  /** Numbers in flight whose order id is not known (an answer lost to a kill): read one by one. */
  private readonly waitingNumbers = new Set<string>();

  constructor(
    private readonly deps: ApplyDeps,
    private readonly options: ApplyOptions,
  ) {}

  private result(change: Change): ChangeResult {
    const key = `${change.action} ${change.target}`;
    let result = this.results.get(key);
    if (result === undefined) this.results.set(key, (result = { ...change, outcome: 'unchanged' }));
    return result;
  }

  async run(fleet: DesiredFleet, plan: Plan, secrets: ReadonlyMap<string, string>): Promise<ApplyResult> {
    for (const change of plan.changes) this.result(change);
    for (const secret of secrets.values()) this.deps.api.addSecret(secret);
    await this.applyTenants(fleet, plan, secrets);
    await this.provision(fleet, plan);
    let timedOut = false;
    if (this.options.wait) timedOut = !(await this.waitForOrders());
    await this.updateNumbers(fleet, plan);
    await this.unprovision(plan);
    if (this.options.wait && !timedOut && this.waiting.size + this.waitingNumbers.size > 0) timedOut = !(await this.waitForOrders());
    return {
      changes: [...this.results.values()],
      failed: this.failed,
      blocked: this.blocked,
      timedOut,
      inFlight: [...this.waiting.keys()],
      writes: this.writes,
    };
  }

  // ---- tenants ----

  private async applyTenants(fleet: DesiredFleet, plan: Plan, secrets: ReadonlyMap<string, string>): Promise<void> {
    const tenantChanges = new Map(plan.changes.filter((c) => c.action === 'create-tenant' || c.action === 'update-tenant').map((c) => [c.target, c]));
    const touched = fleet.tenants.filter((t) => tenantChanges.has(t.tenantId) || (this.options.updateSecrets && Object.keys(tenantSecrets(t, secrets)).length > 0));
    for (const tenant of touched) {
      const change = tenantChanges.get(tenant.tenantId);
      const own = tenantSecrets(tenant, secrets);
      if (change?.action === 'create-tenant') {
        const settings: Record<string, unknown> = { ...own };
        for (const [key, value] of Object.entries(tenant.settings ?? {})) if (!isSecretRef(value)) settings[key] = value;
        const body = { tenantId: tenant.tenantId, ...(tenant.domain !== undefined ? { domain: tenant.domain } : {}), ...(Object.keys(settings).length > 0 ? { settings } : {}) };
        this.writes++;
        try {
          await createTenant(this.deps.api, body);
        } catch (error) {
          if (isConflict(error)) {
            throw new CliError(`Tenant ${tenant.tenantId} exists but this account cannot see it (the service answered 409); give the file another tenantId, or use that tenant's account`, ExitCode.Failure);
          }
          throw error;
        }
        this.result(change).outcome = 'done';
        this.deps.events.say(`Created tenant ${tenant.tenantId}`);
        continue;
      }
      const body: Record<string, unknown> = {};
      for (const [path, field] of Object.entries(change?.fields ?? {})) nest(body, path, field.to);
      if (this.options.updateSecrets && Object.keys(own).length > 0) {
        body['settings'] = { ...((body['settings'] as Record<string, unknown> | undefined) ?? {}), ...own };
      }
      this.writes++;
      await updateTenant(this.deps.api, tenant.tenantId, body);
      if (change !== undefined) this.result(change).outcome = 'done';
      const what = [...Object.keys(change?.fields ?? {}), ...(this.options.updateSecrets ? Object.keys(own) : [])];
      this.deps.events.say(`Updated tenant ${tenant.tenantId}: ${what.join(', ')}`);
    }
  }

  // ---- provisioning ----

  private async provision(fleet: DesiredFleet, plan: Plan): Promise<void> {
    const wanted = new Map(fleet.numbers.map((n) => [n.number, n]));
    const inFlight = plan.changes.filter((c) => c.action === 'provision' && c.inFlight);
    // Earlier runs' orders still in flight: wait on each order; a number whose order id was lost, alone.
    const known = new Map<string, KnownOrder>();
    for (const order of this.deps.earlier.orders) if (order.outcome === undefined) for (const n of order.numbers) known.set(n, order);
    for (const change of inFlight) {
      const order = known.get(change.target);
      if (order !== undefined) this.waiting.set(order.orderId, order);
      else this.waitingNumbers.add(change.target);
      const result = this.result(change);
      result.outcome = 'submitted';
      if (order !== undefined) result.orderId = order.orderId;
    }
    if (inFlight.length > 0) {
      this.deps.events.say(`${inFlight.length} number${inFlight.length === 1 ? ' is' : 's are'} in orders already in flight (an earlier apply): waiting for them, not ordering again`);
    }
    const earlierFailures = new Map<string, string>();
    for (const order of this.deps.earlier.orders) for (const n of order.failed) earlierFailures.set(n, order.orderId);
    for (const change of plan.changes) {
      if (change.action !== 'provision' || change.retry === undefined) continue;
      const orderId = earlierFailures.get(change.target);
      this.deps.events.say(`${change.target}: ${orderId !== undefined ? `its order ${orderId} failed` : change.retry}; ordering it again`);
    }
    await forEachConcurrent(plan.orders, this.options.concurrency, async (order) => {
      await this.submitProvision(order, wanted, plan);
    });
  }

  private async submitProvision(order: OrderPlan, wanted: ReadonlyMap<string, DesiredNumber>, plan: Plan): Promise<void> {
    const key = this.deps.record.nextKey();
    this.deps.record.append({ t: 'intent', key, action: 'Provision', tenant: order.tenant, numbers: order.numbers });
    this.writes++;
    let answer: Order;
    try {
      answer = await submitNumberOrder(this.deps.api, {
        action: 'Provision',
        tenantId: order.tenant,
        phoneNumbers: order.numbers.map((n) => entryOf(wanted.get(n)!)),
      });
    } catch (error) {
      if (error instanceof InterruptedError) throw error;
      const status = error instanceof CliError ? error.status : null;
      if (status !== null) this.deps.record.append({ t: 'refused', key, status, message: describe(error) });
      if (isConflict(error)) {
        await this.resolveConflict(order, wanted, plan);
        return;
      }
      throw error;
    }
    const orderId = this.deps.orders.idOf(answer);
    if (orderId === undefined) throw new CliError('The service took a provision order but its answer had no orderId, so it cannot be followed', ExitCode.Failure);
    this.deps.record.append({ t: 'submitted', key, orderId });
    const known: KnownOrder = { orderId, action: 'Provision', tenant: order.tenant, numbers: order.numbers, failed: [] };
    this.waiting.set(orderId, known);
    for (const number of order.numbers) {
      const result = this.results.get(`provision ${number}`);
      if (result !== undefined) {
        result.outcome = 'submitted';
        result.orderId = orderId;
      }
    }
    this.deps.events.say(`Submitted order ${orderId}: ${order.numbers.length} ${order.type}/${order.class} number${order.numbers.length === 1 ? '' : 's'} for tenant ${order.tenant}`);
    if (this.deps.orders.outcome(answer) !== 'pending') this.finishOrder(known, answer);
  }

  /**
   * The service refused the order: a number of it is already provisioned or in an order. Nothing
   * of it was ordered, so each number is read and acted on: one of ours that is active or in
   * flight is done or waited for; the rest are ordered again, in halves when none of the order
   * could be explained, until a number refused alone shows which it was. A number refused alone
   * that this account cannot read (404) is held by another account: no request of ours can
   * provision it, so it is blocked, said plainly, and the rest of the fleet goes on.
   */
  private async resolveConflict(order: OrderPlan, wanted: ReadonlyMap<string, DesiredNumber>, plan: Plan): Promise<void> {
    const left: string[] = [];
    const unseen = new Set<string>();
    await forEachConcurrent(order.numbers, this.options.concurrency, async (number) => {
      const state = await this.conflictState(number, order.tenant);
      if (state === 'unseen') unseen.add(number);
      if (state === 'unseen' || state === 'again') left.push(number);
    });
    this.deps.events.say(`Order for ${order.numbers.length} number${order.numbers.length === 1 ? '' : 's'} of tenant ${order.tenant} was refused as already provisioned or in flight: read each; ${order.numbers.length - left.length} taken care of`);
    if (left.length === 0) return;
    if (order.numbers.length === 1) {
      const number = left[0]!;
      if (unseen.has(number)) return this.heldElsewhere(number, order.tenant);
      throw new CliError(`The service keeps refusing to provision ${number} (409) though it is neither active nor in flight`, ExitCode.Failure);
    }
    // Nothing explained the refusal: order each half on its own, to find the number it was for.
    const parts = left.length === order.numbers.length ? [left.slice(0, left.length >> 1), left.slice(left.length >> 1)] : [left];
    for (const part of parts) for (const chunk of ordersFor(part.map((n) => wanted.get(n)!))) await this.submitProvision(chunk, wanted, plan);
  }

  /** What a number of a refused order is: taken care of (ours, active or in flight), to order again, or not visible to us. */
  private async conflictState(number: string, tenantWanted: string): Promise<'handled' | 'again' | 'unseen'> {
    const result = this.results.get(`provision ${number}`);
    let live;
    try {
      live = liveNumberOf(await this.deps.reads.getPhoneNumber(number), 'read');
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      return 'unseen';
    }
    if (live === undefined) return 'unseen';
    if (live.tenantId !== undefined && live.tenantId !== tenantWanted) {
      this.block(number, `it is held by tenant ${live.tenantId} (the service refused to provision it, 409); a number cannot move between tenants (unprovision it there first)`);
    } else if (/^active$/i.test(live.status)) {
      if (result) result.outcome = 'done';
    } else if (/^(pending|processing)$/i.test(live.status)) {
      this.waitingNumbers.add(number);
      if (result) result.outcome = 'submitted';
    } else {
      return 'again';
    }
    return 'handled';
  }

  private heldElsewhere(number: string, tenant: string): void {
    this.block(
      number,
      'it is held by another account: the service refuses to provision it (409 CONFLICT) and does not show it to this account (404), so no request of this account can; remove it from the file, or have its holder release it',
    );
    this.deps.events.say(`${number}: held by another account (the service refused it for tenant ${tenant}); the rest goes on`);
  }

  /** A change found out at apply time to be one no request can make. */
  private block(number: string, reason: string): void {
    this.blocked.push({ number, reason });
    const result = this.results.get(`provision ${number}`);
    if (result) Object.assign(result, { action: 'blocked', reason, outcome: 'failed', error: reason });
  }

  private finishOrder(order: KnownOrder, answer: Order): void {
    const outcome = this.deps.orders.outcome(answer);
    if (outcome === 'pending') return;
    const entries = this.deps.orders.entries(answer);
    const failedEntries = entries.filter((e) => /fail|error|reject|cancel/i.test(e.status));
    // A failed order that does not say which numbers failed: all of them did, as far as anyone can tell.
    const failed = outcome === 'failed' && failedEntries.length === 0 ? order.numbers.map((n) => ({ number: n, error: undefined as string | undefined })) : failedEntries.map((e) => ({ number: e.number, error: e.error }));
    this.deps.record.append({ t: 'finished', orderId: order.orderId, outcome, failed: failed.map((f) => f.number) });
    this.waiting.delete(order.orderId);
    const failedSet = new Set(failed.map((f) => f.number));
    for (const f of failed) this.failed.push({ number: f.number, orderId: order.orderId, reason: f.error ?? 'the order failed' });
    const action = order.action === 'Provision' ? 'provision' : 'unprovision';
    for (const number of order.numbers) {
      const result = this.results.get(`${action} ${number}`);
      if (result === undefined) continue;
      result.outcome = failedSet.has(number) ? 'failed' : 'done';
      if (failedSet.has(number)) result.error = failed.find((f) => f.number === number)?.error ?? 'the order failed';
    }
  }

  /** Polls every order and number in flight until all are done; false when the wait timed out. */
  private async waitForOrders(): Promise<boolean> {
    const started = this.deps.clock.monotonic();
    const deadline = this.options.waitTimeoutMs === undefined ? undefined : started + this.options.waitTimeoutMs;
    let interval = this.options.firstPollMs;
    const total = (): number => [...this.waiting.values()].reduce((sum, o) => sum + o.numbers.length, 0) + this.waitingNumbers.size;
    const progress = new Map<string, string>();
    for (;;) {
      if (this.waiting.size === 0 && this.waitingNumbers.size === 0) {
        this.deps.events.progress(undefined);
        return true;
      }
      const now = this.deps.clock.monotonic();
      if (deadline !== undefined && now >= deadline) {
        this.deps.events.progress(undefined);
        return false;
      }
      await this.deps.clock.sleep(deadline === undefined ? interval : Math.max(0, Math.min(interval, deadline - now)), this.deps.signal);
      interval = Math.min(30_000, interval * 1.5);
      await forEachConcurrent([...this.waiting.values()], this.options.concurrency, async (order) => {
        const answer = await this.deps.reads.getOrder(order.orderId);
        const entries = this.deps.orders.entries(answer);
        const done = entries.filter((e) => !/^(pending|processing)?$/i.test(e.status)).length;
        progress.set(order.orderId, `order ${order.orderId} ${done}/${order.numbers.length}`);
        this.finishOrder(order, answer);
        if (!this.waiting.has(order.orderId)) progress.delete(order.orderId);
      });
      await forEachConcurrent([...this.waitingNumbers], this.options.concurrency, async (number) => {
        try {
          const live = liveNumberOf(await this.deps.reads.getPhoneNumber(number), 'read');
          if (live !== undefined && /^(pending|processing)$/i.test(live.status)) return;
          this.waitingNumbers.delete(number);
          const result = this.results.get(`provision ${number}`);
          if (live === undefined || !/^active$/i.test(live.status)) {
            this.failed.push({ number, orderId: result?.orderId ?? '-', reason: `it ended ${live?.status ?? 'unknown'}` });
            if (result) Object.assign(result, { outcome: 'failed', error: `ended ${live?.status ?? 'unknown'}` });
          } else if (result) {
            result.outcome = 'waited';
          }
        } catch (error) {
          if (!(error instanceof NotFoundError)) throw error;
          this.waitingNumbers.delete(number);
          this.failed.push({ number, orderId: '-', reason: 'it is gone (404) after its order' });
        }
      });
      if (total() === 0) continue;
      const elapsed = Math.round((this.deps.clock.monotonic() - started) / 1000);
      const parts = [...progress.values()];
      if (this.waitingNumbers.size > 0) parts.push(`${this.waitingNumbers.size} number${this.waitingNumbers.size === 1 ? '' : 's'} from an earlier run`);
      this.deps.events.progress(`Waiting for ${total()} number${total() === 1 ? '' : 's'} (${elapsed} s): ${parts.join(', ')}`);
    }
  }

  // ---- updates ----

  private async updateNumbers(fleet: DesiredFleet, plan: Plan): Promise<void> {
    const updates: Change[] = plan.changes.filter((c) => c.action === 'update-number');
    // Numbers provisioned by this run carry what a provision entry holds; keys it cannot hold
    // (userId, externalId, isActivated ...) are compared again once the numbers are live.
    const provisioned = new Set(
      [...this.results.values()].filter((r) => r.action === 'provision' && (r.outcome === 'done' || r.outcome === 'waited')).map((r) => r.target),
    );
    const needsSecondLook = fleet.numbers.filter(
      (n) => provisioned.has(n.number) && Object.keys(n.fields).some((k) => !(PROVISION_ENTRY_KEYS as readonly string[]).includes(k)),
    );
    if (needsSecondLook.length > 0) {
      const subset: DesiredFleet = { tenants: fleet.tenants, numbers: needsSecondLook };
      const live = await readLiveState(this.deps.reads, subset, { concurrency: this.options.concurrency });
      for (const change of buildPlan(subset, live, { prune: false }).changes) {
        if (change.action === 'update-number') {
          updates.push(change);
          this.result(change);
        }
      }
    }
    await forEachConcurrent(updates, this.options.concurrency, async (change) => {
      const body: PhoneNumberUpdate = {};
      for (const [path, field] of Object.entries(change.fields)) nest(body, path, field.to);
      this.writes++;
      await updatePhoneNumber(this.deps.api, change.target, body);
      this.result(change).outcome = 'done';
    });
    if (updates.length > 0) this.deps.events.say(`Updated ${updates.length} number${updates.length === 1 ? '' : 's'}`);
  }

  // ---- prune ----

  private async unprovision(plan: Plan): Promise<void> {
    const gone = plan.changes.filter((c) => c.action === 'unprovision');
    const byTenant = new Map<string, string[]>();
    for (const c of gone) {
      const list = byTenant.get(c.tenant!) ?? [];
      list.push(c.target);
      byTenant.set(c.tenant!, list);
    }
    for (const [tenant, numbers] of byTenant) {
      for (let i = 0; i < numbers.length; i += MAX_ORDER_ENTRIES) {
        const chunk = numbers.slice(i, i + MAX_ORDER_ENTRIES);
        const key = this.deps.record.nextKey();
        this.deps.record.append({ t: 'intent', key, action: 'Unprovision', tenant, numbers: chunk });
        this.writes++;
        const answer = await submitNumberOrder(this.deps.api, { action: 'Unprovision', tenantId: tenant, phoneNumbers: chunk.map((number) => ({ number })) });
        const orderId = this.deps.orders.idOf(answer);
        if (orderId === undefined) throw new CliError('The service took an unprovision order but its answer had no orderId', ExitCode.Failure);
        this.deps.record.append({ t: 'submitted', key, orderId });
        const known: KnownOrder = { orderId, action: 'Unprovision', tenant, numbers: chunk, failed: [] };
        this.waiting.set(orderId, known);
        for (const number of chunk) {
          const result = this.results.get(`unprovision ${number}`);
          if (result) Object.assign(result, { outcome: 'submitted', orderId });
        }
        this.deps.events.say(`Submitted order ${orderId}: unprovision ${chunk.length} number${chunk.length === 1 ? '' : 's'} of tenant ${tenant}`);
        this.finishOrder(known, answer);
      }
    }
  }
}
