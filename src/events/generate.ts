// A synthetic store for tests and benchmarks: a campaign's worth of sent messages, their receipts
// and replies, spread over time, deterministic for a given seed.

import { sentRecord, eventRecord } from './records.js';
import type { StoredRecord } from './store/record.js';
import { WEBHOOK_DELIVERY_KEY, WEBHOOK_EVENT_KEY, type WebhookEventKind } from '../domain/webhooks.js';

/** The headers a delivery of the service carries, as stored (lower case). */
function eventHeaders(kind: WebhookEventKind, i: number): Record<string, string> {
  return { 'content-type': 'application/json', [WEBHOOK_EVENT_KEY]: kind, [WEBHOOK_DELIVERY_KEY]: `dlv-${i}` };
}

export interface GenerateOptions {
  /** How many records. */
  count: number;
  /** First record's time (ms). */
  start: number;
  /** Milliseconds between records. */
  step: number;
  /** Distinct remote numbers. */
  numbers?: number;
  seed?: number;
  /** First record's sequence number (to generate a store in parts). */
  offset?: number;
}

const OUR_NUMBER = '+15557770100';

export function remoteNumber(i: number): string {
  return `+1415${String(5_000_000 + i).padStart(7, '0')}`;
}

/** Record number `i`: a third sent messages, a third their receipts, then replies and order events. */
export function generatedRecord(i: number, options: GenerateOptions): StoredRecord {
  const numbers = options.numbers ?? 10_000;
  const at = new Date(options.start + i * options.step);
  const message = Math.floor(i / 3);
  const remote = remoteNumber((message * 7919 + (options.seed ?? 0)) % numbers);
  const messageId = `msg-${message}`;
  switch (i % 3) {
    case 0:
      return sentRecord({ messageId, from: OUR_NUMBER, to: remote, body: `Hello ${message}, your order has shipped`, at, status: 'queued' });
    case 1: {
      const failed = message % 10 === 0;
      const payload = failed
        ? { messageId, status: 'failed', statusReason: 'undeliverable', deliveredAt: null, errorCode: '4720', errorMessage: 'Unreachable' }
        : { messageId, status: 'delivered', statusReason: null, deliveredAt: at.toISOString(), errorCode: null, errorMessage: null };
      return eventRecord({
        id: `dlv-${i}`,
        type: 'DeliveryReceipt',
        receivedAt: at,
        messageId,
        status: payload.status,
        headers: eventHeaders('DeliveryReceipt', i),
        raw: JSON.stringify(payload),
      });
    }
    default: {
      if (message % 5 === 4) {
        const payload = { orderId: `order-${message}`, status: 'Completed', phoneNumbers: [{ number: remote, status: 'Active' }] };
        return eventRecord({
          id: `dlv-${i}`,
          type: 'OrderStatus',
          receivedAt: at,
          headers: eventHeaders('OrderStatus', i),
          raw: JSON.stringify(payload),
        });
      }
      const replyId = `in-${message}`;
      const payload = { messageId: replyId, from: remote, tos: [OUR_NUMBER], message: `Thanks ${message}!`, tenantId: 'tenant-1' };
      return eventRecord({
        id: `dlv-${i}`,
        type: 'MessageReceived',
        receivedAt: at,
        from: remote,
        to: [OUR_NUMBER],
        messageId: replyId,
        headers: eventHeaders('MessageReceived', i),
        raw: JSON.stringify(payload),
      });
    }
  }
}
