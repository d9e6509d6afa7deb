import { describe, expect, it } from 'vitest';
import {
  formatEventJsonLine,
  formatEventLine,
  formatRejectionJsonLine,
  formatRejectionLine,
} from '../../src/webhooks/format.js';
import type { Palette } from '../../src/webhooks/format.js';
import type { AcceptedWebhookEvent, RejectedWebhookRequest } from '../../src/webhooks/listener.js';
import { classifyEvent } from '../../src/webhooks/payloads.js';
import { deliveryReceipt, failedReceipt, incomingMessage, orderStatus } from './sample-payloads.js';

const at = new Date('2025-01-02T03:04:05.000Z');

function eventFrom(raw: string, overrides: Partial<AcceptedWebhookEvent> = {}): AcceptedWebhookEvent {
  const payload: unknown = JSON.parse(raw);
  const { kind, summary } = classifyEvent(payload);
  return {
    receivedAt: at,
    method: 'POST',
    path: '/',
    kind,
    eventHeader: null,
    summary,
    payload,
    raw,
    deliveryId: null,
    dedupeKey: 'sha256:00',
    duplicate: false,
    stored: false,
    signature: 'valid',
    secretIndex: 0,
    status: 200,
    forward: null,
    ...overrides,
  };
}

const tagged: Palette = {
  dim: (text) => `<dim>${text}</dim>`,
  bold: (text) => `<b>${text}</b>`,
  green: (text) => `<green>${text}</green>`,
  yellow: (text) => `<yellow>${text}</yellow>`,
  red: (text) => `<red>${text}</red>`,
  cyan: (text) => `<cyan>${text}</cyan>`,
};

describe('formatEventLine', () => {
  const utc = { timeZone: 'utc' } as const;

  it('shows an incoming message as time, kind, from -> to, text', () => {
    expect(formatEventLine(eventFrom(JSON.stringify(incomingMessage), { deliveryId: 'dlv-1' }), utc)).toBe(
      '03:04:05  message  +15551230001 -> +15551230002  "Hello from the other side"  (1 attachment)  [dlv-1]',
    );
  });

  it('shows a delivery receipt with its status and failure details', () => {
    expect(formatEventLine(eventFrom(JSON.stringify(deliveryReceipt)), utc)).toBe(
      `03:04:05  receipt  ${deliveryReceipt.messageId}  delivered`,
    );
    expect(formatEventLine(eventFrom(JSON.stringify(failedReceipt)), utc)).toBe(
      `03:04:05  receipt  ${failedReceipt.messageId}  failed  undeliverable: 30003: Unreachable handset`,
    );
  });

  it('shows an order status with its number entries', () => {
    expect(formatEventLine(eventFrom(JSON.stringify(orderStatus)), utc)).toBe(
      '03:04:05  order    #1234  Completed  +15551230003 Active',
    );
  });

  it('shows an unknown shape with its compacted JSON', () => {
    expect(formatEventLine(eventFrom('{\n  "hello": [1, 2]\n}'), utc)).toBe('03:04:05  unknown  { "hello": [1, 2] }');
  });

  it('marks a duplicate instead of printing it as a new event', () => {
    const line = formatEventLine(eventFrom(JSON.stringify(incomingMessage), { duplicate: true, deliveryId: 'dlv-1' }), utc);
    expect(line).toBe('03:04:05  message (duplicate)  already acknowledged, answered 200  [dlv-1]');
    expect(line).not.toContain('Hello');
  });

  it('reports the relay to the app, or that the app was unreachable', () => {
    const relayed = eventFrom(JSON.stringify(deliveryReceipt), {
      status: 202,
      forward: { url: 'http://127.0.0.1:3000/', status: 202, durationMs: 12.4, error: null },
    });
    expect(formatEventLine(relayed, utc)).toMatch(/ {2}-> app 202 in 12 ms$/);
    const down = eventFrom(JSON.stringify(deliveryReceipt), {
      status: 502,
      forward: { url: 'http://127.0.0.1:3000/', status: null, durationMs: 1, error: 'ECONNREFUSED: connect refused' },
    });
    expect(formatEventLine(down, utc)).toMatch(/-> app unreachable \(ECONNREFUSED: connect refused\), answered 502$/);
  });

  it('cuts long text with an ellipsis', () => {
    const long = eventFrom(JSON.stringify({ ...incomingMessage, message: 'x'.repeat(200) }));
    const line = formatEventLine(long, { ...utc, maxTextLength: 10 });
    expect(line).toContain(`"${'x'.repeat(9)}…"`);
  });

  it('escapes control characters so that a payload cannot drive the terminal', () => {
    const hostile = eventFrom(
      JSON.stringify({ ...incomingMessage, from: '+1\u001b[2J', message: 'a\nb\u009b31mc\u202ed' }),
      { deliveryId: 'd\u0007' },
    );
    const line = formatEventLine(hostile, utc);
    expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
    expect(line).toContain('+1\\u001b[2J');
    expect(line).toContain('"a\\nb\\u009b31mc\\u202ed"');
    expect(line).toContain('[d\\u0007]');
  });

  it('uses the injected palette', () => {
    const line = formatEventLine(eventFrom(JSON.stringify(deliveryReceipt)), { ...utc, palette: tagged });
    expect(line).toBe(`<dim>03:04:05</dim>  <b>receipt</b>  ${deliveryReceipt.messageId}  <green>delivered</green>`);
    expect(formatEventLine(eventFrom(JSON.stringify(failedReceipt)), { ...utc, palette: tagged })).toContain('<red>failed</red>');
  });

  it('shows local time by default', () => {
    const local = formatEventLine(eventFrom('{}'));
    const expected = [at.getHours(), at.getMinutes(), at.getSeconds()].map((part) => String(part).padStart(2, '0')).join(':');
    expect(local.startsWith(expected)).toBe(true);
  });
});

describe('formatEventJsonLine', () => {
  it('gives one JSON object on one line with the payload as received', () => {
    const raw = '{\r\n  "orderId": 12345678901234567890,\n  "status": "Completed"\n}';
    const line = formatEventJsonLine(eventFrom(raw, { deliveryId: 'dlv-9', eventHeader: 'OrderStatus' }));
    expect(line).not.toMatch(/[\r\n]/);
    const parsed = JSON.parse(line) as Record<string, unknown>;
    expect(parsed).toEqual({
      receivedAt: '2025-01-02T03:04:05.000Z',
      kind: 'OrderStatus',
      event: 'OrderStatus',
      deliveryId: 'dlv-9',
      duplicate: false,
      signature: 'valid',
      status: 200,
      // The summary is derived from the parsed payload, so only the embedded payload keeps every digit.
      summary: { id: String(12345678901234567890), status: 'Completed' },
      forward: null,
      payload: { orderId: 12345678901234567890, status: 'Completed' },
    });
    // The big integer keeps its digits in the line itself.
    expect(line).toContain('"orderId": 12345678901234567890');
  });

  it('keeps escaped newlines inside strings intact', () => {
    const raw = JSON.stringify({ from: '+15551230001', tos: [], message: 'line 1\nline 2' });
    const parsed = JSON.parse(formatEventJsonLine(eventFrom(raw))) as { payload: { message: string } };
    expect(parsed.payload.message).toBe('line 1\nline 2');
  });

  it('writes the head JSON.stringify would, member for member, whatever the strings hold', () => {
    const stringified = (event: AcceptedWebhookEvent): string => {
      const head = JSON.stringify({
        receivedAt: event.receivedAt.toISOString(),
        kind: event.kind,
        event: event.eventHeader,
        deliveryId: event.deliveryId,
        duplicate: event.duplicate,
        signature: event.signature,
        status: event.status,
        summary: event.summary,
        forward: event.forward,
      });
      return `${head.slice(0, -1)},"payload":${event.raw.trim()}}`;
    };
    const odd = 'quote " backslash \\ tab \t ünï 😀 \u2028 \u0001';
    const events = [
      eventFrom(JSON.stringify(incomingMessage)),
      eventFrom(JSON.stringify(deliveryReceipt), { deliveryId: 'dlv-1', eventHeader: 'DeliveryReceipt', duplicate: true, status: 502 }),
      eventFrom(JSON.stringify(failedReceipt), { signature: 'unchecked', secretIndex: null }),
      eventFrom(JSON.stringify(orderStatus), { forward: { url: 'http://127.0.0.1:1/', status: 200, durationMs: 1.5, error: null } }),
      eventFrom(JSON.stringify({ from: odd, tos: [odd, '+1'], message: odd, tenantId: odd, attachments: [1, 2] }), { deliveryId: odd, eventHeader: odd }),
      eventFrom('{"id": 5, "status": true}', { receivedAt: new Date(at.getTime() + 1) }),
    ];
    for (const event of events) expect(formatEventJsonLine(event)).toBe(stringified(event));
  });

  it('embeds non-object payloads too', () => {
    expect((JSON.parse(formatEventJsonLine(eventFrom('[1, 2]'))) as { payload: unknown }).payload).toEqual([1, 2]);
    expect((JSON.parse(formatEventJsonLine(eventFrom(' null '))) as { payload: unknown }).payload).toBeNull();
  });
});

describe('rejection formats', () => {
  const rejection: RejectedWebhookRequest = {
    receivedAt: at,
    method: 'POST',
    path: '/hooks',
    remoteAddress: '127.0.0.1',
    status: 401,
    reason: 'signature mismatch: X-Svc-Signature does not match the body under the configured secret',
    deliveryId: 'dlv-3',
  };

  it('gives a readable warning line', () => {
    expect(formatRejectionLine(rejection, { timeZone: 'utc' })).toBe(
      '03:04:05  rejected 401  POST /hooks from 127.0.0.1 [dlv-3]: signature mismatch: X-Svc-Signature does not match the body under the configured secret',
    );
  });

  it('gives a JSON line', () => {
    expect(JSON.parse(formatRejectionJsonLine(rejection))).toEqual({
      receivedAt: '2025-01-02T03:04:05.000Z',
      rejected: true,
      status: 401,
      reason: rejection.reason,
      method: 'POST',
      path: '/hooks',
      remoteAddress: '127.0.0.1',
      deliveryId: 'dlv-3',
    });
  });
});
