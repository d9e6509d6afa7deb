import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/index.js';
import { startWebhookListener, type AcceptedWebhookEvent, type WebhookListener } from '../../../src/webhooks/listener.js';
import { runCli } from '../../helpers/cli.js';
import { startTestServer } from '../../helpers/http-server.js';
import { basicAuth } from '../../helpers/live.js';
import { ExchangeLog } from '../../sandbox/openapi-check.js';
import { provisionActiveNumber, strictApi, type StrictApi } from '../../sandbox/helpers.js';

/** Every request and answer the sandbox serves here, checked against its OpenAPI document. */
const exchanges = new ExchangeLog();

// `svc sandbox inbound` against a real sandbox on port 0, whose real dispatcher posts to a real
// listener: the command's answer and the webhook that arrives are both checked.

const AUTH = basicAuth('sandbox@example.com', 'sandbox');
const WEBHOOK_SECRET = 'inbound-test-secret';
const OUR_NUMBER = '+15551230001';
const QUIET_NUMBER = '+15551230002';
const SENDER = '+15559870002';

let sandbox: RunningSandbox;
let listener: WebhookListener;
const received: AcceptedWebhookEvent[] = [];
/** One line per request the sandbox answered. */
const requestLog: string[] = [];
let env: Record<string, string>;
let quietTenantId: string;
let api: StrictApi;

/** Wakes the waiters of receivedAtLeast() on each webhook the listener accepts. */
const arrivalWaiters = new Set<() => void>();
function accept(event: AcceptedWebhookEvent): void {
  received.push(event);
  for (const wake of arrivalWaiters) wake();
}

/** The events received once there are `count`; fails after a generous deadline. */
async function receivedAtLeast(count: number): Promise<AcceptedWebhookEvent[]> {
  return new Promise((resolve, reject) => {
    const check = (): void => {
      if (received.length < count) return;
      arrivalWaiters.delete(check);
      clearTimeout(deadline);
      resolve(received);
    };
    const deadline = setTimeout(() => {
      arrivalWaiters.delete(check);
      reject(new Error(`${received.length} of ${count} webhooks arrived within 20 s`));
    }, 20_000);
    arrivalWaiters.add(check);
    check();
  });
}

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, orderDelayMs: 10, messageStepMs: 10, logRequests: true, log: (line) => requestLog.push(line), observe: exchanges.observe });
  api = strictApi(sandbox.apiUrl, AUTH);
  listener = await startWebhookListener({ secrets: [WEBHOOK_SECRET] }, { accepted: accept, rejected: () => {} });
  env = { SVC_BASE_URL: sandbox.url, SVC_USERNAME: 'sandbox@example.com', SVC_PASSWORD: 'sandbox' };
  // Only inbound messages reach the listener, so that order updates do not mix in.
  const tenant = await api('POST', '/tenants', {
    settings: { webhookPrimaryUri: listener.url, webhookSecret: WEBHOOK_SECRET, webhookEventType: 'MessageReceived' },
  });
  await provisionActiveNumber(api, String(tenant['tenantId']), OUR_NUMBER);
  const quiet = await api('POST', '/tenants', { settings: { webhookPrimaryUri: listener.url, webhookSecret: WEBHOOK_SECRET, webhookEventType: 'OrderStatus' } });
  quietTenantId = String(quiet['tenantId']);
  await provisionActiveNumber(api, quietTenantId, QUIET_NUMBER);
  await sandbox.dispatcher.idle();
  received.length = 0;
});

afterAll(async () => {
  await sandbox?.close();
  await listener?.close();
  expect(exchanges.violations).toEqual([]);
  exchanges.assertClean();
});

describe('svc sandbox inbound: input checks (exit 2, nothing sent)', () => {
  const bad: Array<[string[], RegExp]> = [
    [['--from', SENDER, '--body', 'hi'], /--to is required/],
    [['--to', OUR_NUMBER, '--body', 'hi'], /--from is required/],
    [['--to', '5551230001', '--from', SENDER, '--body', 'hi'], /--to "5551230001" is not an E\.164 number/],
    [['--to', OUR_NUMBER, '--from', '+0123', '--body', 'hi'], /--from "\+0123" is not an E\.164 number/],
    [['--to', OUR_NUMBER, '--from', SENDER], /--body is required/],
    [['--to', OUR_NUMBER, '--from', SENDER, '--body', 'x', '--media', 'http://example.com/a.png'], /--media "http:\/\/example\.com\/a\.png" must be an https:\/\/ link/],
    [['--to', OUR_NUMBER, '--from', SENDER, '--body', 'x', '--media', 'not a url'], /--media "not a url"/],
    [
      ['--to', OUR_NUMBER, '--from', SENDER, '--body', 'x', ...Array.from({ length: 11 }, (_, i) => ['--media', `https://example.com/${i}.png`]).flat()],
      /--media is given 11 times; a message has at most 10 media/,
    ],
  ];
  for (const [args, message] of bad) {
    it(`refuses ${args.slice(0, 6).join(' ')}`, async () => {
      const before = requestLog.length;
      const result = await runCli(['sandbox', 'inbound', ...args], { env });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(requestLog.slice(before)).toEqual([]);
    });
  }
});

describe('svc sandbox inbound', () => {
  it('sends the MessageReceived webhook (type 0) and prints its delivery id', async () => {
    received.length = 0;
    const result = await runCli(['sandbox', 'inbound', '--to', OUR_NUMBER, '--from', SENDER, '--body', 'hello from outside'], { env });
    expect(result.code).toBe(0);
    const deliveryId = /^deliveryId\t(\S+)$/m.exec(result.stdout)?.[1];
    expect(deliveryId).toMatch(/\S+/);
    expect(result.stdout).toMatch(/^from\t\+15559870002$/m);
    expect(result.stdout).toMatch(/^message\thello from outside$/m);
    expect(result.stderr).toContain(`MessageReceived webhook queued for the tenant (delivery ${deliveryId ?? ''})`);

    const [event] = await receivedAtLeast(1);
    expect(event?.kind).toBe('MessageReceived');
    expect(event?.signature).toBe('valid');
    expect(event?.deliveryId).toBe(deliveryId);
    expect(event?.payload).toMatchObject({ type: 0, from: SENDER, tos: [OUR_NUMBER], targetNumber: OUR_NUMBER, message: 'hello from outside' });
  });

  it('--json prints the sandbox answer; media links (https, or the sandbox\'s own http loopback links) become attachments', async () => {
    received.length = 0;
    const media = ['https://cdn.example.com/cat.png', `${sandbox.url}/media/none/dog.jpg`];
    const result = await runCli(['sandbox', 'inbound', '--to', OUR_NUMBER, '--from', SENDER, '--media', media[0] ?? '', '--media', media[1] ?? '', '--json'], { env });
    expect(result.code).toBe(0);
    const answer = JSON.parse(result.stdout) as { deliveryId: string; payload: { message: string; attachments: { url: string; contentType: string }[] } };
    expect(answer.deliveryId).toEqual(expect.any(String));
    expect(answer.payload.message).toBe('');
    expect(answer.payload.attachments.map((a) => a.url)).toEqual(media);
    expect(answer.payload.attachments.map((a) => a.contentType)).toEqual(['image/png', 'image/jpeg']);
    const [event] = await receivedAtLeast(1);
    expect(event?.deliveryId).toBe(answer.deliveryId);
  });

  it("says why no webhook is sent when the tenant's filter leaves inbound messages out", async () => {
    const result = await runCli(['sandbox', 'inbound', '--to', QUIET_NUMBER, '--from', SENDER, '--body', 'anyone?'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^deliveryId\t$/m);
    expect(result.stderr).toContain(`No webhook was sent: tenant ${quietTenantId} receives only OrderStatus events`);
  });

  it('a number that is not an active number of the caller is the sandbox\'s 400 (exit 1)', async () => {
    const result = await runCli(['sandbox', 'inbound', '--to', '+15551239999', '--from', SENDER, '--body', 'x'], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/to \+15551239999 must be an active provisioned number of yours/);
  });

  it('wrong credentials are exit 3', async () => {
    const result = await runCli(['sandbox', 'inbound', '--to', OUR_NUMBER, '--from', SENDER, '--body', 'x'], { env: { ...env, SVC_PASSWORD: 'wrong' } });
    expect(result.code).toBe(3);
  });

  it('against a service without sandbox endpoints, says that it needs a sandbox (exit 4)', async () => {
    const server = await startTestServer();
    server.on('POST', '/api/v1/sandbox/inbound', (_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'Not Found', title: 'Not Found', errorCode: 'NOT_FOUND' }));
    });
    try {
      const result = await runCli(['sandbox', 'inbound', '--to', OUR_NUMBER, '--from', SENDER, '--body', 'x'], { env: { ...env, SVC_BASE_URL: server.url } });
      expect(result.code).toBe(4);
      expect(result.stderr).toMatch(/has no sandbox endpoint .*works only against a sandbox/);
      expect(server.unhandled).toEqual([]);
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});
