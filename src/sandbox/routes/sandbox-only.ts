// Endpoints that exist only in the sandbox (docs/decisions.md#sandbox-only-endpoints): simulate an inbound message, and look
// at and replay webhook deliveries. Each shows only the caller's own tenants.

import { formatForExtension } from '../../domain/media-formats.js';
import type { ApiCall } from '../call.js';
import { notFound, validationError } from '../errors.js';
import { isObject, messageText, optionalMediaUrls, requiredE164, requiredGuid, type JsonObject } from '../fields.js';
import type { WebhookEventKind } from '../webhooks/types.js';
import { sendJson } from '../http-io.js';
import { incomingMessagePayload } from '../../domain/webhook-payloads.js';
import { orderView, receiptOf } from '../views.js';

/** The file name a link ends in; a malformed %-escape is kept as written rather than refused. */
function fileNameOf(url: string): string {
  const last = new URL(url).pathname.split('/').pop() ?? '';
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

/** The `set` object of a trigger: payload fields to override (any field, any JSON value). */
function overridesOf(body: JsonObject): JsonObject {
  const set = body['set'];
  if (set === undefined || set === null) return {};
  if (!isObject(set)) throw validationError('set must be an object of payload fields to override');
  return set;
}

/** Queues the event and answers what was (or would have been) sent. */
async function answerTrigger(call: ApiCall, tenantId: string, event: WebhookEventKind, payload: JsonObject): Promise<void> {
  const deliveryId = call.engine.emit(tenantId, event, payload);
  await call.engine.persisted();
  sendJson(call.res, 202, { deliveryId, event, payload });
}

/** A DeliveryReceipt for one of the caller's messages: its current receipt, with overrides. */
export async function triggerDeliveryReceipt(call: ApiCall): Promise<void> {
  const body = await call.readJson();
  const id = requiredGuid(body, 'messageId');
  const set = overridesOf(body);
  const message = call.engine.store.messages.get(id.toLowerCase());
  if (!message || message.owner !== call.owner) throw notFound(`Message ${id} was not found`);
  const payload: JsonObject = { ...receiptOf(message), ...set };
  // deliveredAt belongs to a delivered receipt only, unless the caller sets it on purpose.
  if ('status' in set && !('deliveredAt' in set)) {
    if (set['status'] === 'delivered') payload['deliveredAt'] ??= call.engine.nowIso();
    else delete payload['deliveredAt'];
  }
  await answerTrigger(call, message.tenantId, 'DeliveryReceipt', payload);
}

/** An OrderStatus for one of the caller's orders: the order as it is, with overrides. */
export async function triggerOrderStatus(call: ApiCall): Promise<void> {
  const body = await call.readJson();
  const raw = body['orderId'];
  if (typeof raw !== 'number' || !Number.isSafeInteger(raw)) throw validationError('orderId is required: an integer');
  const set = overridesOf(body);
  const order = call.engine.store.orders.get(raw);
  if (!order || order.owner !== call.owner) throw notFound(`Order ${raw} was not found`);
  await answerTrigger(call, order.tenantId, 'OrderStatus', { ...orderView(order), ...set });
}

export async function simulateInbound(call: ApiCall): Promise<void> {
  const body = await call.readJson();
  const engine = call.engine;
  const to = requiredE164(body, 'to');
  const from = requiredE164(body, 'from');
  const set = overridesOf(body);
  const mediaUrls = optionalMediaUrls(body);
  const message = messageText(body, mediaUrls);
  const number = engine.activeNumberOf(call.owner, to);
  if (!number) throw validationError(`to ${to} must be an active provisioned number of yours`);

  const attachments = mediaUrls.map((url) => {
    const hosted = engine.hostedMediaFor(url);
    const name = hosted?.fileName ?? fileNameOf(url);
    return {
      name,
      url,
      contentType: hosted?.contentType ?? formatForExtension(name)?.contentType ?? 'application/octet-stream',
      size: hosted?.bytes.length ?? 0,
    };
  });
  const payload = {
    ...incomingMessagePayload({
      messageId: engine.newId(),
      from,
      to,
      message,
      tenantId: number.tenantId,
      sentDate: engine.nowIso(),
      phoneNumberId: number.phoneNumberId,
      dlrId: engine.newId(),
      attachments,
    }),
    ...set,
  };
  await answerTrigger(call, number.tenantId, 'MessageReceived', payload);
}

function ownTenantIds(call: ApiCall): Set<string> {
  const ids = new Set<string>();
  for (const t of call.engine.store.tenants.values()) if (t.owner === call.owner) ids.add(t.tenantId);
  return ids;
}

export function listDeliveries(call: ApiCall): void {
  const mine = ownTenantIds(call);
  sendJson(call.res, 200, call.engine.dispatcher.deliveries().filter((d) => mine.has(d.tenantId)));
}

export function listFailedEvents(call: ApiCall): void {
  const mine = ownTenantIds(call);
  sendJson(call.res, 200, call.engine.dispatcher.failed().filter((f) => mine.has(f.tenantId)));
}

export async function replayFailedEvent(call: ApiCall<'replayFailedEvent'>): Promise<void> {
  const id = call.params.deliveryId;
  const engine = call.engine;
  const event = engine.dispatcher.failed().find((f) => f.deliveryId === id);
  const tenant = event ? engine.store.tenants.get(event.tenantId) : undefined;
  if (!event || !tenant || tenant.owner !== call.owner) throw notFound(`Failed event ${id} was not found`);
  if (!engine.dispatcher.replay(id, engine.targetFor(tenant))) throw notFound(`Failed event ${id} was not found`);
  engine.journal.dispatcherChanged(true);
  await engine.persisted();
  sendJson(call.res, 202, { deliveryId: id, replayed: true });
}
