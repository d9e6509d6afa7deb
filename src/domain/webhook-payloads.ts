// The bodies of the three webhook events, built in one place: the sandbox sends them to a
// tenant's endpoint, and `svc webhook prove` sends the same shapes to a receiver under test, so
// that what a receiver is checked with is what it will be sent.

import { createHash } from 'node:crypto';
import { MESSAGE_STATUSES, type MessageStatus } from './api/enums.js';
import type { DeliveryReceiptWire, IncomingMessageWire, OrderNumberWire, OrderWire } from './api/wire.js';
import { countSegments } from './segments.js';

/** One attachment of an incoming MMS, as the document lists it (size in bytes). */
export type WebhookAttachment = IncomingMessageWire['attachments'][number];

/** What an incoming message payload is made from; the rest (type, thread, segments, tag) follows. */
export interface IncomingMessageSource {
  messageId: string;
  from: string;
  /** The service number that received it. */
  to: string;
  message: string;
  tenantId: string;
  /** ISO 8601 UTC. */
  sentDate: string;
  phoneNumberId: string;
  dlrId: string;
  attachments: readonly WebhookAttachment[];
}

/**
 * A stable thread for a conversation between two numbers, whichever way it goes: the key is the
 * pair in order, the id a GUID-shaped digest of it.
 */
export function conversationThread(a: string, b: string): { threadId: string; threadKey: string } {
  const threadKey = a < b ? `${a}|${b}` : `${b}|${a}`;
  const h = createHash('sha256').update(threadKey).digest('hex');
  return { threadKey, threadId: `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}` };
}

/** The MessageReceived payload, its fields in the document's order (`type` 0: inbound). */
export function incomingMessagePayload(source: IncomingMessageSource): IncomingMessageWire {
  return {
    messageId: source.messageId,
    from: source.from,
    tos: [source.to],
    message: source.message,
    type: 0,
    tenantId: source.tenantId,
    sentDate: source.sentDate,
    targetNumber: source.to,
    phoneNumberId: source.phoneNumberId,
    ...conversationThread(source.to, source.from),
    dlrId: source.dlrId,
    segmentCount: countSegments(source.message).segments,
    tag: null,
    attachments: source.attachments.map((a) => ({ name: a.name, url: a.url, contentType: a.contentType, size: a.size })),
  };
}

/** A message as far as its delivery receipt tells it. */
export interface ReceiptSource {
  messageId: string;
  status: MessageStatus;
  /** Set once delivered; left out of the receipt until then. */
  deliveredAt?: string | null | undefined;
  errorCode: string | null;
  errorMessage: string | null;
}

/** The receipt statuses the service sends: one receipt for each change after `queued`. */
export const RECEIPT_STATUSES: readonly MessageStatus[] = MESSAGE_STATUSES.filter((status) => status !== 'queued');

/** The `statusReason` of a failed receipt (null for every other status). */
export const FAILED_RECEIPT_REASON = 'Unreachable destination';

/** The DeliveryReceipt payload for a message as it is now. */
export function deliveryReceiptPayload(message: ReceiptSource): DeliveryReceiptWire {
  return {
    messageId: message.messageId,
    status: message.status,
    statusReason: message.status === 'failed' ? FAILED_RECEIPT_REASON : null,
    ...(message.deliveredAt !== null && message.deliveredAt !== undefined ? { deliveredAt: message.deliveredAt } : {}),
    errorCode: message.errorCode,
    errorMessage: message.errorMessage,
  };
}

/** One number of a provisioning order, as the sandbox holds it (null where the wire leaves a field out). */
export interface OrderEntrySource extends Omit<OrderNumberWire, 'email' | 'errorMessage'> {
  email?: string | null | undefined;
  errorMessage?: string | null | undefined;
}

/** A provisioning order as the sandbox holds it: the wire's fields, with null until final. */
export interface OrderSource extends Omit<OrderWire, 'completionDate' | 'phoneNumbers'> {
  completionDate: string | null;
  phoneNumbers: readonly OrderEntrySource[];
}

/**
 * An order as the API answers it, which is also the OrderStatus payload. Optional fields that are
 * not set are left out rather than sent as null.
 */
export function orderPayload(order: OrderSource): OrderWire {
  return {
    orderId: order.orderId,
    status: order.status,
    action: order.action,
    tenantId: order.tenantId,
    provisionClass: order.provisionClass,
    provisionType: order.provisionType,
    createDate: order.createDate,
    ...(order.completionDate !== null ? { completionDate: order.completionDate } : {}),
    phoneNumbers: order.phoneNumbers.map((e) => ({
      number: e.number,
      phoneNumberId: e.phoneNumberId,
      status: e.status,
      ...(e.email !== null && e.email !== undefined ? { email: e.email } : {}),
      ...(e.errorMessage !== null && e.errorMessage !== undefined ? { errorMessage: e.errorMessage } : {}),
    })),
  };
}
