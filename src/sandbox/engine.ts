// The sandbox's behaviour behind the routes: orders and messages that progress on the one
// scheduler, the events they hand to the webhook dispatcher, and the signed links of hosted
// media. The public shapes of the records are in views.ts.

import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { WebhookDispatcher, WebhookEventKind, WebhookTarget } from './webhooks/types.js';
import type { TickScheduler } from './scheduler.js';
import type {
  MediaRecord,
  MessageRecord,
  NumberRecord,
  OrderRecord,
  SandboxStore,
  StoreChange,
  TenantRecord,
} from './state/records.js';
import { ApiError, notFound } from './errors.js';
import { cachedJson, type CachedJson } from './http-io.js';
import { numberView, orderView, receiptOf } from './views.js';
import { RateLimiter } from './rate-limit.js';

/** The fictional range whose numbers fail provisioning and whose recipients fail delivery. */
export const FAILING_NUMBER_PATTERN = /^\+1555010\d{4}$/;

/** What GET answers in place of a stored secret; sending it back in a PUT keeps the secret. */
export { HIDDEN_SECRET } from '../domain/webhooks.js';

export const UNREACHABLE_ERROR_CODE = 'UNREACHABLE_DESTINATION';
export const UNREACHABLE_ERROR_MESSAGE = 'The destination handset is unreachable (sandbox failing test number)';
export const PROVISION_FAILED_MESSAGE = 'The carrier refused the number (sandbox failing test range +1555010xxxx)';

/**
 * Messages kept for GET /messages/{id}. Beyond this, the oldest finished ones are forgotten, so
 * that a sandbox left running under a benchmark does not grow without bound.
 */
export const MESSAGE_RETENTION = 100_000;

export interface EngineTiming {
  /** Real milliseconds from order creation to its final status, for P2P (A2P is 5x). */
  orderDelayMs: number;
  /** Real milliseconds between two message status steps. */
  messageStepMs: number;
  /** Messages kept (default MESSAGE_RETENTION). */
  messageRetention?: number;
  /** Account-wide sends per second (`--rate-limit`); undefined or 0 is no limit. */
  accountRateLimit?: number;
}

/** What the engine tells its persistence: a record changed, an event was queued. */
export interface EngineJournal {
  changed(change: StoreChange): void;
  /** An event the dispatcher queued (so that a crash before the next snapshot keeps it). */
  dispatched(deliveryId: string, event: WebhookEventKind, target: WebhookTarget, payload: unknown): void;
  /** The dispatcher's own state changed; `urgent` when a write request's answer depends on it. */
  dispatcherChanged(urgent?: boolean): void;
  /** Resolves once every change so far is on disk (at once without --state). */
  persisted(): Promise<void>;
}

export const NO_JOURNAL: EngineJournal = {
  changed() {},
  dispatched() {},
  dispatcherChanged() {},
  persisted: () => Promise.resolve(),
};

export class SandboxEngine {
  baseUrl = '';
  journal: EngineJournal = NO_JOURNAL;
  readonly limiter: RateLimiter;

  constructor(
    readonly store: SandboxStore,
    private readonly scheduler: TickScheduler,
    readonly dispatcher: WebhookDispatcher,
    private readonly timing: EngineTiming,
    readonly now: () => number = Date.now,
  ) {
    this.limiter = new RateLimiter(now, timing.accountRateLimit);
  }

  /** A record changed: the journal writes it with the next group. */
  changed(change: StoreChange): void {
    if (change.kind === 'number') {
      this.numberJsonCache.delete(change.value);
      this.activeByOwner.delete(change.value.owner);
    }
    this.journal.changed(change);
  }

  /**
   * Each owner's active numbers in number order, kept until a number of that owner changes: a
   * page of the active list is then a slice, not a scan and a sort of every stored number (with
   * ten thousand numbers, the hundred pages of one fleet read cost one sort, not a hundred).
   */
  private readonly activeByOwner = new Map<string, readonly NumberRecord[]>();

  activeNumbers(owner: string): readonly NumberRecord[] {
    let list = this.activeByOwner.get(owner);
    if (list === undefined) {
      const active: NumberRecord[] = [];
      for (const n of this.store.numbers.values()) if (n.owner === owner && n.status === 'Active') active.push(n);
      active.sort((a, b) => (a.phoneNumber < b.phoneNumber ? -1 : a.phoneNumber > b.phoneNumber ? 1 : 0));
      this.activeByOwner.set(owner, (list = active));
    }
    return list;
  }

  private readonly numberJsonCache = new WeakMap<NumberRecord, CachedJson>();

  /** A number's read answer, serialized and encoded, kept until the record changes (reads far outnumber writes). */
  numberJson(n: NumberRecord): CachedJson {
    let answer = this.numberJsonCache.get(n);
    if (answer === undefined) {
      answer = cachedJson(JSON.stringify(numberView(n)));
      this.numberJsonCache.set(n, answer);
    }
    return answer;
  }

  /** True with --state: writes wait for persisted() before they answer. */
  get durable(): boolean {
    return this.journal !== NO_JOURNAL;
  }

  /** Resolves once every change so far is durable; a write answers only after it. */
  persisted(): Promise<void> {
    return this.journal.persisted();
  }

  private isoAt = Number.NaN;
  private iso = '';

  /** The clock as ISO 8601; one Date per millisecond however many records are stamped in it. */
  nowIso(): string {
    const now = this.now();
    if (now !== this.isoAt) {
      this.isoAt = now;
      this.iso = new Date(now).toISOString();
    }
    return this.iso;
  }

  // ---- ownership lookups: another owner's resource is "not found" ----

  ownTenant(owner: string, tenantId: string): TenantRecord {
    const tenant = this.store.tenants.get(tenantId.toLowerCase());
    if (!tenant || tenant.owner !== owner) throw notFound(`Tenant ${tenantId} was not found`);
    return tenant;
  }

  ownNumber(owner: string, phoneNumber: string): NumberRecord {
    const record = this.store.numbers.get(phoneNumber);
    if (!record || record.owner !== owner) throw notFound(`Phone number ${phoneNumber} was not found`);
    return record;
  }

  /** The number's record when the caller holds it Active, else undefined. */
  activeNumberOf(owner: string, phoneNumber: string): NumberRecord | undefined {
    const record = this.store.numbers.get(phoneNumber);
    return record && record.owner === owner && record.status === 'Active' ? record : undefined;
  }

  // ---- webhooks ----

  targetFor(tenant: TenantRecord): WebhookTarget {
    const s = tenant.settings;
    return {
      tenantId: tenant.tenantId,
      primaryUri: s.webhookPrimaryUri,
      secondaryUri: s.webhookSecondaryUri,
      secret: s.webhookSecret,
      basicAuthUsername: s.webhookBasicAuthUsername,
      basicAuthPassword: s.webhookBasicAuthPassword,
      eventType: s.webhookEventType,
    };
  }

  /** True when the tenant would be sent this event (a URI is set and its filter lets it through). */
  wants(tenantId: string, event: WebhookEventKind): boolean {
    const s = this.store.tenants.get(tenantId)?.settings;
    if (!s?.webhookPrimaryUri) return false;
    const filter = s.webhookEventType ?? 'All';
    return filter === 'All' || filter === event;
  }

  /** Queues an event for the tenant; the payload is built only when someone will receive it. */
  emit(tenantId: string, event: WebhookEventKind, payload: unknown | (() => unknown)): string | null {
    const tenant = this.store.tenants.get(tenantId);
    if (!tenant || !this.wants(tenantId, event)) return null;
    const body = typeof payload === 'function' ? (payload as () => unknown)() : payload;
    const target = this.targetFor(tenant);
    const id = this.dispatcher.dispatch(target, event, body);
    if (id !== null) this.journal.dispatched(id, event, target, body);
    return id;
  }

  // ---- throttling ----

  /** Takes `count` sends from the account's and the number's buckets, or throws a true 429. */
  admitSends(owner: string, number: NumberRecord, count: number): void {
    const perNumber = number.settings['rateLimit'];
    const waitMs = this.limiter.take(owner, number.phoneNumber, typeof perNumber === 'number' ? perNumber : 0, count);
    if (waitMs > 0) {
      const seconds = Math.max(1, Math.ceil(waitMs / 1000));
      throw new ApiError(429, 'RATE_LIMITED', `Too many messages per second; retry after ${seconds} s`, { 'Retry-After': String(seconds) });
    }
  }

  // ---- orders ----

  private orderDuration(order: OrderRecord): number {
    return order.provisionClass === 'A2P' ? this.timing.orderDelayMs * 5 : this.timing.orderDelayMs;
  }

  /** Starts a new order: Processing at half its duration, final at its end. */
  startOrder(order: OrderRecord): void {
    this.store.orders.set(order.orderId, order);
    order.nextStepAt = this.now() + this.orderDuration(order) / 2;
    this.scheduler.at(order.nextStepAt, this.advanceOrder, order);
    this.changed({ kind: 'order', value: order });
    this.changed({ kind: 'meta' });
    for (const entry of order.phoneNumbers) {
      const number = this.store.numbersById.get(entry.phoneNumberId);
      if (number) this.changed({ kind: 'number', value: number });
    }
  }

  private readonly advanceOrder = (order: OrderRecord): void => {
    if (order.status === 'Pending') {
      order.status = 'Processing';
      order.nextStepAt = this.now() + this.orderDuration(order) / 2;
      this.scheduler.at(order.nextStepAt, this.advanceOrder, order);
    } else if (order.status === 'Processing') {
      this.finishOrder(order);
    } else {
      return;
    }
    this.changed({ kind: 'order', value: order });
    this.emit(order.tenantId, 'OrderStatus', () => orderView(order));
  };

  private finishOrder(order: OrderRecord): void {
    const at = this.nowIso();
    let anyFailed = false;
    for (const entry of order.phoneNumbers) {
      const number = this.store.numbersById.get(entry.phoneNumberId);
      if (order.action === 'Unprovision') {
        entry.status = 'Released';
        if (number) {
          number.status = 'Released';
          number.releasedAt = at;
        }
      } else if (FAILING_NUMBER_PATTERN.test(entry.number)) {
        anyFailed = true;
        entry.status = 'Failed';
        entry.errorMessage = PROVISION_FAILED_MESSAGE;
        if (number) number.status = 'Failed';
      } else {
        entry.status = 'Active';
        if (number) {
          number.status = 'Active';
          number.activatedAt = at;
          number.isActivated = true;
        }
      }
      if (number && number.pendingOrderId === order.orderId) number.pendingOrderId = null;
      if (number) this.changed({ kind: 'number', value: number });
    }
    order.status = anyFailed ? 'Failed' : 'Completed';
    order.completionDate = at;
    order.nextStepAt = null;
  }

  // ---- messages ----

  /** Queues a message; a synchronous send runs the queued and sending steps at once. */
  startMessage(message: MessageRecord, synchronous: boolean): void {
    this.store.putMessage(message);
    if (synchronous) {
      this.stepMessage(message, false);
      this.stepMessage(message, true);
    } else {
      message.nextStepAt = this.now() + this.timing.messageStepMs;
      this.scheduler.at(message.nextStepAt, this.advanceMessage, message);
    }
    // After its first step: a new message is in flight, never taken for a finished one.
    const retention = this.timing.messageRetention ?? MESSAGE_RETENTION;
    if (this.store.messages.size > retention) this.store.trimMessages(retention);
    this.changed({ kind: 'message', value: message });
  }

  private readonly advanceMessage = (message: MessageRecord): void => {
    // A message forgotten by retention while in flight cannot be: only finished ones are dropped.
    this.stepMessage(message);
    this.changed({ kind: 'message', value: message });
  };

  private stepMessage(message: MessageRecord, scheduleNext = true): void {
    switch (message.status) {
      case 'queued':
        message.status = 'sending';
        break;
      case 'sending':
        if (FAILING_NUMBER_PATTERN.test(message.to)) {
          message.status = 'failed';
          message.errorCode = UNREACHABLE_ERROR_CODE;
          message.errorMessage = UNREACHABLE_ERROR_MESSAGE;
        } else {
          message.status = 'sent';
          message.sentAt = this.nowIso();
        }
        break;
      case 'sent':
        message.status = 'delivered';
        message.deliveredAt = this.nowIso();
        break;
      default:
        return;
    }
    const final = message.status === 'delivered' || message.status === 'failed';
    if (final) {
      message.nextStepAt = null;
    } else if (scheduleNext) {
      message.nextStepAt = this.now() + this.timing.messageStepMs;
      this.scheduler.at(message.nextStepAt, this.advanceMessage, message);
    }
    if (this.wants(message.tenantId, 'DeliveryReceipt')) this.emit(message.tenantId, 'DeliveryReceipt', receiptOf(message));
  }

  /**
   * After a reload: every order and message still in flight continues where it was. A step
   * comes no later than the current timing allows, so that a restart with shorter delays
   * (another --time-scale) takes effect at once.
   */
  resumeInFlight(): void {
    const now = this.now();
    for (const order of this.store.orders.values()) {
      if (order.nextStepAt === null) continue;
      order.nextStepAt = Math.max(now, Math.min(order.nextStepAt, now + this.orderDuration(order) / 2));
      this.scheduler.at(order.nextStepAt, this.advanceOrder, order);
    }
    for (const message of this.store.messages.values()) {
      if (message.nextStepAt === null) continue;
      message.nextStepAt = Math.max(now, Math.min(message.nextStepAt, now + this.timing.messageStepMs));
      this.scheduler.at(message.nextStepAt, this.advanceMessage, message);
    }
  }

  // ---- media links ----

  private mediaSignature(mediaId: string, expires: string): string {
    return createHmac('sha256', this.store.mediaSigningKey).update(`${mediaId}.${expires}`).digest('base64url');
  }

  mediaUrl(record: MediaRecord): string {
    const expires = String(Math.floor(Date.parse(record.expiresAt) / 1000));
    const sig = this.mediaSignature(record.mediaId, expires);
    return `${this.baseUrl}/media/${record.mediaId}/${encodeURIComponent(record.fileName)}?expires=${expires}&sig=${sig}`;
  }

  /** The record a link serves when its token is genuine and unexpired; undefined otherwise. */
  verifyMediaLink(mediaId: string, expires: string | null, sig: string | null): MediaRecord | undefined | 'forbidden' {
    const record = this.store.media.get(mediaId);
    if (!record) return undefined;
    if (expires === null || sig === null || !/^\d+$/.test(expires)) return 'forbidden';
    const expected = Buffer.from(this.mediaSignature(mediaId, expires));
    const given = Buffer.from(sig);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return 'forbidden';
    if (Number(expires) * 1000 < this.now()) return 'forbidden';
    return record;
  }

  /** The stored record behind one of our own media links, if the link is one. */
  hostedMediaFor(url: string): MediaRecord | undefined {
    if (!url.startsWith(`${this.baseUrl}/media/`)) return undefined;
    const id = url.slice(this.baseUrl.length + '/media/'.length).split('/')[0] ?? '';
    return this.store.media.get(id);
  }

  newId(): string {
    return randomUUID();
  }
}
