import { Agent, request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { DEFAULT_AUTH, eventually, obj, request } from './helpers.js';
import { ExchangeLog } from './openapi-check.js';

// Bounded loopback load: 5,000 sends, 50 in flight, each message reaching a final state.
const TOTAL = 5000;
const CONCURRENCY = 50;
const FROM = '+14155550600';

let sandbox: RunningSandbox;
const exchanges = new ExchangeLog();
beforeAll(async () => {
  // The real dispatcher (no webhook URI configured, so it delivers nothing) and a high time scale.
  sandbox = await startSandbox({ port: 0, timeScale: 100, observe: exchanges.observe });
  const tenant = obj(await request(sandbox.apiUrl, 'POST', '/tenants', {}));
  await request(sandbox.apiUrl, 'POST', '/phone-numbers/provision', {
    action: 'Provision',
    tenantId: tenant['tenantId'],
    phoneNumbers: [{ number: FROM, messagingFeature: { provisionType: 'SMS', provisionClass: 'P2P' } }],
  });
  await eventually(async () => (obj(await request(sandbox.apiUrl, 'GET', `/phone-numbers/${encodeURIComponent(FROM)}`))['status'] === 'Active' ? true : undefined), 120_000);
});
afterAll(async () => {
  agent.destroy();
  await sandbox.close();
  exchanges.assertClean();
});

// The 10,000 requests go through node:http on kept-alive sockets, one per worker: fetch costs
// several times the CPU per request, and on a loaded 2-core machine that CPU is what the test waits for.
const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${sandbox.apiUrl}${path}`, {
      method,
      agent,
      headers: { authorization: DEFAULT_AUTH, ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        try {
          resolve({ status: res.statusCode ?? 0, json: obj(JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown) });
        } catch (error) {
          reject(error as Error);
        }
      });
    });
    req.end(payload);
  });
}

async function inBatches<T>(items: T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: CONCURRENCY }, async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  });
  await Promise.all(workers);
}

describe('load', () => {
  it(`takes ${TOTAL} sends ${CONCURRENCY} at a time, and every message ends delivered or failed`, async () => {
    const indexes = Array.from({ length: TOTAL }, (_, i) => i);
    const ids = new Map<string, boolean>();
    await inBatches(indexes, async (i) => {
      // Every tenth recipient is in the failing range.
      const to = i % 10 === 0 ? `+1555010${String(i % 10_000).padStart(4, '0')}` : `+1415${String(5_000_000 + i)}`;
      const answer = await call('POST', `/messages?isAsync=${i % 2 === 0}`, { from: FROM, to: [to], body: `load ${i}` });
      expect([200, 202]).toContain(answer.status);
      ids.set(answer.json['messageId'] as string, i % 10 === 0);
    });
    expect(ids.size).toBe(TOTAL);

    // Every message step is a task of the sandbox's one scheduler: when it holds none, every
    // message has reached its final state. One cheap health read a turn until then, instead of
    // reading all 5,000 messages again and again (which took minutes on a loaded machine).
    await eventually(async () => (schedulerPending((await call('GET', '/health')).json) === 0 ? true : undefined), 120_000);
    // Then each message is read once, and each is final.
    const statuses = new Map<string, unknown>();
    await inBatches([...ids.keys()], async (id) => {
      statuses.set(id, (await call('GET', `/messages/${id}`)).json['status']);
    });
    for (const [id, failing] of ids) expect(statuses.get(id), id).toBe(failing ? 'failed' : 'delivered');
  }, 240_000);
});

function schedulerPending(health: Record<string, unknown>): number {
  const entries = health['entries'] as { name: string; data?: Record<string, number> }[];
  const pending = entries.find((entry) => entry.name === 'scheduler')?.data?.['pending'];
  if (typeof pending !== 'number') throw new Error(`no scheduler entry in the health answer: ${JSON.stringify(health)}`);
  return pending;
}
