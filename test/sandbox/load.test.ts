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
  await eventually(async () => (obj(await request(sandbox.apiUrl, 'GET', `/phone-numbers/${encodeURIComponent(FROM)}`))['status'] === 'Active' ? true : undefined));
});
afterAll(async () => {
  await sandbox.close();
  exchanges.assertClean();
});

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
      const answer = await request(sandbox.apiUrl, 'POST', `/messages?isAsync=${i % 2 === 0}`, { from: FROM, to: [to], body: `load ${i}` }, { auth: DEFAULT_AUTH });
      expect([200, 202]).toContain(answer.status);
      ids.set(obj(answer)['messageId'] as string, i % 10 === 0);
    });
    expect(ids.size).toBe(TOTAL);

    const outstanding = new Set(ids.keys());
    await eventually(async () => {
      await inBatches([...outstanding], async (id) => {
        const message = obj(await request(sandbox.apiUrl, 'GET', `/messages/${id}`));
        const status = message['status'];
        if (status === 'delivered' || status === 'failed') {
          expect(status).toBe(ids.get(id) ? 'failed' : 'delivered');
          outstanding.delete(id);
        }
      });
      return outstanding.size === 0 ? true : undefined;
    }, 120_000);
  }, 240_000);
});
