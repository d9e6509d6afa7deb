import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  OTHER_AUTH,
  createTenant,
  enc,
  obj,
  provisionAndWait,
  provisionBody,
  startHarness,
  TestClock,
  type Harness,
} from './helpers.js';
import { NUMBER_UPDATE_FIELDS, NUMBER_UPDATE_KEYS } from '../../src/domain/api/number-fields.js';

/** The harness's order delay: P2P orders are Processing at half of it and final at its end, A2P take 5x. */
const ORDER_MS = 40;
let h: Harness;
let tenantId: string;
const clock = new TestClock();
beforeAll(async () => {
  h = await startHarness({ now: clock.now, orderDelayMs: ORDER_MS });
  tenantId = await createTenant(h, { settings: { webhookPrimaryUri: 'https://hooks.example.com/orders' } });
});
afterEach(() => {
  clock.release();
});
afterAll(async () => {
  await h.close();
});

/** The next OrderStatus event of an order with this status (recorded already or still to come). */
function orderEvent(orderId: unknown, status: string): Promise<unknown> {
  return h.dispatcher.waitFor('OrderStatus', (p) => p['orderId'] === orderId && p['status'] === status);
}

async function readOrder(orderId: unknown): Promise<Record<string, unknown>> {
  return obj(await h.api('GET', `/phone-numbers/orders/${orderId as number}`));
}

describe('provisioning orders', () => {
  it('moves a P2P order Pending -> Processing -> Completed and its number Pending -> Active', async () => {
    clock.freeze();
    const answer = await h.api('POST', '/phone-numbers/provision', {
      ...provisionBody(tenantId, ['+14155550100']),
      phoneNumbers: [
        { number: '+14155550100', email: 'ops@corp.example', messagingFeature: { provisionType: 'SMS', provisionClass: 'P2P' } },
      ],
    });
    expect(answer.status).toBe(202);
    const order = obj(answer);
    expect(order).toMatchObject({ status: 'Pending', action: 'Provision', tenantId, provisionClass: 'P2P', provisionType: 'SMS' });
    expect(order).not.toHaveProperty('completionDate');
    expect(typeof order['orderId']).toBe('number');
    const entries = order['phoneNumbers'] as Record<string, unknown>[];
    expect(entries).toEqual([
      { number: '+14155550100', phoneNumberId: expect.stringMatching(/^[0-9a-f-]{36}$/), status: 'Pending', email: 'ops@corp.example' },
    ]);
    // The clock stands still: the order and its number stay Pending until it moves.
    expect(obj(await h.api('GET', `/phone-numbers/${enc('+14155550100')}`))['status']).toBe('Pending');
    expect((await readOrder(order['orderId']))['status']).toBe('Pending');

    const processing = orderEvent(order['orderId'], 'Processing');
    clock.advance(ORDER_MS / 2);
    await processing;
    expect((await readOrder(order['orderId']))['status']).toBe('Processing');
    expect(obj(await h.api('GET', `/phone-numbers/${enc('+14155550100')}`))['status']).toBe('Pending');

    const completed = orderEvent(order['orderId'], 'Completed');
    clock.advance(ORDER_MS / 2);
    await completed;
    const done = await readOrder(order['orderId']);
    expect(done['status']).toBe('Completed');
    expect(done['completionDate']).toEqual(expect.any(String));
    expect((done['phoneNumbers'] as Record<string, unknown>[])[0]?.['status']).toBe('Active');

    const number = obj(await h.api('GET', `/phone-numbers/${enc('+14155550100')}`));
    expect(number).toMatchObject({
      phoneNumber: '+14155550100',
      friendlyName: '(415) 555-0100',
      email: 'ops@corp.example',
      status: 'Active',
      provisionType: 'SMS',
      provisionClass: 'P2P',
      capabilities: { sms: true, mms: false },
      domain: 'corp.example',
    });
    expect(number['activatedAt']).toEqual(expect.any(String));

    const statuses = h.dispatcher
      .eventsOf('OrderStatus')
      .filter((e) => obj(e.payload)['orderId'] === order['orderId'])
      .map((e) => obj(e.payload)['status']);
    expect(statuses).toEqual(['Processing', 'Completed']);
  });

  it('fails numbers of the +1555010xxxx range, and the order with them', async () => {
    const order = await provisionAndWait(h, tenantId, ['+15550100001', '+14155550101']);
    expect(order['status']).toBe('Failed');
    const entries = order['phoneNumbers'] as Record<string, unknown>[];
    expect(entries.map((e) => e['status'])).toEqual(['Failed', 'Active']);
    expect(obj(await h.api('GET', `/phone-numbers/${enc('+15550100001')}`))['status']).toBe('Failed');
    expect(obj(await h.api('GET', `/phone-numbers/${enc('+14155550101')}`))['status']).toBe('Active');
  });

  it('takes 5x the delay for A2P, which needs campaignId and brandId', async () => {
    const missing = await h.api('POST', '/phone-numbers/provision', provisionBody(tenantId, ['+14155550102'], { provisionClass: 'A2P' }));
    expect(missing.status).toBe(400);
    expect(obj(missing)['message']).toMatch(/A2P number needs campaignId and brandId/);
    const body = provisionBody(tenantId, ['+14155550102'], { provisionClass: 'A2P' });
    const entry = (body['phoneNumbers'] as Record<string, unknown>[])[0] as Record<string, unknown>;
    Object.assign(entry, { campaignId: 'C123', brandId: 'B456' });
    clock.freeze();
    const answer = await h.api('POST', '/phone-numbers/provision', body);
    expect(answer.status).toBe(202);
    const orderId = obj(answer)['orderId'];
    const processing = orderEvent(orderId, 'Processing');
    clock.advance((5 * ORDER_MS) / 2);
    await processing;
    const completed = orderEvent(orderId, 'Completed');
    clock.advance((5 * ORDER_MS) / 2);
    await completed;
    const done = await readOrder(orderId);
    expect(done['provisionClass']).toBe('A2P');
    expect(Date.parse(done['completionDate'] as string) - Date.parse(done['createDate'] as string)).toBe(5 * ORDER_MS);
  });

  it('refuses a number already provisioned or pending with 409', async () => {
    await provisionAndWait(h, tenantId, ['+14155550103']);
    const again = await h.api('POST', '/phone-numbers/provision', provisionBody(tenantId, ['+14155550103']));
    expect(again.status).toBe(409);
    expect(obj(again)['errorCode']).toBe('CONFLICT');
    clock.freeze(); // the first order of +14155550104 stays Pending
    const first = await h.api('POST', '/phone-numbers/provision', provisionBody(tenantId, ['+14155550104']));
    expect(first.status).toBe(202);
    const whilePending = await h.api('POST', '/phone-numbers/provision', provisionBody(tenantId, ['+14155550104']));
    expect(whilePending.status).toBe(409);
  });

  it('unprovisions: Pending -> Released, and the number leaves the active list', async () => {
    await provisionAndWait(h, tenantId, ['+14155550105']);
    clock.freeze(); // the unprovision order stays Pending while it is asked for twice
    const answer = await h.api('POST', '/phone-numbers/provision', { action: 'Unprovision', tenantId, phoneNumbers: [{ number: '+14155550105' }] });
    expect(answer.status).toBe(202);
    const orderId = obj(answer)['orderId'];
    expect(obj(answer)['action']).toBe('Unprovision');
    const twice = await h.api('POST', '/phone-numbers/provision', { action: 'Unprovision', tenantId, phoneNumbers: [{ number: '+14155550105' }] });
    expect(twice.status).toBe(409);
    const processing = orderEvent(orderId, 'Processing');
    clock.advance(ORDER_MS / 2);
    await processing;
    const completed = orderEvent(orderId, 'Completed');
    clock.advance(ORDER_MS / 2);
    await completed;
    clock.release();
    const done = await readOrder(orderId);
    expect((done['phoneNumbers'] as Record<string, unknown>[])[0]?.['status']).toBe('Released');
    expect(obj(await h.api('GET', `/phone-numbers/${enc('+14155550105')}`))['status']).toBe('Released');
    // A released number can be provisioned again.
    expect((await provisionAndWait(h, tenantId, ['+14155550105']))['status']).toBe('Completed');
  });

  it('validates every field of a provision request', async () => {
    const good = provisionBody(tenantId, ['+14155550106']);
    const entry = (over: Record<string, unknown>): Record<string, unknown> => ({
      ...good,
      phoneNumbers: [{ ...((good['phoneNumbers'] as Record<string, unknown>[])[0] as Record<string, unknown>), ...over }],
    });
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ...good, action: 'provision' }, /action must be one of Provision, Unprovision/],
      [{ ...good, action: undefined }, /action is required/],
      [{ ...good, tenantId: 'abc' }, /tenantId must be a GUID/],
      [{ ...good, phoneNumbers: [] }, /phoneNumbers is required/],
      [entry({ number: '4155550106' }), /phoneNumbers\[0\]\.number must be an E\.164 number/],
      [entry({ messagingFeature: undefined }), /messagingFeature is required/],
      [entry({ messagingFeature: { provisionType: 'Sms', provisionClass: 'P2P' } }), /provisionType must be one of SMS, MMS, SMSMMS/],
      [entry({ messagingFeature: { provisionType: 'SMS', provisionClass: 'X' } }), /provisionClass must be one of P2P, A2P/],
      [entry({ platformType: 'PlatformZ' }), /platformType must be one of PlatformAIndividual/],
      [entry({ email: 'not-an-email' }), /email must be an email address/],
      [entry({ loaUrl: 'http://example.com/loa.pdf' }), /loaUrl must be an https:\/\/ URL/],
      [entry({ settings: { rateLimit: 'fast' } }), /settings\.rateLimit must be an integer/],
      [{ ...good, phoneNumbers: [{ number: '+14155550106', messagingFeature: { provisionType: 'SMS', provisionClass: 'P2P' } }, { number: '+14155550106', messagingFeature: { provisionType: 'SMS', provisionClass: 'P2P' } }] }, /twice/],
    ];
    for (const [body, message] of cases) {
      const answer = await h.api('POST', '/phone-numbers/provision', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(obj(answer)['errorCode']).toBe('VALIDATION_ERROR');
      expect(obj(answer)['message']).toMatch(message);
    }
    const foreignTenant = await createTenant(h, {}, OTHER_AUTH);
    expect((await h.api('POST', '/phone-numbers/provision', provisionBody(foreignTenant, ['+14155550106']))).status).toBe(404);
  });
});

describe('numbers', () => {
  it('pages the active list: envelope, page from 1, default 20, maximum 100 clamped', async () => {
    const t = await createTenant(h, {}, OTHER_AUTH);
    const numbers = Array.from({ length: 25 }, (_, i) => `+1646555${String(1000 + i)}`);
    for (let i = 0; i < numbers.length; i += 10) {
      await provisionAndWait(h, t, numbers.slice(i, i + 10), OTHER_AUTH);
    }
    const first = obj(await h.api('GET', '/phone-numbers/active', undefined, { auth: OTHER_AUTH }));
    expect(first).toMatchObject({ page: 1, limit: 20, total: 25 });
    expect((first['items'] as unknown[]).length).toBe(20);
    const second = obj(await h.api('GET', '/phone-numbers/active?page=2', undefined, { auth: OTHER_AUTH }));
    expect((second['items'] as Record<string, unknown>[]).map((n) => n['phoneNumber'])).toEqual(numbers.slice(20));
    const clamped = obj(await h.api('GET', '/phone-numbers/active?limit=500', undefined, { auth: OTHER_AUTH }));
    expect(clamped).toMatchObject({ limit: 100, total: 25 });
    expect((clamped['items'] as unknown[]).length).toBe(25);
    const small = obj(await h.api('GET', '/phone-numbers/active?limit=7&page=4', undefined, { auth: OTHER_AUTH }));
    expect((small['items'] as unknown[]).length).toBe(4);
    const beyond = obj(await h.api('GET', '/phone-numbers/active?page=9', undefined, { auth: OTHER_AUTH }));
    expect(beyond['items']).toEqual([]);
    for (const q of ['page=0', 'limit=0', 'page=x', 'limit=-3']) {
      const bad = await h.api('GET', `/phone-numbers/active?${q}`, undefined, { auth: OTHER_AUTH });
      expect(bad.status, q).toBe(400);
    }
    // The other account sees none of these.
    const mine = obj(await h.api('GET', '/phone-numbers/active?limit=100'));
    expect((mine['items'] as Record<string, unknown>[]).some((n) => numbers.includes(n['phoneNumber'] as string))).toBe(false);
  });

  it('reads a number by its %2B-encoded path; another owner’s number is 404', async () => {
    await provisionAndWait(h, tenantId, ['+14155550107']);
    expect((await h.api('GET', '/phone-numbers/%2B14155550107')).status).toBe(200);
    expect((await h.api('GET', '/phone-numbers/%2B14155550107', undefined, { auth: OTHER_AUTH })).status).toBe(404);
    expect((await h.api('GET', '/phone-numbers/%2B19999999999')).status).toBe(404);
    expect((await h.api('GET', '/phone-numbers/12345')).status).toBe(400);
    expect((await h.api('GET', '/phone-numbers/orders/abc')).status).toBe(400);
    expect((await h.api('GET', '/phone-numbers/orders/999999')).status).toBe(404);
  });

  it('updates with 204, validates settings by the schema, refuses immutable fields', async () => {
    await provisionAndWait(h, tenantId, ['+14155550108']);
    const path = `/phone-numbers/${enc('+14155550108')}`;
    const update = await h.api('PUT', path, {
      description: 'Front desk',
      externalId: 'ext-1',
      platformType: 'PlatformC',
      billingPlanName: 'Pooled',
      isMMSEnabled: false,
      settings: { autoResponse: { enabled: true, message: 'Back soon' }, rateLimit: 5, optOut: { periodicCron: '0 9 * * 1' } },
    });
    expect(update.status).toBe(204);
    expect(update.text).toBe('');
    await h.api('PUT', path, { settings: { autoResponse: { newThreadsOnly: true } } });
    const read = obj(await h.api('GET', path));
    expect(read).toMatchObject({
      description: 'Front desk',
      externalId: 'ext-1',
      platformType: 'PlatformC',
      billingPlanName: 'Pooled',
      isMMSEnabled: false,
      settings: { autoResponse: { enabled: true, message: 'Back soon', newThreadsOnly: true }, rateLimit: 5, optOut: { periodicCron: '0 9 * * 1' } },
    });

    for (const field of ['owner', 'billableOwner', 'provider', 'number', 'phoneNumber']) {
      const answer = await h.api('PUT', path, { [field]: 'x' });
      expect(answer.status, field).toBe(400);
      expect(obj(answer)['message']).toMatch(/immutable/);
    }
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ settings: { autoResponse: { enabled: 'yes' } } }, /settings\.autoResponse\.enabled must be true or false/],
      [{ settings: { optOut: { periodicCron: 'every day' } } }, /cron expression/],
      [{ settings: { outOfOffice: { startDate: 'tomorrow' } } }, /ISO 8601/],
      [{ settings: { autoForward: { emailAddresses: 'a@b.c' } } }, /array of strings/],
      [{ settings: { noSuchGroup: {} } }, /not a phone-number setting/],
      [{ settings: { rateLimit: 1.5 } }, /integer/],
      [{ platformType: 'Other' }, /platformType must be one of/],
      [{ billingPlanName: 'Gold' }, /billingPlanName must be one of/],
      [{ isActivated: 'true' }, /isActivated must be true or false/],
      [{ status: 'Active' }, /not an updatable field/],
      [{ loaUrl: 'ftp://x' }, /https/],
    ];
    for (const [body, message] of bad) {
      const answer = await h.api('PUT', path, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(obj(answer)['message']).toMatch(message);
    }
    // Every field the contract lists as updatable is taken, each with a value of its kind.
    const sample = { text: 'x', link: 'https://example.com/loa.pdf', boolean: true, platformType: 'PlatformD', billingPlanName: 'Pooled', settings: { rateLimit: 3 } };
    for (const key of NUMBER_UPDATE_KEYS) {
      const value = key === 'isMMSEnabled' ? false : sample[NUMBER_UPDATE_FIELDS[key]];
      expect((await h.api('PUT', path, { [key]: value })).status, key).toBe(204);
    }
    await h.api('PUT', path, { platformType: 'PlatformC' });
    // A refused update changed nothing.
    expect(obj(await h.api('GET', path))['platformType']).toBe('PlatformC');
    expect((await h.api('PUT', path, { description: 'x' }, { auth: OTHER_AUTH })).status).toBe(404);
  });
});
