// The sandbox's whole state: plain records in maps, with a JSON form for `--state FILE`.
// Secrets are held in clear here (the sandbox must sign and authenticate its webhook calls);
// they are hidden only in API answers.

import { randomBytes } from 'node:crypto';
import type { MessageWire, OrderNumberWire, OrderWire, TenantSettingsWire } from '../../domain/api/wire.js';
import type {
  NumberStatus,
  PlatformType,
  ProvisionClass,
  ProvisionType,
} from '../../domain/api/enums.js';
import type { WebhookDispatcherState } from '../webhooks/types.js';
import { IdQueue } from '../id-queue.js';

/** A tenant's webhook settings as the sandbox stores them: the wire's fields, secrets in clear, each unset until given. */
export type TenantSettings = Partial<TenantSettingsWire>;

export interface TenantRecord {
  tenantId: string;
  owner: string;
  billableOwner: string;
  domain: string | null;
  createdDate: string;
  settings: TenantSettings;
}

export interface NumberRecord {
  phoneNumberId: string;
  phoneNumber: string;
  owner: string;
  billableOwner: string;
  provider: string;
  tenantId: string;
  friendlyName: string;
  email: string | null;
  description: string | null;
  domain: string | null;
  status: NumberStatus;
  provisionType: ProvisionType;
  provisionClass: ProvisionClass;
  platformType: PlatformType | null;
  campaignId: string | null;
  brandId: string | null;
  loaUrl: string | null;
  billingPlan: string | null;
  billingPlanName: string | null;
  userId: string | null;
  externalId: string | null;
  isActivated: boolean;
  isMMSEnabled: boolean;
  settings: Record<string, unknown>;
  createdAt: string;
  activatedAt: string | null;
  releasedAt: string | null;
  /** The order still working on this number (provision or unprovision), if any. */
  pendingOrderId: number | null;
}

/** A number of an order as stored: its wire shape, with no e-mail as null. */
export interface OrderEntry extends Omit<OrderNumberWire, 'email'> {
  email: string | null;
}

/** An order as stored: its wire shape (not final: no completion date), its owner, its next step. */
export interface OrderRecord extends Omit<OrderWire, 'completionDate' | 'phoneNumbers'> {
  owner: string;
  completionDate: string | null;
  phoneNumbers: OrderEntry[];
  /** Wall-clock ms of the next status step; null once final. */
  nextStepAt: number | null;
}

/** A message as stored: its wire shape (times not yet reached are null), its owner and tenant, its next step. */
export interface MessageRecord extends Omit<MessageWire, 'sentAt' | 'deliveredAt'> {
  owner: string;
  tenantId: string;
  sentAt: string | null;
  deliveredAt: string | null;
  nextStepAt: number | null;
}

export interface MediaRecord {
  mediaId: string;
  kind: 'media' | 'loa';
  owner: string;
  tenantId: string | null;
  phoneNumber: string | null;
  fileName: string;
  contentType: string;
  bytes: Buffer;
  createdAt: string;
  expiresAt: string;
}

export const STATE_VERSION = 1;

/** One record that changed, as the durable log writes it (the whole record: replays are upserts). */
export type StoreChange =
  | { kind: 'tenant'; value: TenantRecord }
  | { kind: 'number'; value: NumberRecord }
  | { kind: 'order'; value: OrderRecord }
  | { kind: 'message'; value: MessageRecord }
  | { kind: 'media'; value: MediaRecord }
  /** nextOrderId (the signing key never changes after start). */
  | { kind: 'meta' };

export interface SerializedState {
  version: number;
  /** The change log that continues this snapshot (FILE.<n>.log); absent in older files. */
  logGeneration?: number;
  mediaSigningKey: string;
  nextOrderId: number;
  tenants: TenantRecord[];
  numbers: NumberRecord[];
  orders: OrderRecord[];
  messages: MessageRecord[];
  media: (Omit<MediaRecord, 'bytes'> & { bytes: string })[];
  dispatcher: WebhookDispatcherState | null;
}

export class SandboxStore {
  readonly tenants = new Map<string, TenantRecord>();
  /** Keyed by E.164 number: a number exists once, whoever holds it. */
  readonly numbers = new Map<string, NumberRecord>();
  readonly numbersById = new Map<string, NumberRecord>();
  readonly orders = new Map<number, OrderRecord>();
  readonly messages = new Map<string, MessageRecord>();
  /** Message ids oldest first, for O(1) retention; may hold ids already forgotten. */
  readonly messageOrder = new IdQueue<string>();
  readonly media = new Map<string, MediaRecord>();
  mediaSigningKey: Buffer = randomBytes(32);
  nextOrderId = 1001;

  putNumber(record: NumberRecord): void {
    const previous = this.numbers.get(record.phoneNumber);
    if (previous) this.numbersById.delete(previous.phoneNumberId);
    this.numbers.set(record.phoneNumber, record);
    this.numbersById.set(record.phoneNumberId, record);
  }

  /** Stores a message (or replaces it in place, keeping its age). */
  putMessage(record: MessageRecord): void {
    if (!this.messages.has(record.messageId)) this.messageOrder.push(record.messageId);
    this.messages.set(record.messageId, record);
  }

  /**
   * Forgets the oldest finished messages until at most `retention` are kept. Each id leaves the
   * queue at most once per call unless still in flight (then it goes to the back): O(1) a send.
   */
  trimMessages(retention: number): void {
    let budget = 64 + (this.messages.size - retention);
    while (this.messages.size > retention && budget-- > 0) {
      const id = this.messageOrder.shift();
      if (id === undefined) return;
      const m = this.messages.get(id);
      if (m === undefined) continue;
      if (m.nextStepAt === null) this.messages.delete(id);
      else this.messageOrder.push(id);
    }
  }

  serialize(dispatcher: WebhookDispatcherState | null): SerializedState {
    return {
      version: STATE_VERSION,
      mediaSigningKey: this.mediaSigningKey.toString('base64'),
      nextOrderId: this.nextOrderId,
      tenants: [...this.tenants.values()],
      numbers: [...this.numbers.values()],
      orders: [...this.orders.values()],
      messages: [...this.messages.values()],
      media: [...this.media.values()].map((m) => ({ ...m, bytes: m.bytes.toString('base64') })),
      dispatcher,
    };
  }

  /** Loads a serialized state into this (empty) store; throws when the shape is not ours. */
  load(state: SerializedState): void {
    if (state.version !== STATE_VERSION) {
      throw new Error(`unsupported state file version ${String(state.version)} (expected ${STATE_VERSION})`);
    }
    this.mediaSigningKey = Buffer.from(state.mediaSigningKey, 'base64');
    this.nextOrderId = state.nextOrderId;
    for (const t of state.tenants) this.tenants.set(t.tenantId, t);
    for (const n of state.numbers) this.putNumber(n);
    for (const o of state.orders) this.orders.set(o.orderId, o);
    for (const m of state.messages) this.putMessage(m);
    for (const m of state.media) this.media.set(m.mediaId, { ...m, bytes: Buffer.from(m.bytes, 'base64') });
  }
}

export function isSerializedState(value: unknown): value is SerializedState {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v['version'] === 'number' &&
    typeof v['mediaSigningKey'] === 'string' &&
    typeof v['nextOrderId'] === 'number' &&
    Array.isArray(v['tenants']) &&
    Array.isArray(v['numbers']) &&
    Array.isArray(v['orders']) &&
    Array.isArray(v['messages']) &&
    Array.isArray(v['media'])
  );
}
