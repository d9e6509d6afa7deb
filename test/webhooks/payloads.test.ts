import { describe, expect, it } from 'vitest';
import { classifyEvent } from '../../src/webhooks/payloads.js';
import { SeenDeliveries } from '../../src/webhooks/seen-deliveries.js';
import { deliveryReceipt, failedReceipt, incomingMessage, orderStatus } from './sample-payloads.js';

describe('classifyEvent', () => {
  it('recognises an incoming message by from/tos/message', () => {
    expect(classifyEvent(incomingMessage)).toEqual({
      kind: 'MessageReceived',
      summary: {
        id: incomingMessage.messageId,
        from: '+15551230001',
        to: ['+15551230002'],
        text: 'Hello from the other side',
        tenantId: incomingMessage.tenantId,
        attachments: 1,
      },
    });
    expect(classifyEvent({ from: '+15551230001', message: 'hi' }).kind).toBe('MessageReceived');
  });

  it('recognises a delivery receipt by messageId and status without from', () => {
    expect(classifyEvent(deliveryReceipt)).toEqual({
      kind: 'DeliveryReceipt',
      summary: { id: deliveryReceipt.messageId, status: 'delivered' },
    });
    expect(classifyEvent(failedReceipt).summary).toEqual({
      id: failedReceipt.messageId,
      status: 'failed',
      text: 'undeliverable: 30003: Unreachable handset',
    });
    // A message status with a sender is not a receipt.
    expect(classifyEvent({ messageId: 'm', status: 'sent', from: '+15551230001' }).kind).not.toBe('DeliveryReceipt');
  });

  it('recognises an order status by orderId', () => {
    expect(classifyEvent(orderStatus)).toEqual({
      kind: 'OrderStatus',
      summary: { id: '1234', status: 'Completed', tenantId: orderStatus.tenantId, text: '+15551230003 Active' },
    });
    expect(classifyEvent({ orderId: 'o-1' }).summary).toEqual({ id: 'o-1' });
  });

  it('calls everything else unknown, including non-objects', () => {
    for (const payload of [{}, { event: 'x' }, [], [incomingMessage], 'text', 42, null, true]) {
      expect(classifyEvent(payload).kind).toBe('unknown');
    }
    expect(classifyEvent({ event: 'message.delivered', id: 'evt_1' }).summary).toEqual({ id: 'evt_1', text: 'message.delivered' });
  });

  it('lets a known X-Svc-Event override the shape, in any case, and ignores unknown names', () => {
    expect(classifyEvent({ orderId: 1 }, 'DeliveryReceipt').kind).toBe('DeliveryReceipt');
    expect(classifyEvent({}, ' orderstatus ').kind).toBe('OrderStatus');
    expect(classifyEvent(orderStatus, 'Mystery').kind).toBe('OrderStatus');
    expect(classifyEvent(orderStatus, null).kind).toBe('OrderStatus');
  });

  it('does not trust field types: odd values are skipped or shown as text', () => {
    const odd = { from: 5, tos: '+15551230002', message: { nested: true }, attachments: 'none' };
    expect(classifyEvent(odd)).toEqual({ kind: 'MessageReceived', summary: { from: '5', to: ['+15551230002'] } });
    expect(classifyEvent({ orderId: 2, phoneNumbers: [{ number: '+1', status: 'Failed' }, 'x', {}] }).summary.text).toBe(
      '+1 Failed, x, ?',
    );
  });
});

describe('SeenDeliveries', () => {
  it('remembers keys up to its capacity, forgetting the oldest first', () => {
    const seen = new SeenDeliveries(3);
    seen.add('a');
    seen.add('b');
    seen.add('c');
    expect(seen.has('a')).toBe(true);
    seen.add('d'); // a, the oldest, goes
    expect(seen.size).toBe(3);
    expect(seen.has('a')).toBe(false);
    expect(['b', 'c', 'd'].every((key) => seen.has(key))).toBe(true);
    seen.add('b'); // already there: nothing moves
    seen.add('e'); // b goes
    expect(seen.has('b')).toBe(false);
    expect(['c', 'd', 'e'].every((key) => seen.has(key))).toBe(true);
  });

  it('keeps exactly the newest keys through many rounds of eviction', () => {
    const seen = new SeenDeliveries(1000);
    for (let index = 0; index < 50_000; index += 1) seen.add(`k${index}`);
    expect(seen.size).toBe(1000);
    expect(seen.has('k48999')).toBe(false);
    expect(seen.has('k49000')).toBe(true);
    expect(seen.has('k49999')).toBe(true);
  });

  it('does not grow when a key is added twice', () => {
    const seen = new SeenDeliveries(2);
    seen.add('a');
    seen.add('a');
    expect(seen.size).toBe(1);
  });

  it('holds 10,000 keys by default', () => {
    const seen = new SeenDeliveries();
    for (let index = 0; index < 10_001; index += 1) seen.add(`k${index}`);
    expect(seen.size).toBe(10_000);
    expect(seen.has('k0')).toBe(false);
    expect(seen.has('k1')).toBe(true);
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new SeenDeliveries(0)).toThrow(RangeError);
    expect(() => new SeenDeliveries(1.5)).toThrow(RangeError);
  });
});
