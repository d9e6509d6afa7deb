import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/clock.js';
import { LARGEST_WEBHOOK_BODY_BYTES } from '../../../src/domain/webhook-delivery.js';
import { signBody } from '../../../src/domain/signature.js';
import { startWebhookListener, type WebhookListener } from '../../../src/webhooks/listener.js';
import { classifyEvent } from '../../../src/webhooks/payloads.js';
import { batteryFor, type Kit } from '../../../src/webhooks/prove/checks.js';
import { largeMessageReceived, messageReceived, newScene, SAMPLE_TEXT } from '../../../src/webhooks/prove/events.js';
import { reserialise } from '../../../src/webhooks/prove/reserialise.js';
import { batterySize, proveReceiver } from '../../../src/webhooks/prove/run.js';
import { collectingSink } from '../helpers.js';

const SECRET = 'battery-secret-0b1c2d';

function kit(basicAuth = false): Kit {
  return {
    scene: newScene(() => new Date('2026-11-26T12:00:00Z')),
    secret: SECRET,
    basicAuth: basicAuth ? { username: 'hooks', password: 'pw-1234' } : undefined,
    userAgent: 'test',
    largeBodyBytes: 64 * 1024,
  };
}

describe('the battery', () => {
  it('is a fixed number of requests: 19, and 21 with Basic auth', () => {
    expect(batterySize(false)).toBe(19);
    expect(batterySize(true)).toBe(21);
    for (const basicAuth of [false, true]) {
      const k = kit(basicAuth);
      for (const check of batteryFor({ basicAuth, largeBodyBytes: k.largeBodyBytes })) expect(check.deliveries(k)).toHaveLength(check.requests);
    }
  });

  it('sends each event kind as the listener recognises it, with its X-Svc-Event header', () => {
    const k = kit();
    const kinds = batteryFor({ basicAuth: false, largeBodyBytes: k.largeBodyBytes })
      .filter((check) => check.required && check.timed)
      .map((check) => {
        const [delivery] = check.deliveries(k);
        const payload = JSON.parse(delivery!.body.toString('utf8')) as unknown;
        expect(delivery!.headers['X-Svc-Event']).toBe(delivery!.event);
        expect(delivery!.headers['X-Svc-Signature']).toBe(signBody(delivery!.body, SECRET));
        return [check.id, classifyEvent(payload).kind, classifyEvent(payload).summary.status ?? null];
      });
    expect(kinds).toEqual([
      ['message-received', 'MessageReceived', null],
      ['message-attachments', 'MessageReceived', null],
      ['receipt-sending', 'DeliveryReceipt', 'sending'],
      ['receipt-sent', 'DeliveryReceipt', 'sent'],
      ['receipt-delivered', 'DeliveryReceipt', 'delivered'],
      ['receipt-failed', 'DeliveryReceipt', 'failed'],
      ['order-status', 'OrderStatus', 'Completed'],
    ]);
  });

  it('builds the large body within a few bytes of the size asked for', () => {
    const target = LARGEST_WEBHOOK_BODY_BYTES - 4096;
    const size = Buffer.byteLength(JSON.stringify(largeMessageReceived(newScene(() => new Date()), target)), 'utf8');
    expect(size).toBeLessThanOrEqual(target + 8);
    expect(size).toBeGreaterThan(target - 8);
  });
});

describe('re-serialising a body', () => {
  const body = Buffer.from(JSON.stringify(messageReceived(newScene(() => new Date()))), 'utf8');

  it.each(['spaces', 'key-order', 'escapes'] as const)('%s: other bytes, the same JSON', (kind) => {
    const again = reserialise(body, kind);
    expect(again.equals(body)).toBe(false);
    expect(JSON.parse(again.toString('utf8'))).toEqual(JSON.parse(body.toString('utf8')));
  });

  it('escapes: every character outside ASCII and every slash, so JSON.stringify gives the original back', () => {
    const again = reserialise(body, 'escapes').toString('utf8');
    expect(again).toMatch(/^[\x20-\x7e]*$/);
    expect(again).toContain('5\\/6');
    expect(again).toContain('\\ud83d\\ude42');
    expect(JSON.stringify(JSON.parse(again))).toBe(body.toString('utf8'));
    expect(SAMPLE_TEXT).toContain('🙂');
  });

  it('key order: the members reversed, so JSON.stringify does not give the original back', () => {
    const again = reserialise(body, 'key-order').toString('utf8');
    expect(again.startsWith('{"attachments":[]')).toBe(true);
    expect(JSON.stringify(JSON.parse(again))).not.toBe(body.toString('utf8'));
  });
});

describe('svc webhook listen is a receiver that passes', () => {
  let listener: WebhookListener | undefined;
  afterEach(async () => {
    await listener?.close();
  });

  it('every check, Basic auth included', async () => {
    const sink = collectingSink();
    listener = await startWebhookListener({ secrets: [SECRET], basicAuth: { username: 'hooks', password: 'pw-1234' } }, sink);
    const result = await proveReceiver({
      url: new URL(listener.url),
      secret: SECRET,
      basicAuth: { username: 'hooks', password: 'pw-1234' },
      timeoutMs: 30_000,
      deadlineMs: 300_000,
      clock: systemClock,
      signal: new AbortController().signal,
      userAgent: 'test',
    });
    expect(result.checks.filter((c) => c.verdict === 'failed').map((c) => [c.id, c.fix])).toEqual([]);
    expect(result.passed).toBe(true);
    expect(result.requests).toBe(21);
    // The listener took the duplicate as a retry: one event fewer than the signed requests.
    expect(sink.events.filter((e) => !e.duplicate)).toHaveLength(12);
    expect(sink.events.filter((e) => e.duplicate)).toHaveLength(1);
    expect(sink.rejections).toHaveLength(8);
  });
});
