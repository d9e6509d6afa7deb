import { afterEach, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/sandbox/http-io.js';
import { IdQueue } from '../../src/sandbox/id-queue.js';
import { RateLimiter } from '../../src/sandbox/rate-limit.js';
import { createTenant, enc, eventually, obj, provisionAndWait, startHarness, type Harness } from './helpers.js';

// Rules a real service keeps: bounded input, names in any script, one meaning for a body,
// throttling with a true Retry-After, answers without nulls the document does not allow.

const running: Harness[] = [];
afterEach(async () => {
  for (const h of running.splice(0)) await h.close();
});

async function harness(options: Parameters<typeof startHarness>[0] = {}): Promise<Harness> {
  const h = await startHarness(options);
  running.push(h);
  return h;
}

const NUMBER = '+14155550700';

async function withNumber(options: Parameters<typeof startHarness>[0] = {}): Promise<{ h: Harness; tenantId: string }> {
  const h = await harness(options);
  const tenantId = await createTenant(h);
  await provisionAndWait(h, tenantId, [NUMBER]);
  return { h, tenantId };
}

describe('request bodies nested too deep', () => {
  it(`answers 400 INVALID_JSON past ${MAX_JSON_DEPTH} levels on every JSON endpoint, 100,000 deep included`, async () => {
    const { h, tenantId } = await withNumber();
    const deep = (n: number): string => `{"from":${'['.repeat(n)}${']'.repeat(n)}}`;
    const endpoints: [string, string][] = [
      ['POST', '/messages'],
      ['POST', '/tenants'],
      ['PUT', `/tenants/${tenantId}`],
      ['POST', '/phone-numbers/provision'],
      ['PUT', `/phone-numbers/${enc(NUMBER)}`],
      ['POST', '/media'],
      ['POST', '/sandbox/inbound'],
    ];
    for (const [method, path] of endpoints) {
      for (const n of [MAX_JSON_DEPTH + 1, 100_000]) {
        const answer = await h.api(method, path, deep(n), { headers: { 'Content-Type': 'application/json' } });
        expect(answer.status, `${method} ${path} at ${n}`).toBe(400);
        expect(obj(answer)).toMatchObject({ errorCode: 'INVALID_JSON', message: expect.stringContaining(`${MAX_JSON_DEPTH} levels`) });
      }
    }
    // Brackets inside strings are text, not nesting.
    const text = '['.repeat(500);
    const ok = await h.api('POST', '/messages', { from: NUMBER, to: ['+14155559700'], body: text });
    expect(ok.status).toBe(200);
  });
});

describe('media named in any script', () => {
  it('serves фото.png and an emoji name; the link percent-encodes the name, the header carries it exactly', async () => {
    const { h, tenantId } = await withNumber();
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 9, 9]);
    for (const fileName of ['фото.png', 'cat 🐈.png', 'quote"back\\slash.png']) {
      const answer = await h.api('POST', '/media', { phoneNumber: NUMBER, fileName, contentType: 'image/png', data: png.toString('base64'), tenantId });
      expect(answer.status, fileName).toBe(201);
      const uri = obj(answer)['uri'] as string;
      expect(uri).toContain(`/${encodeURIComponent(fileName)}?`);
      expect(/^[\x21-\x7e]+$/.test(uri)).toBe(true);
      const res = await fetch(uri);
      expect(res.status, fileName).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(png)).toBe(true);
      const disposition = res.headers.get('content-disposition') ?? '';
      const exact = /filename\*=UTF-8''(\S+)/.exec(disposition)?.[1] ?? '';
      expect(decodeURIComponent(exact)).toBe(fileName);
    }
  });
});

describe('webhook fields at the top level and in settings', () => {
  it('validates the top level even when settings carries the same key', async () => {
    const h = await harness();
    const valid = { webhookPrimaryUri: 'https://hooks.example.com/a', webhookEventType: 'All' };
    const bodies = [
      { webhookPrimaryUri: 10, settings: valid },
      { webhookEventType: 'Bogus', settings: valid },
      { webhookPrimaryUri: 'http://10.0.0.1/x', settings: valid },
      { webhookPrimaryUri: 'http://10.0.0.1/x' },
    ];
    const id = await createTenant(h);
    for (const body of bodies) {
      expect((await h.api('POST', '/tenants', body)).status, JSON.stringify(body)).toBe(400);
      expect((await h.api('PUT', `/tenants/${id}`, body)).status, JSON.stringify(body)).toBe(400);
    }
  });

  it('takes a field given in both places with the same value; refuses two different values naming the field', async () => {
    const h = await harness();
    const same = await h.api('POST', '/tenants', { webhookPrimaryUri: 'https://a.example.com/h', settings: { webhookPrimaryUri: 'https://a.example.com/h' } });
    expect(same.status).toBe(201);
    expect(obj(obj(same)['settings'])['webhookPrimaryUri']).toBe('https://a.example.com/h');
    const differ = await h.api('POST', '/tenants', { webhookPrimaryUri: 'https://a.example.com/h', settings: { webhookPrimaryUri: 'https://b.example.com/h' } });
    expect(differ.status).toBe(400);
    expect(obj(differ)['message']).toMatch(/webhookPrimaryUri is given at the top level and in settings with different values/);
  });
});

describe('answers leave unset fields out', () => {
  it('a fresh number, tenant and order carry no null at all', async () => {
    const { h, tenantId } = await withNumber();
    const nulls = (value: unknown, path = ''): string[] => {
      if (value === null) return [path];
      if (typeof value !== 'object') return [];
      return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => nulls(v, `${path}.${k}`));
    };
    expect(nulls(obj(await h.api('GET', `/phone-numbers/${enc(NUMBER)}`)))).toEqual([]);
    expect(nulls(obj(await h.api('GET', `/tenants/${tenantId}`)))).toEqual([]);
    expect(nulls((await h.api('GET', '/tenants')).json)).toEqual([]);
    expect(nulls(obj(await h.api('GET', '/phone-numbers/orders/1001')))).toEqual([]);
    const tenant = obj(await h.api('GET', `/tenants/${tenantId}`));
    expect(tenant).not.toHaveProperty('domain');
    expect(obj(tenant['settings'])).toEqual({ webhookEventType: 'All' });
  });
});

describe('throttling (--rate-limit and settings.rateLimit)', () => {
  it('a bucket of one second: the burst passes, the next send is 429 RATE_LIMITED with a true Retry-After', async () => {
    // The real clock while the number is provisioned, then a frozen one that the test moves.
    let now: number | null = null;
    const { h } = await withNumber({ rateLimit: 3, now: () => now ?? Date.now() });
    now = Date.now() + 10_000;
    const send = (to = '+14155559701'): ReturnType<Harness['api']> => h.api('POST', '/messages?isAsync=true', { from: NUMBER, to: [to], body: 'x' });
    for (let i = 0; i < 3; i++) expect((await send()).status).toBe(202);
    const refused = await send();
    expect(refused.status).toBe(429);
    expect(obj(refused)).toMatchObject({ errorCode: 'RATE_LIMITED', title: 'Too Many Requests' });
    // One token comes back every 333 ms: rounded up to whole seconds, 1.
    expect(refused.headers.get('retry-after')).toBe('1');
    now += 334;
    expect((await send()).status).toBe(202); // a third of a second brought one token back
    expect((await send()).status).toBe(429);
    now += 1000;
    for (let i = 0; i < 3; i++) expect((await send()).status).toBe(202);
    // A request of 5 recipients is 5 sends: above the bucket, it waits for a full bucket.
    const five = await h.api('POST', '/messages?isAsync=true', { from: NUMBER, to: ['+1415555971', '+1415555972', '+1415555973', '+1415555974', '+1415555975'].map((n) => `${n}0`), body: 'x' });
    expect(five.status).toBe(429);
    expect(five.headers.get('retry-after')).toBe('1');
    now += 1000;
    expect((await h.api('POST', '/messages?isAsync=true', { from: NUMBER, to: ['+14155559710', '+14155559720', '+14155559730', '+14155559740', '+14155559750'], body: 'x' })).status).toBe(202);
    // It left the bucket 2 in debt: the next single send waits (2 + 1) / 3 s, i.e. 1 s.
    const after = await send();
    expect(after.status).toBe(429);
    expect(after.headers.get('retry-after')).toBe('1');
  });

  it("enforces each number's settings.rateLimit, with Retry-After rounded up to whole seconds", async () => {
    let now: number | null = null;
    const { h } = await withNumber({ now: () => now ?? Date.now() });
    now = Date.now() + 10_000;
    expect((await h.api('PUT', `/phone-numbers/${enc(NUMBER)}`, { settings: { rateLimit: 1 } })).status).toBe(204);
    const send = (): ReturnType<Harness['api']> => h.api('POST', '/messages', { from: NUMBER, to: ['+14155559702'], body: 'x' });
    expect((await send()).status).toBe(200);
    const refused = await send();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    now += 400;
    expect((await send()).headers.get('retry-after')).toBe('1'); // 600 ms left, rounded up
    now += 600;
    expect((await send()).status).toBe(200);
    // Invalid requests are refused for what they are, not throttled.
    expect((await h.api('POST', '/messages', { from: NUMBER, to: ['nope'], body: 'x' })).status).toBe(400);
  });

  it('the limiter alone: refills continuously, a changed rate applies at once', () => {
    let now = 0;
    const limiter = new RateLimiter(() => now, 10);
    for (let i = 0; i < 10; i++) expect(limiter.take('a', '+1', 0, 1)).toBe(0);
    expect(limiter.take('a', '+1', 0, 1)).toBeCloseTo(100);
    expect(limiter.take('b', '+1', 0, 1)).toBe(0); // another account has its own bucket
    now = 250;
    expect(limiter.take('a', '+1', 0, 2)).toBe(0);
    expect(limiter.take('a', '+1', 0, 1)).toBeCloseTo(50);
    const numbers = new RateLimiter(() => now, undefined);
    expect(numbers.take('a', '+1', 2, 2)).toBe(0);
    expect(numbers.take('a', '+1', 2, 1)).toBeCloseTo(500);
    expect(numbers.take('a', '+1', 1, 1)).toBeCloseTo(1000);
  });
});

describe('retention', () => {
  it('keeps the newest messages and forgets the oldest finished ones, a FIFO of ids', async () => {
    const { h } = await withNumber({ messageRetention: 5 });
    const send = async (i: number): Promise<string> =>
      obj(await h.api('POST', '/messages', { from: NUMBER, to: ['+14155559703'], body: `m${i}` }))['messageId'] as string;
    const old: string[] = [];
    for (let i = 0; i < 5; i++) old.push(await send(i));
    // Wait until the first five are finished (delivered), so that they may be forgotten.
    for (const id of old) {
      await eventually(async () => (obj(await h.api('GET', `/messages/${id}`))['status'] === 'delivered' ? true : undefined));
    }
    const fresh: string[] = [];
    for (let i = 5; i < 11; i++) fresh.push(await send(i));
    for (const id of old) expect((await h.api('GET', `/messages/${id}`)).status).toBe(404);
    const kept = await Promise.all(fresh.map(async (id) => (await h.api('GET', `/messages/${id}`)).status));
    expect(kept.filter((s) => s === 200).length).toBeGreaterThanOrEqual(5);
    expect(kept.at(-1)).toBe(200);
    const queue = new IdQueue<number>(2);
    for (let i = 0; i < 100; i++) queue.push(i);
    for (let i = 0; i < 50; i++) expect(queue.shift()).toBe(i);
    for (let i = 100; i < 150; i++) queue.push(i);
    expect(queue.size).toBe(100);
    for (let i = 50; i < 150; i++) expect(queue.shift()).toBe(i);
    expect(queue.shift()).toBeUndefined();
  });
});
