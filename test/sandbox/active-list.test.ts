import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OTHER_AUTH, createTenant, enc, eventually, obj, provisionAndWait, startHarness, type Harness } from './helpers.js';

// The active list is served from a sorted list per owner kept between reads (a page is a slice,
// not a scan and sort of every number): every change to a number of that owner shows at once.

let h: Harness;
let tenantId: string;
beforeAll(async () => {
  h = await startHarness({ orderDelayMs: 20 });
  tenantId = await createTenant(h);
});
afterAll(() => h.close());

async function page(n: number, limit: number, auth?: string): Promise<{ items: Record<string, unknown>[]; total: number }> {
  const answer = obj(await h.api('GET', `/phone-numbers/active?page=${n}&limit=${limit}`, undefined, auth ? { auth } : {}));
  return { items: answer['items'] as Record<string, unknown>[], total: answer['total'] as number };
}

describe('the active list', () => {
  it('pages in number order, and shows a provision, an update and an unprovision at once', async () => {
    await provisionAndWait(h, tenantId, ['+14155550303', '+14155550301', '+14155550302']);
    const first = await page(1, 2);
    expect(first.total).toBe(3);
    expect(first.items.map((n) => n['phoneNumber'])).toEqual(['+14155550301', '+14155550302']);
    expect((await page(2, 2)).items.map((n) => n['phoneNumber'])).toEqual(['+14155550303']);

    expect((await h.api('PUT', `/phone-numbers/${enc('+14155550302')}`, { description: 'changed' })).status).toBe(204);
    expect((await page(1, 10)).items.find((n) => n['phoneNumber'] === '+14155550302')?.['description']).toBe('changed');

    await provisionAndWait(h, tenantId, ['+14155550300']);
    expect((await page(1, 1)).items.map((n) => n['phoneNumber'])).toEqual(['+14155550300']);

    const released = await h.api('POST', '/phone-numbers/provision', { action: 'Unprovision', tenantId, phoneNumbers: [{ number: '+14155550301' }] });
    expect(released.status).toBe(202);
    const orderId = obj(released)['orderId'] as number;
    await eventually(async () => (obj(await h.api('GET', `/phone-numbers/orders/${orderId}`))['status'] === 'Completed' ? true : undefined));
    const after = await page(1, 10);
    expect(after.total).toBe(4 - 1);
    expect(after.items.map((n) => n['phoneNumber'])).toEqual(['+14155550300', '+14155550302', '+14155550303']);
    // Another account's list is its own.
    expect((await page(1, 10, OTHER_AUTH)).total).toBe(0);
  });
});
