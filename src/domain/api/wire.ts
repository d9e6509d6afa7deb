// The wire shapes of the API: what the service answers and what its webhooks carry, as the
// document gives them. The sandbox writes them exactly; the CLI reads them as `Received<T>`:
// any field may be missing or carry a value of another type, and fields we do not know are kept
// (tolerant reading: a newer service must not break an older CLI).

import type { BillingPlanName, MessageStatus, NumberStatus, OrderAction, OrderStatus, PlatformType, ProvisionClass, ProvisionType, SmsEncoding, WebhookEventKind, WebhookEventType } from './enums.js';

/**
 * A shape as the CLI receives it: every field optional, enumerations open (a newer service may
 * send a status we do not know), nested objects read the same way, unknown fields kept.
 */
export type Received<T> = { [K in keyof T]?: Loose<T[K]> } & { [field: string]: unknown };

type Loose<T> = T extends string
  ? string
  : T extends number
    ? number
    : T extends boolean
      ? boolean
      : T extends null | undefined
        ? T
        : T extends readonly (infer E)[]
          ? Loose<E>[]
          : T extends object
            ? Received<T>
            : T;

// Unset optional fields are left out of answers (the null policy); `| null` fields are sent as null.

export interface TenantSettingsWire {
  webhookPrimaryUri?: string;
  webhookSecondaryUri?: string;
  /** Always the hidden mask when set. */
  webhookSecret?: string;
  webhookBasicAuthUsername?: string;
  /** Always the hidden mask when set. */
  webhookBasicAuthPassword?: string;
  webhookEventType: WebhookEventType;
}

export interface TenantWire {
  tenantId: string;
  owner: string;
  billableOwner: string;
  domain?: string;
  createdDate: string;
  settings: TenantSettingsWire;
}

export interface PhoneNumberWire {
  phoneNumberId: string;
  phoneNumber: string;
  friendlyName: string;
  email?: string;
  status: NumberStatus;
  provisionType: ProvisionType;
  provisionClass: ProvisionClass;
  capabilities: { sms: boolean; mms: boolean };
  createdAt: string;
  activatedAt?: string;
  tenantId: string;
  owner: string;
  billableOwner: string;
  provider: string;
  description?: string;
  domain?: string;
  platformType?: PlatformType;
  campaignId?: string;
  brandId?: string;
  loaUrl?: string;
  billingPlan?: string;
  billingPlanName?: BillingPlanName | string;
  userId?: string;
  externalId?: string;
  isActivated: boolean;
  isMMSEnabled: boolean;
  settings: Record<string, unknown>;
}

/** One page of GET /phone-numbers/active. */
export interface ActiveNumbersPageWire {
  items: PhoneNumberWire[];
  page: number;
  limit: number;
  total: number;
}

export interface OrderNumberWire {
  number: string;
  phoneNumberId: string;
  status: NumberStatus;
  email?: string;
  /** Why provisioning failed. */
  errorMessage?: string;
}

/** A provisioning order; also the OrderStatus webhook payload. */
export interface OrderWire {
  orderId: number;
  status: OrderStatus;
  action: OrderAction;
  tenantId: string;
  provisionClass: ProvisionClass;
  provisionType: ProvisionType;
  createDate: string;
  /** Left out until the order is final. */
  completionDate?: string;
  phoneNumbers: OrderNumberWire[];
}

export interface MessageWire {
  messageId: string;
  from: string;
  to: string;
  body: string;
  mediaUrls: string[];
  status: MessageStatus;
  segmentCount: number;
  encoding: SmsEncoding;
  queuedAt: string;
  sentAt?: string;
  deliveredAt?: string;
  errorCode: string | null;
  errorMessage: string | null;
}

/** The answer to a send: the first recipient's message, and with several recipients every one of them. */
export interface SendAnswerWire {
  messageId: string;
  status: MessageStatus;
  queuedAt: string;
  sentAt?: string;
  segmentCount?: number;
  encoding?: SmsEncoding;
  errorCode?: string | null;
  errorMessage?: string | null;
  messages?: { messageId: string; to: string; status: MessageStatus }[];
}

/** The two answers of a media upload: shape A's and shape B's. */
export interface MediaAnswerAWire {
  uri: string;
  fileName: string;
}
export interface MediaAnswerBWire {
  url: string;
  fileName: string;
  mimeType: string;
  expiresAt: string;
}

export interface LoaAnswerWire {
  loaUrl: string;
}

/** The MessageReceived webhook payload. */
export interface IncomingMessageWire {
  messageId: string;
  from: string;
  tos: string[];
  message: string;
  /** 0 inbound, 1 outbound, 2 the service. */
  type: 0 | 1 | 2;
  tenantId: string;
  sentDate: string;
  targetNumber: string;
  phoneNumberId: string;
  threadId: string;
  threadKey: string;
  dlrId: string;
  segmentCount: number;
  tag: string | null;
  attachments: { name: string; url: string; contentType: string; size: number }[];
}

/** The DeliveryReceipt webhook payload, one per status change of an outbound message. */
export interface DeliveryReceiptWire {
  messageId: string;
  status: MessageStatus;
  statusReason: string | null;
  deliveredAt?: string;
  errorCode: string | null;
  errorMessage: string | null;
}

/** Each webhook event's payload. */
export interface WebhookPayloads {
  MessageReceived: IncomingMessageWire;
  DeliveryReceipt: DeliveryReceiptWire;
  OrderStatus: OrderWire;
}

/** The answer of a sandbox trigger (and of a simulated inbound message). */
export interface TriggerAnswerWire {
  /** null when the tenant's event filter or missing URI means nothing is sent. */
  deliveryId: string | null;
  event: WebhookEventKind;
  payload: Record<string, unknown>;
}

export interface DeliveryAttemptWire {
  deliveryId: string;
  event: WebhookEventKind;
  tenantId: string;
  attempt: number;
  /** Credentials in the URL are redacted. */
  url: string;
  status: number | null;
  error: string | null;
  at: string;
  durationMs: number;
}

export interface FailedEventWire {
  deliveryId: string;
  event: WebhookEventKind;
  tenantId: string;
  attempts: number;
  firstAttemptAt: string;
  lastAttemptAt: string;
  lastStatus: number | null;
  lastError: string | null;
  payload: unknown;
}

export interface ReplayAnswerWire {
  deliveryId: string;
  replayed: true;
}

export interface HealthWire {
  status: string;
  totalDuration: string;
  entries: { name: string; status: string; duration: string; data?: Record<string, number> }[];
}

export interface ErrorWire {
  message: string;
  title: string;
  errorCode: string;
}
