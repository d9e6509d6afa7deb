// What the sandbox (which sends webhooks and hides secrets) and the CLI (which receives,
// verifies and shows them) must spell alike.

import { isOneOf, WEBHOOK_EVENT_KINDS, type WebhookEventKind } from './api/enums.js';

// The event kinds are an enumeration of the contract; re-exported with the headers that carry them.
export { WEBHOOK_EVENT_KINDS, type WebhookEventKind } from './api/enums.js';

export function isWebhookEventKind(value: unknown): value is WebhookEventKind {
  return isOneOf(WEBHOOK_EVENT_KINDS, value);
}

/** The webhook headers as sent; Node's server hands them over in lower case. */
export const WEBHOOK_EVENT_HEADER = 'X-Svc-Event';
export const WEBHOOK_DELIVERY_HEADER = 'X-Svc-Delivery';
export const WEBHOOK_SIGNATURE_HEADER = 'X-Svc-Signature';
/** The same headers as Node's server hands them over and stored events keep them: lower case. */
export const WEBHOOK_EVENT_KEY = WEBHOOK_EVENT_HEADER.toLowerCase();
export const WEBHOOK_DELIVERY_KEY = WEBHOOK_DELIVERY_HEADER.toLowerCase();
export const WEBHOOK_SIGNATURE_KEY = WEBHOOK_SIGNATURE_HEADER.toLowerCase();

/** What a read shows in place of a stored secret (the tenant's webhook secret and password). */
export const HIDDEN_SECRET = '********';
