// What the sandbox (which sends webhooks and hides secrets) and the CLI (which receives,
// verifies and shows them) must spell alike.

/** The events the service sends, as named in the `X-Svc-Event` header. */
export const WEBHOOK_EVENT_KINDS = ['MessageReceived', 'DeliveryReceipt', 'OrderStatus'] as const;
export type WebhookEventKind = (typeof WEBHOOK_EVENT_KINDS)[number];

export function isWebhookEventKind(value: unknown): value is WebhookEventKind {
  return typeof value === 'string' && (WEBHOOK_EVENT_KINDS as readonly string[]).includes(value);
}

/** The webhook headers as sent; Node's server hands them over in lower case. */
export const WEBHOOK_EVENT_HEADER = 'X-Svc-Event';
export const WEBHOOK_DELIVERY_HEADER = 'X-Svc-Delivery';
export const WEBHOOK_SIGNATURE_HEADER = 'X-Svc-Signature';

/** What a read shows in place of a stored secret (the tenant's webhook secret and password). */
export const HIDDEN_SECRET = '********';
