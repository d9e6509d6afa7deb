// The sandbox's behaviour behind the routes: orders and messages that progress on the one
// scheduler, the events they hand to the webhook dispatcher, the public shapes of every
// resource, and the signed links of hosted media.

import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { WebhookDispatcher, WebhookEventKind, WebhookTarget } from './webhooks/types.js';
import type { TickScheduler } from './scheduler.js';
import type {
  MediaRecord,
  MessageRecord,
  NumberRecord,
  OrderRecord,
  SandboxStore,
  TenantRecord,
} from './state.js';
import { notFound } from './errors.js';
import { HIDDEN_SECRET } from '../domain/webhooks.js';

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
}

export class SandboxEngine {
  baseUrl = '';

  constructor(
    readonly store: SandboxStore,
    private readonly scheduler: TickScheduler,
    readonly dispatcher: WebhookDispatcher,
    private readonly timing: EngineTiming,
    private readonly markDirty: () => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** Something worth persisting changed. */
  markChanged(): void {
    this.markDirty();
  }

  nowIso(): string {
    return new Date(this.now()).toISOString();
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

  emit(tenantId: string, event: WebhookEventKind, payload: unknown): string | null {
    const tenant = this.store.tenants.get(tenantId);
    if (!tenant) return null;
    return this.dispatcher.dispatch(this.targetFor(tenant), event, payload);
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
    this.markDirty();
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
    this.markDirty();
    this.emit(order.tenantId, 'OrderStatus', this.orderView(order));
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
    }
    order.status = anyFailed ? 'Failed' : 'Completed';
    order.completionDate = at;
    order.nextStepAt = null;
  }

  // ---- messages ----

  /** Queues a message; a synchronous send runs the queued and sending steps at once. */
  startMessage(message: MessageRecord, synchronous: boolean): void {
    this.store.messages.set(message.messageId, message);
    const retention = this.timing.messageRetention ?? MESSAGE_RETENTION;
    if (this.store.messages.size > retention) this.forgetOldestFinished(this.store.messages.size - retention);
    if (synchronous) {
      this.stepMessage(message, false);
      this.stepMessage(message, true);
    } else {
      message.nextStepAt = this.now() + this.timing.messageStepMs;
      this.scheduler.at(message.nextStepAt, this.advanceMessage, message);
    }
    this.markDirty();
  }

  /**
   * Drops up to `count` of the oldest finished messages (a Map iterates in insertion order),
   * looking at a bounded number so that a long run of in-flight ones costs little per send.
   */
  private forgetOldestFinished(count: number): void {
    let dropped = 0;
    let looked = 0;
    for (const [id, m] of this.store.messages) {
      if (dropped >= count || looked++ > 64) break;
      if (m.nextStepAt === null) {
        this.store.messages.delete(id);
        dropped++;
      }
    }
  }

  private readonly advanceMessage = (message: MessageRecord): void => {
    this.stepMessage(message);
    this.markDirty();
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
    this.emit(message.tenantId, 'DeliveryReceipt', {
      messageId: message.messageId,
      status: message.status,
      statusReason: message.status === 'failed' ? 'Unreachable destination' : null,
      deliveredAt: message.deliveredAt,
      errorCode: message.errorCode,
      errorMessage: message.errorMessage,
    });
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

  // ---- public shapes ----

  tenantView(tenant: TenantRecord): Record<string, unknown> {
    const s = tenant.settings;
    return {
      tenantId: tenant.tenantId,
      owner: tenant.owner,
      billableOwner: tenant.billableOwner,
      domain: tenant.domain,
      createdDate: tenant.createdDate,
      settings: {
        webhookPrimaryUri: s.webhookPrimaryUri ?? null,
        webhookSecondaryUri: s.webhookSecondaryUri ?? null,
        webhookSecret: s.webhookSecret !== undefined ? HIDDEN_SECRET : null,
        webhookBasicAuthUsername: s.webhookBasicAuthUsername ?? null,
        webhookBasicAuthPassword: s.webhookBasicAuthPassword !== undefined ? HIDDEN_SECRET : null,
        webhookEventType: s.webhookEventType ?? 'All',
      },
    };
  }

  numberView(n: NumberRecord): Record<string, unknown> {
    return {
      phoneNumberId: n.phoneNumberId,
      phoneNumber: n.phoneNumber,
      friendlyName: n.friendlyName,
      email: n.email,
      status: n.status,
      provisionType: n.provisionType,
      provisionClass: n.provisionClass,
      capabilities: { sms: n.provisionType !== 'MMS', mms: n.provisionType !== 'SMS' },
      createdAt: n.createdAt,
      activatedAt: n.activatedAt,
      tenantId: n.tenantId,
      owner: n.owner,
      billableOwner: n.billableOwner,
      provider: n.provider,
      description: n.description,
      domain: n.domain,
      platformType: n.platformType,
      campaignId: n.campaignId,
      brandId: n.brandId,
      loaUrl: n.loaUrl,
      billingPlan: n.billingPlan,
      billingPlanName: n.billingPlanName,
      userId: n.userId,
      externalId: n.externalId,
      isActivated: n.isActivated,
      isMMSEnabled: n.isMMSEnabled,
      settings: n.settings,
    };
  }

  orderView(o: OrderRecord): Record<string, unknown> {
    return {
      orderId: o.orderId,
      status: o.status,
      action: o.action,
      tenantId: o.tenantId,
      provisionClass: o.provisionClass,
      provisionType: o.provisionType,
      createDate: o.createDate,
      completionDate: o.completionDate,
      phoneNumbers: o.phoneNumbers.map((e) => ({ ...e })),
    };
  }

  messageView(m: MessageRecord): Record<string, unknown> {
    return {
      messageId: m.messageId,
      from: m.from,
      to: m.to,
      body: m.body,
      mediaUrls: m.mediaUrls,
      status: m.status,
      segmentCount: m.segmentCount,
      encoding: m.encoding,
      queuedAt: m.queuedAt,
      sentAt: m.sentAt,
      deliveredAt: m.deliveredAt,
      errorCode: m.errorCode,
      errorMessage: m.errorMessage,
    };
  }

  newId(): string {
    return randomUUID();
  }
}
