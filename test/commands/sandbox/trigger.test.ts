import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/index.js';
import { openApiDocument } from '../../../src/sandbox/openapi.js';
import { runCli } from '../../helpers/cli.js';
import { basicAuth } from '../../helpers/live.js';
import { ExchangeLog, checkWebhookPayload } from '../../sandbox/openapi-check.js';
import { eventually, provisionActiveNumber, strictApi, type StrictApi } from '../../sandbox/helpers.js';

// `svc sandbox trigger ...`, `svc sandbox webhooks ...` and `svc sandbox openapi` against a real
// sandbox whose real dispatcher posts to a real receiver: every trigger and every override
// arrives, signed with the tenant's secret, and is in the sandbox's record.

const AUTH = basicAuth('sandbox@example.com', 'sandbox');
const SECRET = 'trigger-test-secret';
const NUMBER = '+15551240001';
const SENDER = '+15559870003';

interface Received {
  event: string;
  deliveryId: string;
  signatureOk: boolean;
  payload: Record<string, unknown>;
}

let sandbox: RunningSandbox;
let receiver: Server;
let receiverUrl: string;
/** What the receiver answers; 500 to send events to the failure queue. */
let answerStatus = 200;
const received: Received[] = [];
const waiters: Array<() => void> = [];
const exchanges = new ExchangeLog();
let env: Record<string, string>;
let messageId: string;
let orderId: number;
let api: StrictApi;

/** The first event received with this delivery id (waits for it). */
async function arrival(deliveryId: string): Promise<Received> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const found = received.find((r) => r.deliveryId === deliveryId && answerStatusAt.get(r) === 200);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`webhook ${deliveryId} did not arrive`);
    await new Promise<void>((resolve) => {
      waiters.push(resolve);
      setTimeout(resolve, 200);
    });
  }
}
const answerStatusAt = new Map<Received, number>();

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const expected = createHmac('sha256', SECRET).update(raw).digest('base64');
      const record: Received = {
        event: String(req.headers['x-svc-event']),
        deliveryId: String(req.headers['x-svc-delivery']),
        signatureOk: req.headers['x-svc-signature'] === expected,
        payload: JSON.parse(raw.toString('utf8')) as Record<string, unknown>,
      };
      received.push(record);
      answerStatusAt.set(record, answerStatus);
      res.statusCode = answerStatus;
      res.end();
      for (const wake of waiters.splice(0)) wake();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  // A high time scale: webhook retries (and the 24 h window) shrink to well under a second.
  sandbox = await startSandbox({ port: 0, orderDelayMs: 20, messageStepMs: 10, timeScale: 200_000, observe: exchanges.observe });
  api = strictApi(sandbox.apiUrl, AUTH);
  env = { SVC_BASE_URL: sandbox.url, SVC_USERNAME: 'sandbox@example.com', SVC_PASSWORD: 'sandbox' };
  const tenant = await api('POST', '/tenants', { settings: { webhookPrimaryUri: receiverUrl, webhookSecret: SECRET } });
  orderId = await provisionActiveNumber(api, tenant['tenantId'] as string, NUMBER);
  const sent = await api('POST', '/messages', { from: NUMBER, to: ['+15559870004'], body: 'to be receipted' });
  messageId = sent['messageId'] as string;
  await eventually(async () => ((await api('GET', `/messages/${messageId}`))['status'] === 'delivered' ? true : undefined));
  await sandbox.dispatcher.idle();
});

beforeEach(() => {
  answerStatus = 200;
});

afterAll(async () => {
  await sandbox?.close();
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
  // Every request and answer of this suite, CLI calls included, is what the OpenAPI document says.
  expect(exchanges.violations).toEqual([]);
  expect(exchanges.count).toBeGreaterThan(10);
  exchanges.assertClean();
});

async function trigger(args: string[]): Promise<{ deliveryId: string; payload: Record<string, unknown>; arrived: Received }> {
  const result = await runCli(['sandbox', 'trigger', ...args, '--json'], { env });
  expect(result.code, result.stderr).toBe(0);
  const answer = JSON.parse(result.stdout) as { deliveryId: string; event: string; payload: Record<string, unknown> };
  expect(answer.deliveryId).toEqual(expect.any(String));
  const arrived = await arrival(answer.deliveryId);
  expect(arrived.signatureOk).toBe(true);
  expect(arrived.event).toBe(answer.event);
  expect(arrived.payload).toEqual(answer.payload);
  // Recorded: the sandbox's delivery record has the attempt.
  const list = await runCli(['sandbox', 'webhooks', 'list', '--json'], { env });
  expect(list.code).toBe(0);
  expect((JSON.parse(list.stdout) as { deliveryId: string; status: number }[]).some((d) => d.deliveryId === answer.deliveryId && d.status === 200)).toBe(true);
  return { deliveryId: answer.deliveryId, payload: answer.payload, arrived };
}

describe('svc sandbox trigger delivery-receipt', () => {
  it("sends the message's current receipt, signed, valid by the document's webhooks entry", async () => {
    const { payload } = await trigger(['delivery-receipt', '--message', messageId]);
    expect(payload).toEqual({ messageId, status: 'delivered', statusReason: null, deliveredAt: expect.any(String), errorCode: null, errorMessage: null });
    expect(checkWebhookPayload('DeliveryReceipt', payload)).toEqual([]);
  });

  it('--status failed --status-reason --error-code --error-message: a failed receipt, without deliveredAt', async () => {
    const { payload } = await trigger([
      'delivery-receipt',
      '--message',
      messageId,
      '--status',
      'FAILED',
      '--status-reason',
      'Carrier rejected',
      '--error-code',
      'E30007',
      '--error-message',
      'Filtered as spam',
    ]);
    expect(payload).toEqual({ messageId, status: 'failed', statusReason: 'Carrier rejected', errorCode: 'E30007', errorMessage: 'Filtered as spam' });
    expect(checkWebhookPayload('DeliveryReceipt', payload)).toEqual([]);
    // The stored message did not change.
    expect((await api('GET', `/messages/${messageId}`))['status']).toBe('delivered');
  });

  it('--set overrides any field with JSON values, extra fields included', async () => {
    const { payload } = await trigger([
      'delivery-receipt',
      '--message',
      messageId,
      '--set',
      'status=sent',
      '--set',
      'errorCode=null',
      '--set',
      'carrierLatencyMs=1250',
      '--set',
      'statusReason="quoted text"',
    ]);
    expect(payload).toEqual({ messageId, status: 'sent', statusReason: 'quoted text', errorCode: null, errorMessage: null, carrierLatencyMs: 1250 });
  });

  it('a named flag and --set for the same field is exit 2, and nothing is sent', async () => {
    const before = exchanges.count;
    const result = await runCli(['sandbox', 'trigger', 'delivery-receipt', '--message', messageId, '--status', 'failed', '--set', 'status=sent'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--status and --set status=\.\.\. both set status/);
    for (const args of [
      ['delivery-receipt', '--message', messageId, '--set', 'novalue'],
      ['delivery-receipt', '--message', messageId, '--set', 'a=1', '--set', 'a=2'],
      ['delivery-receipt', '--message', 'not-a-guid'],
      ['delivery-receipt'],
      ['order-status', '--order', 'x1'],
      ['message-received', '--to', NUMBER, '--from', SENDER, '--body', 'x', '--set', 'message=y'],
    ]) {
      const bad = await runCli(['sandbox', 'trigger', ...args], { env });
      expect(bad.code, args.join(' ')).toBe(2);
    }
    expect(exchanges.count).toBe(before);
  });

  it('a message that is not yours (or does not exist) is 404', async () => {
    const result = await runCli(['sandbox', 'trigger', 'delivery-receipt', '--message', '00000000-0000-4000-8000-000000000000'], { env });
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/was not found/);
  });
});

describe('svc sandbox trigger order-status', () => {
  it('sends the order, with --status and --set overrides', async () => {
    const plain = await trigger(['order-status', '--order', String(orderId)]);
    expect(plain.payload).toMatchObject({ orderId, status: 'Completed' });
    expect(checkWebhookPayload('OrderStatus', plain.payload)).toEqual([]);
    const failed = await trigger(['order-status', '--order', String(orderId), '--status', 'failed', '--set', 'completionDate="2030-01-01T00:00:00.000Z"']);
    expect(failed.payload).toMatchObject({ orderId, status: 'Failed', completionDate: '2030-01-01T00:00:00.000Z' });
  });
});

describe('svc sandbox trigger message-received (and its alias sandbox inbound)', () => {
  it('sends an incoming message; --set overrides its fields', async () => {
    const { payload } = await trigger(['message-received', '--to', NUMBER, '--from', SENDER, '--body', 'STOP', '--set', 'tag=vip', '--set', 'segmentCount=3']);
    expect(payload).toMatchObject({ from: SENDER, tos: [NUMBER], message: 'STOP', tag: 'vip', segmentCount: 3, type: 0 });
    expect(checkWebhookPayload('MessageReceived', payload)).toEqual([]);
    const viaSet = await trigger(['message-received', '--to', NUMBER, '--set', `from=${SENDER}`, '--set', 'message=only by set']);
    expect(viaSet.payload).toMatchObject({ from: SENDER, message: 'only by set' });
    const alias = await runCli(['sandbox', 'inbound', '--to', NUMBER, '--from', SENDER, '--body', 'alias', '--set', 'tag=a', '--json'], { env });
    expect(alias.code).toBe(0);
    const answer = JSON.parse(alias.stdout) as { deliveryId: string; payload: Record<string, unknown> };
    const arrived = await arrival(answer.deliveryId);
    expect(arrived.signatureOk).toBe(true);
    expect(arrived.payload).toMatchObject({ message: 'alias', tag: 'a' });
  });
});

describe('svc sandbox webhooks failed | replay', () => {
  it('lists an event that exhausted its retries, and replays it with the same delivery id', async () => {
    answerStatus = 500;
    const result = await runCli(['sandbox', 'trigger', 'order-status', '--order', String(orderId), '--json'], { env });
    const { deliveryId } = JSON.parse(result.stdout) as { deliveryId: string };
    let failed: { deliveryId: string; lastStatus: number }[] = [];
    for (let i = 0; i < 400 && !failed.some((f) => f.deliveryId === deliveryId); i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      const listed = await runCli(['sandbox', 'webhooks', 'failed', '--json'], { env });
      failed = JSON.parse(listed.stdout) as typeof failed;
    }
    expect(failed.find((f) => f.deliveryId === deliveryId)?.lastStatus).toBe(500);
    const table = await runCli(['sandbox', 'webhooks', 'failed'], { env });
    expect(table.stdout).toContain(deliveryId);

    answerStatus = 200;
    const replay = await runCli(['sandbox', 'webhooks', 'replay', deliveryId], { env });
    expect(replay.code, replay.stderr).toBe(0);
    const arrived = await arrival(deliveryId);
    expect(arrived.signatureOk).toBe(true);
    expect(arrived.event).toBe('OrderStatus');
    const unknown = await runCli(['sandbox', 'webhooks', 'replay', 'dlv_nope'], { env });
    expect(unknown.code).toBe(4);
    expect((await runCli(['sandbox', 'webhooks', 'replay', 'bad id!'], { env })).code).toBe(2);
  });
});

describe('svc sandbox openapi', () => {
  it('prints the document, its server taken from --base-url', async () => {
    const result = await runCli(['sandbox', 'openapi', '--base-url', 'http://127.0.0.1:4999']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(openApiDocument('http://127.0.0.1:4999/api/v1'));
    const plain = await runCli(['sandbox', 'openapi'], { env: {} });
    expect((JSON.parse(plain.stdout) as { servers: { url: string }[] }).servers[0]?.url).toBe('http://127.0.0.1:4010/api/v1');
  });
});
