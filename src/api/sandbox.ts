import { objectOf, type ApiClient } from './http.js';
import { unwrapList } from './lists.js';
import type { TriggerKind } from '../domain/api/enums.js';
import type { CalledEndpointName } from '../domain/api/endpoints.js';
import type { DeliveryAttemptWire, FailedEventWire, Received, ReplayAnswerWire, TriggerAnswerWire } from '../domain/api/wire.js';

// Typed calls for the endpoints that exist only in the sandbox (docs/decisions.md#sandbox-only-endpoints), under
// /api/v1/sandbox/. They return what the sandbox said and never print.

export type { TriggerKind } from '../domain/api/enums.js';

export interface InboundMessage {
  to: string;
  from: string;
  body: string;
  mediaUrls?: string[];
  /** Payload fields to override. */
  set?: Record<string, unknown>;
}

/** A simulated inbound message's answer, with its delivery id (null when nothing is sent) and payload always there. */
export type InboundResult = Received<TriggerAnswerWire> & { deliveryId: string | null; payload: Record<string, unknown> };
/** A trigger's answer, its event always there too. */
export type TriggerResult = InboundResult & { event: string };

/** The endpoint of each trigger kind. */
const TRIGGER_ENDPOINTS = {
  'message-received': 'triggerMessageReceived',
  'delivery-receipt': 'triggerDeliveryReceipt',
  'order-status': 'triggerOrderStatus',
} as const satisfies Record<TriggerKind, CalledEndpointName>;

/** The delivery id and payload of a trigger's answer, read leniently. */
function triggerAnswer(data: Record<string, unknown>): InboundResult {
  const deliveryId = typeof data['deliveryId'] === 'string' ? data['deliveryId'] : null;
  const payload = typeof data['payload'] === 'object' && data['payload'] !== null && !Array.isArray(data['payload']) ? (data['payload'] as Record<string, unknown>) : {};
  return { ...data, deliveryId, payload };
}

export async function simulateInbound(api: ApiClient, message: InboundMessage): Promise<InboundResult> {
  return triggerAnswer(objectOf(await api.call('simulateInbound', { json: message })));
}

/** Webhook delivery attempts of the caller's tenants (a bare array). */
export async function listWebhookDeliveries(api: ApiClient): Promise<Received<DeliveryAttemptWire>[]> {
  return unwrapList((await api.call('listDeliveries')).data).items as Received<DeliveryAttemptWire>[];
}

/** POST /sandbox/triggers/{kind}: the sandbox builds the event, applies `set`, and queues it. */
export async function triggerEvent(api: ApiClient, kind: TriggerKind, request: Record<string, unknown>): Promise<TriggerResult> {
  const data = objectOf(await api.call(TRIGGER_ENDPOINTS[kind], { json: request }));
  return { ...triggerAnswer(data), event: typeof data['event'] === 'string' ? data['event'] : '' };
}

/** The failure queue of the caller's tenants (a bare array). */
export async function listFailedWebhooks(api: ApiClient): Promise<Received<FailedEventWire>[]> {
  return unwrapList((await api.call('listFailedEvents')).data).items as Received<FailedEventWire>[];
}

/** Moves a failed event back to the queue (same delivery id, fresh schedule). */
export async function replayFailedWebhook(api: ApiClient, deliveryId: string): Promise<Received<ReplayAnswerWire>> {
  return objectOf(await api.call('replayFailedEvent', { params: { deliveryId } }));
}
