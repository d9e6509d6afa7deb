// The enumerations of the API: every closed list of values the service sends or takes, once.
// The sandbox answers with them, the OpenAPI document lists them, the CLI offers them as choices.

/** A message's life: queued, then sending and sent, then delivered or failed. */
export const MESSAGE_STATUSES = ['queued', 'sending', 'sent', 'delivered', 'failed'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** A provisioning order's life: Pending, Processing, then Completed or Failed. */
export const ORDER_STATUSES = ['Pending', 'Processing', 'Completed', 'Failed'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** A phone number's state, on the number and on each entry of an order. */
export const NUMBER_STATUSES = ['Pending', 'Active', 'Failed', 'Released'] as const;
export type NumberStatus = (typeof NUMBER_STATUSES)[number];

export const ORDER_ACTIONS = ['Provision', 'Unprovision'] as const;
export type OrderAction = (typeof ORDER_ACTIONS)[number];

export const PROVISION_TYPES = ['SMS', 'MMS', 'SMSMMS'] as const;
export type ProvisionType = (typeof PROVISION_TYPES)[number];

export const PROVISION_CLASSES = ['P2P', 'A2P'] as const;
export type ProvisionClass = (typeof PROVISION_CLASSES)[number];

export const PLATFORM_TYPES = ['PlatformAIndividual', 'PlatformAChannel', 'PlatformBSpace', 'PlatformC', 'PlatformD'] as const;
export type PlatformType = (typeof PLATFORM_TYPES)[number];

export const BILLING_PLAN_NAMES = ['250', '500', '1000', '2000', 'Pooled', 'Volume Pricing'] as const;
export type BillingPlanName = (typeof BILLING_PLAN_NAMES)[number];

/** How a message's text is encoded on the air. */
export const SMS_ENCODINGS = ['GSM-7', 'UCS-2'] as const;
export type SmsEncoding = (typeof SMS_ENCODINGS)[number];

/** The events the service sends, as named in the event header. */
export const WEBHOOK_EVENT_KINDS = ['MessageReceived', 'DeliveryReceipt', 'OrderStatus'] as const;
export type WebhookEventKind = (typeof WEBHOOK_EVENT_KINDS)[number];

/** A tenant's event filter: which events its webhook receives (delivery receipts come with All only). */
export const WEBHOOK_EVENT_TYPES = ['All', 'MessageReceived', 'OrderStatus'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The sandbox's event triggers, as they stand in its paths (`/sandbox/triggers/{kind}`). */
export const TRIGGER_KINDS = ['message-received', 'delivery-receipt', 'order-status'] as const;
export type TriggerKind = (typeof TRIGGER_KINDS)[number];

/** The `type` of a MessageReceived payload: 0 inbound, 1 outbound, 2 the service. */
export const MESSAGE_DIRECTIONS = [0, 1, 2] as const;

/** The `errorCode` of every error answer. */
export const ERROR_CODES = [
  'MISSING_AUTHORIZATION',
  'INVALID_CREDENTIALS',
  'INVALID_AUTHORIZATION_FORMAT',
  'VALIDATION_ERROR',
  'INVALID_JSON',
  'FORBIDDEN',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'CONFLICT',
  'FILE_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** The tenant settings of the document: the webhook endpoint, its secret, Basic auth and filter. */
export const TENANT_WEBHOOK_FIELDS = [
  'webhookPrimaryUri',
  'webhookSecondaryUri',
  'webhookSecret',
  'webhookBasicAuthUsername',
  'webhookBasicAuthPassword',
  'webhookEventType',
] as const;
export type TenantWebhookField = (typeof TENANT_WEBHOOK_FIELDS)[number];

/** The tenant fields a read never shows in clear (answered as the hidden mask) and output never prints. */
export const TENANT_SECRET_FIELDS = ['webhookSecret', 'webhookBasicAuthPassword'] as const satisfies readonly TenantWebhookField[];
export type TenantSecretField = (typeof TENANT_SECRET_FIELDS)[number];

/** True when `value` is one of `values` (a narrowing `includes` for readonly tuples). */
export function isOneOf<T extends string | number>(values: readonly T[], value: unknown): value is T {
  return (values as readonly unknown[]).includes(value);
}
