// The events a receiver is checked with: the payloads the sandbox sends (built by the same
// functions in src/domain/), about one made-up tenant, its number and a customer, with fresh ids
// for every event so that no check is mistaken for a repeat of another.

import { randomUUID } from 'node:crypto';
import type { MessageStatus } from '../../domain/api/enums.js';
import type { DeliveryReceiptWire, IncomingMessageWire, OrderWire } from '../../domain/api/wire.js';
import {
  deliveryReceiptPayload,
  incomingMessagePayload,
  orderPayload,
  type WebhookAttachment,
} from '../../domain/webhook-payloads.js';

/** The text of a customer's message: non-ASCII and a slash, so that escaping it changes its bytes. */
export const SAMPLE_TEXT = 'Hi! Could the delivery move to Tuesday 5/6? Café at 10 works for me 🙂';

const SERVICE_NUMBER = '+15557770100';
const CUSTOMER_NUMBER = '+14155550123';

/** One tenant, one of its numbers and one customer: every event of a run is about them. */
export interface Scene {
  tenantId: string;
  phoneNumberId: string;
  serviceNumber: string;
  customerNumber: string;
  /** The wall-clock time events are stamped with. */
  now: () => Date;
}

export function newScene(now: () => Date): Scene {
  return { tenantId: randomUUID(), phoneNumberId: randomUUID(), serviceNumber: SERVICE_NUMBER, customerNumber: CUSTOMER_NUMBER, now };
}

const SAMPLE_ATTACHMENTS: readonly Omit<WebhookAttachment, 'url'>[] = [
  { name: 'storefront.jpg', contentType: 'image/jpeg', size: 482_113 },
  { name: 'receipt.pdf', contentType: 'application/pdf', size: 91_204 },
];

export function messageReceived(scene: Scene, options: { text?: string; attachments?: boolean } = {}): IncomingMessageWire {
  const attachments = options.attachments === true
    ? SAMPLE_ATTACHMENTS.map((a) => ({ ...a, url: `https://media.example.com/${randomUUID()}/${a.name}` }))
    : [];
  return incomingMessagePayload({
    messageId: randomUUID(),
    from: scene.customerNumber,
    to: scene.serviceNumber,
    message: options.text ?? SAMPLE_TEXT,
    tenantId: scene.tenantId,
    sentDate: scene.now().toISOString(),
    phoneNumberId: scene.phoneNumberId,
    dlrId: randomUUID(),
    attachments,
  });
}

/** The receipt of one status of an outbound message (a fresh message unless one is given). */
export function deliveryReceipt(scene: Scene, status: MessageStatus, messageId: string = randomUUID()): DeliveryReceiptWire {
  const failed = status === 'failed';
  return deliveryReceiptPayload({
    messageId,
    status,
    deliveredAt: status === 'delivered' ? scene.now().toISOString() : null,
    errorCode: failed ? 'UNREACHABLE_DESTINATION' : null,
    errorMessage: failed ? 'The destination handset is unreachable' : null,
  });
}

/** A provisioning order of one number that has just completed. */
export function orderStatus(scene: Scene): OrderWire {
  const now = scene.now();
  return orderPayload({
    // Order ids are integers; a large random one is unlikely to be one the receiver knows.
    orderId: 100_000 + Math.floor(Math.random() * 900_000),
    status: 'Completed',
    action: 'Provision',
    tenantId: scene.tenantId,
    provisionClass: 'P2P',
    provisionType: 'SMSMMS',
    createDate: new Date(now.getTime() - 90_000).toISOString(),
    completionDate: now.toISOString(),
    phoneNumbers: [{ number: scene.serviceNumber, phoneNumberId: scene.phoneNumberId, status: 'Active', email: 'ops@example.com' }],
  });
}

/**
 * An incoming message whose body is `targetBytes` long, within a few bytes: a long text, as a
 * customer pasting a document would send.
 */
export function largeMessageReceived(scene: Scene, targetBytes: number): IncomingMessageWire {
  const sentence = 'Here is the full list of items for the order, with notes for each one. ';
  const base = messageReceived(scene, { text: '' });
  const overhead = Buffer.byteLength(JSON.stringify(base), 'utf8');
  // The sentence is ASCII without characters JSON escapes, so each character is one byte.
  const length = Math.max(0, targetBytes - overhead);
  const text = sentence.repeat(Math.ceil(length / sentence.length)).slice(0, length);
  return messageReceived(scene, { text });
}

/** An incoming message with fields the document does not list, at the top and inside an attachment. */
export function messageWithUnknownFields(scene: Scene): Record<string, unknown> {
  const payload = messageReceived(scene, { attachments: true });
  const attachments = payload.attachments.map((a) => ({ ...a, checksum: 'sha256:9f2c1e', width: 1280 }));
  return { ...payload, attachments, channel: 'sms', carrier: { name: 'Example Mobile', mcc: '310', mnc: '410' }, priority: 2 };
}
