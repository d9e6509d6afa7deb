import { objectOf, type ApiClient } from './http.js';
import { unwrapList } from './lists.js';

// Typed calls for the endpoints that exist only in the sandbox (decisions.md), under
// /api/v1/sandbox/. They return what the sandbox said and never print.

export interface InboundMessage {
  to: string;
  from: string;
  body: string;
  mediaUrls?: string[];
  /** Payload fields to override. */
  set?: Record<string, unknown>;
}

export interface InboundResult {
  /** The webhook delivery id; null when the tenant's filter or missing URI means nothing is sent. */
  deliveryId: string | null;
  /** The MessageReceived payload the tenant's webhook receives (or would). */
  payload: Record<string, unknown>;
  [extra: string]: unknown;
}

export async function simulateInbound(api: ApiClient, message: InboundMessage): Promise<InboundResult> {
  const response = await api.request({ call: 'sandboxInbound', method: 'POST', path: 'sandbox/inbound', json: message });
  const data = objectOf(response);
  const deliveryId = typeof data['deliveryId'] === 'string' ? data['deliveryId'] : null;
  const payload = typeof data['payload'] === 'object' && data['payload'] !== null && !Array.isArray(data['payload']) ? (data['payload'] as Record<string, unknown>) : {};
  return { ...data, deliveryId, payload };
}

/** Webhook delivery attempts of the caller's tenants (a bare array). */
export async function listWebhookDeliveries(api: ApiClient): Promise<Record<string, unknown>[]> {
  const response = await api.request({ call: 'sandboxDeliveries', method: 'GET', path: 'sandbox/webhooks/deliveries' });
  return unwrapList(response.data).items as Record<string, unknown>[];
}

export type TriggerKind = 'message-received' | 'delivery-receipt' | 'order-status';

export interface TriggerResult {
  deliveryId: string | null;
  event: string;
  payload: Record<string, unknown>;
  [extra: string]: unknown;
}

/** POST /sandbox/triggers/{kind}: the sandbox builds the event, applies `set`, and queues it. */
export async function triggerEvent(api: ApiClient, kind: TriggerKind, request: Record<string, unknown>): Promise<TriggerResult> {
  const response = await api.request({ call: 'sandboxTrigger', method: 'POST', path: `sandbox/triggers/${kind}`, json: request });
  const data = objectOf(response);
  const deliveryId = typeof data['deliveryId'] === 'string' ? data['deliveryId'] : null;
  const payload = typeof data['payload'] === 'object' && data['payload'] !== null && !Array.isArray(data['payload']) ? (data['payload'] as Record<string, unknown>) : {};
  return { ...data, deliveryId, event: typeof data['event'] === 'string' ? data['event'] : '', payload };
}

/** The failure queue of the caller's tenants (a bare array). */
export async function listFailedWebhooks(api: ApiClient): Promise<Record<string, unknown>[]> {
  const response = await api.request({ call: 'sandboxFailedWebhooks', method: 'GET', path: 'sandbox/webhooks/failed' });
  return unwrapList(response.data).items as Record<string, unknown>[];
}

/** Moves a failed event back to the queue (same delivery id, fresh schedule). */
export async function replayFailedWebhook(api: ApiClient, deliveryId: string): Promise<Record<string, unknown>> {
  const response = await api.request({ call: 'sandboxReplayWebhook', method: 'POST', path: `sandbox/webhooks/failed/${encodeURIComponent(deliveryId)}/replay` });
  return objectOf(response);
}
