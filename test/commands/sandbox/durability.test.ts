import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN } from '../../helpers/spawn.js';
import { basicAuth } from '../../helpers/live.js';
import { ExchangeLogFiles } from '../../sandbox/openapi-check.js';

// `svc sandbox start --state FILE` as users run it, killed with SIGKILL right after each kind of
// 2xx write: every answered write is there after a restart (20 trials, 0 lost).

const AUTH = basicAuth('sandbox@example.com', 'sandbox');
const NUMBER = '+14155550900';
const children: ChildProcessWithoutNullStreams[] = [];
let dir: string;
let stateFile: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-durable-'));
  stateFile = join(dir, 'state.json');
});
// Every request and answer, up to each SIGKILL, is validated against the OpenAPI document.
const exchanges = new ExchangeLogFiles();

afterAll(async () => {
  const validated = exchanges.check();
  exchanges.dispose();
  expect(validated).toBeGreaterThan(0);
  await rm(dir, { recursive: true, force: true });
});
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

interface Running {
  child: ChildProcessWithoutNullStreams;
  api: string;
  exited: Promise<unknown>;
}

/** Starts the sandbox on the state file and resolves with its API URL once it prints it. */
async function start(): Promise<Running> {
  const child = spawn(process.execPath, [BIN, 'sandbox', 'start', '--port', '0', '--json', '--state', stateFile, '--order-delay', '20'], {
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...exchanges.env() },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  const exited = new Promise((resolve) => child.on('close', resolve));
  let out = '';
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const api = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      try {
        resolve((JSON.parse(out) as { apiUrl: string }).apiUrl);
      } catch {
        // Not all of it yet.
      }
    });
    void exited.then(() => reject(new Error(`the sandbox exited before listening: ${err}`)));
  });
  return { child, api, exited };
}

async function call(api: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: Record<string, unknown> }> {
  const isRaw = typeof body === 'string' || Buffer.isBuffer(body);
  const res = await fetch(`${api}${path}`, {
    method,
    headers: { Authorization: AUTH, ...(body !== undefined && !isRaw ? { 'Content-Type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: isRaw ? (body as string) : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

async function kill9(running: Running): Promise<void> {
  running.child.kill('SIGKILL');
  await running.exited;
}

async function until<T>(check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

type Check = (api: string) => Promise<void>;

describe('sandbox --state survives kill -9 after every kind of answered write', () => {
  it('20 trials, each killed right after its 2xx answer: nothing answered is lost', async () => {
    const setup = await start();
    const tenant = await call(setup.api, 'POST', '/tenants', { settings: { webhookPrimaryUri: 'http://127.0.0.1:9/hook' } });
    expect(tenant.status).toBe(201);
    const tenantId = tenant.json['tenantId'] as string;
    const order = await call(setup.api, 'POST', '/phone-numbers/provision', {
      action: 'Provision',
      tenantId,
      phoneNumbers: [{ number: NUMBER, messagingFeature: { provisionType: 'SMSMMS', provisionClass: 'P2P' } }],
    });
    await until(async () => ((await call(setup.api, 'GET', `/phone-numbers/orders/${order.json['orderId'] as number}`)).json['status'] === 'Completed' ? true : undefined));
    await kill9(setup);

    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1]).toString('base64');
    const pdf = Buffer.from('%PDF-1.4\n%%EOF\n');
    const boundary = 'svcboundary';
    const form = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="loa.pdf"\r\nContent-Type: application/pdf\r\n\r\n`),
      pdf,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    let lastDomain = '';
    let lastExternalId = '';
    const kinds: Array<(api: string, i: number) => Promise<Check>> = [
      async (api, i) => {
        const r = await call(api, 'POST', '/tenants', { domain: `t${i}.example.com` });
        expect(r.status).toBe(201);
        return async (a) => expect((await call(a, 'GET', `/tenants/${r.json['tenantId'] as string}`)).json['domain']).toBe(`t${i}.example.com`);
      },
      async (api, i) => {
        expect((await call(api, 'PUT', `/tenants/${tenantId}`, { domain: `u${i}.example.com` })).status).toBe(204);
        lastDomain = `u${i}.example.com`;
        return async (a) => expect((await call(a, 'GET', `/tenants/${tenantId}`)).json['domain']).toBe(lastDomain);
      },
      async (api, i) => {
        const number = `+1415555${String(1000 + i)}`;
        const r = await call(api, 'POST', '/phone-numbers/provision', {
          action: 'Provision',
          tenantId,
          phoneNumbers: [{ number, messagingFeature: { provisionType: 'SMS', provisionClass: 'P2P' } }],
        });
        expect(r.status).toBe(202);
        return async (a) => {
          expect((await call(a, 'GET', `/phone-numbers/orders/${r.json['orderId'] as number}`)).status).toBe(200);
          expect((await call(a, 'GET', `/phone-numbers/${encodeURIComponent(number)}`)).status).toBe(200);
        };
      },
      async (api, i) => {
        expect((await call(api, 'PUT', `/phone-numbers/${encodeURIComponent(NUMBER)}`, { externalId: `ext-${i}` })).status).toBe(204);
        lastExternalId = `ext-${i}`;
        return async (a) => expect((await call(a, 'GET', `/phone-numbers/${encodeURIComponent(NUMBER)}`)).json['externalId']).toBe(lastExternalId);
      },
      async (api, i) => {
        const r = await call(api, 'POST', `/messages${i % 2 === 0 ? '' : '?isAsync=true'}`, { from: NUMBER, to: ['+14155559900'], body: `durable ${i}` });
        expect([200, 202]).toContain(r.status);
        return async (a) => expect((await call(a, 'GET', `/messages/${r.json['messageId'] as string}`)).json['body']).toBe(`durable ${i}`);
      },
      async (api) => {
        const r = await call(api, 'POST', '/media', { phoneNumber: NUMBER, fileName: 'k.png', contentType: 'image/png', data: png, tenantId });
        expect(r.status).toBe(201);
        const path = new URL(r.json['uri'] as string);
        return async (a) => expect((await fetch(`${new URL(a).origin}${path.pathname}${path.search}`)).status).toBe(200);
      },
      async (api) => {
        const r = await call(api, 'POST', '/phone-numbers/loa', form, { 'Content-Type': `multipart/form-data; boundary=${boundary}` });
        expect(r.status).toBe(201);
        const path = new URL(r.json['loaUrl'] as string);
        return async (a) => expect((await fetch(`${new URL(a).origin}${path.pathname}${path.search}`)).status).toBe(200);
      },
      async (api, i) => {
        const r = await call(api, 'POST', '/sandbox/inbound', { to: NUMBER, from: '+14155558800', body: `in ${i}` });
        expect(r.status).toBe(202);
        const deliveryId = r.json['deliveryId'] as string;
        expect(deliveryId).toEqual(expect.any(String));
        // The queued event survived: after the restart it is attempted (the URI refuses connections).
        return async (a) => {
          await until(async () => {
            const list = (await call(a, 'GET', '/sandbox/webhooks/deliveries')).json as unknown as { deliveryId: string }[];
            return list.some((d) => d.deliveryId === deliveryId) ? true : undefined;
          });
        };
      },
    ];

    const checks: Check[] = [];
    for (let trial = 0; trial < 20; trial++) {
      const running = await start();
      const kind = kinds[trial % kinds.length]!;
      checks.push(await kind(running.api, trial));
      await kill9(running);
    }
    const last = await start();
    for (const check of checks) await check(last.api);
    await kill9(last);
  }, 180_000);
});
