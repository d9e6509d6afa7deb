import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_AUTH, startHarness, type Harness } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ faults: 1 });
});
afterAll(async () => {
  await h.close();
});

describe('fault injection', () => {
  it('answers every API request with 500, 503, 429 + Retry-After, or a dropped connection', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 12; i++) {
      try {
        // A fresh connection each time, so that a dropped one does not affect the next request.
        const res = await fetch(`${h.sandbox.apiUrl}/health`, { headers: { Authorization: DEFAULT_AUTH, Connection: 'close' } });
        const body = (await res.json()) as Record<string, unknown>;
        expect(Object.keys(body).sort()).toEqual(['errorCode', 'message', 'title']);
        if (res.status === 429) {
          expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
          expect(body['errorCode']).toBe('RATE_LIMITED');
        }
        expect([500, 503, 429]).toContain(res.status);
        seen.add(String(res.status));
      } catch (error) {
        expect(error).toBeInstanceOf(TypeError); // fetch failed: the socket was destroyed
        seen.add('drop');
      }
    }
    expect([...seen].sort()).toEqual(['429', '500', '503', 'drop']);
  });

  it('keeps the sandbox-only control endpoints reliable', async () => {
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${h.sandbox.apiUrl}/sandbox/webhooks/failed`, { headers: { Authorization: DEFAULT_AUTH } });
      expect(res.status).toBe(200);
    }
  });
});

describe('fault rate', () => {
  it('injects nothing at rate 0 and a share at a rate between', async () => {
    const draws = [0.1, 0.9, 0.2, 0.8];
    let n = 0;
    const partial = await startHarness({ faults: 0.5, random: () => draws[n++ % draws.length] as number });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await partial.api('GET', '/tenants')).status);
      expect(statuses).toEqual([500, 200, 503, 200]);
    } finally {
      await partial.close();
    }
  });
});
