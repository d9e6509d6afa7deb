import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OTHER_AUTH, createTenant, eventually, obj, provisionAndWait, startHarness, type Harness } from './helpers.js';

let h: Harness;
let tenantId: string;
const FROM = '+14155550200';
const SMS_ONLY = '+14155550201';
beforeAll(async () => {
  h = await startHarness();
  tenantId = await createTenant(h, { settings: { webhookPrimaryUri: 'https://hooks.example.com/r' } });
  await provisionAndWait(h, tenantId, [FROM]);
  const body = {
    action: 'Provision',
    tenantId,
    phoneNumbers: [{ number: SMS_ONLY, messagingFeature: { provisionType: 'SMS', provisionClass: 'P2P' } }],
  };
  await h.api('POST', '/phone-numbers/provision', body);
  await eventually(async () => (obj(await h.api('GET', `/phone-numbers/${encodeURIComponent(SMS_ONLY)}`))['status'] === 'Active' ? true : undefined));
});
afterAll(async () => {
  await h.close();
});

async function finalMessage(id: string): Promise<Record<string, unknown>> {
  return eventually(async () => {
    const m = obj(await h.api('GET', `/messages/${id}`));
    return m['status'] === 'delivered' || m['status'] === 'failed' ? m : undefined;
  });
}

describe('sending', () => {
  it('queues an async message (202) that moves queued -> sending -> sent -> delivered', async () => {
    const answer = await h.api('POST', '/messages?isAsync=true', { from: FROM, to: ['+14155559000'], body: 'Hello there' });
    expect(answer.status).toBe(202);
    const sent = obj(answer);
    expect(Object.keys(sent).sort()).toEqual(['messageId', 'queuedAt', 'status']);
    expect(sent['status']).toBe('queued');
    const id = sent['messageId'] as string;
    const message = await finalMessage(id);
    expect(message).toEqual({
      messageId: id,
      from: FROM,
      to: '+14155559000',
      body: 'Hello there',
      mediaUrls: [],
      status: 'delivered',
      segmentCount: 1,
      encoding: 'GSM-7',
      queuedAt: sent['queuedAt'],
      sentAt: expect.any(String),
      deliveredAt: expect.any(String),
      errorCode: null,
      errorMessage: null,
    });
    const receipts = h.dispatcher.eventsOf('DeliveryReceipt').filter((e) => obj(e.payload)['messageId'] === id);
    expect(receipts.map((r) => obj(r.payload)['status'])).toEqual(['sending', 'sent', 'delivered']);
    expect(receipts[2]?.payload).toEqual({
      messageId: id,
      status: 'delivered',
      statusReason: null,
      deliveredAt: message['deliveredAt'],
      errorCode: null,
      errorMessage: null,
    });
    expect(receipts[0]?.target).toMatchObject({ tenantId, primaryUri: 'https://hooks.example.com/r' });
  });

  it('answers a sync send with status "sent", then delivers on the timer', async () => {
    for (const path of ['/messages', '/messages?isAsync=false']) {
      const answer = await h.api('POST', path, { from: FROM, to: ['+14155559001'], body: 'Sync' });
      expect(answer.status).toBe(200);
      const sent = obj(answer);
      expect(sent).toMatchObject({ status: 'sent', messageId: expect.any(String), queuedAt: expect.any(String), sentAt: expect.any(String) });
      expect((await finalMessage(sent['messageId'] as string))['status']).toBe('delivered');
    }
  });

  it('fails recipients in +1555010xxxx with errorCode and errorMessage', async () => {
    const answer = await h.api('POST', '/messages?isAsync=true', { from: FROM, to: ['+15550100042'], body: 'Doomed' });
    const id = obj(answer)['messageId'] as string;
    const message = await finalMessage(id);
    expect(message['status']).toBe('failed');
    expect(message['errorCode']).toEqual(expect.any(String));
    expect(message['errorMessage']).toEqual(expect.any(String));
    // Never delivered: the field is left out rather than null (the document types it as a date-time).
    expect(message).not.toHaveProperty('deliveredAt');
    const last = h.dispatcher.eventsOf('DeliveryReceipt').filter((e) => obj(e.payload)['messageId'] === id).at(-1);
    expect(obj(last?.payload)).toMatchObject({ status: 'failed', errorCode: message['errorCode'], errorMessage: message['errorMessage'] });
  });

  it('makes one message per recipient and lists them after the first one’s fields', async () => {
    const to = ['+14155559002', '+15550100043', '+14155559003'];
    const answer = await h.api('POST', '/messages?isAsync=true', { from: FROM, to, body: 'Team update' });
    const sent = obj(answer);
    const list = sent['messages'] as Record<string, unknown>[];
    expect(list.map((m) => m['to'])).toEqual(to);
    expect(list.every((m) => m['status'] === 'queued')).toBe(true);
    expect(sent['messageId']).toBe(list[0]?.['messageId']);
    const finals = await Promise.all(list.map((m) => finalMessage(m['messageId'] as string)));
    expect(finals.map((m) => m['status'])).toEqual(['delivered', 'failed', 'delivered']);

    const sync = obj(await h.api('POST', '/messages', { from: FROM, to: ['+14155559004', '+15550100044'], body: 'x' }));
    expect((sync['messages'] as Record<string, unknown>[]).map((m) => m['status'])).toEqual(['sent', 'failed']);
  });

  it('counts segments and encoding', async () => {
    const long = obj(await h.api('POST', '/messages?isAsync=true', { from: FROM, to: ['+14155559005'], body: 'a'.repeat(161) }));
    expect(obj(await h.api('GET', `/messages/${long['messageId'] as string}`))).toMatchObject({ segmentCount: 2, encoding: 'GSM-7' });
    const unicode = obj(await h.api('POST', '/messages?isAsync=true', { from: FROM, to: ['+14155559005'], body: 'Привет 😀' }));
    expect(obj(await h.api('GET', `/messages/${unicode['messageId'] as string}`))).toMatchObject({ segmentCount: 1, encoding: 'UCS-2' });
  });

  it('sends MMS with https media links, or without a body', async () => {
    const answer = await h.api('POST', '/messages?isAsync=true', { from: FROM, to: ['+14155559006'], mediaUrls: ['https://cdn.example.com/a.png'] });
    expect(answer.status).toBe(202);
    const read = obj(await h.api('GET', `/messages/${obj(answer)['messageId'] as string}`));
    expect(read).toMatchObject({ body: '', mediaUrls: ['https://cdn.example.com/a.png'] });
  });

  it('refuses every invalid send with 400', async () => {
    const eleven = Array.from({ length: 11 }, (_, i) => `https://cdn.example.com/${i}.png`);
    const cases: [string, unknown, RegExp][] = [
      ['/messages', { to: ['+14155559000'], body: 'x' }, /from is required/],
      ['/messages', { from: '4155550200', to: ['+14155559000'], body: 'x' }, /from must be an E\.164 number/],
      ['/messages', { from: FROM, body: 'x' }, /to is required/],
      ['/messages', { from: FROM, to: [], body: 'x' }, /to is required/],
      ['/messages', { from: FROM, to: '+14155559000', body: 'x' }, /to is required/],
      ['/messages', { from: FROM, to: ['+14155559000', '0800'], body: 'x' }, /to\[1\] must be an E\.164 number/],
      ['/messages', { from: FROM, to: ['+14155559000'] }, /body is required/],
      ['/messages', { from: FROM, to: ['+14155559000'], body: '' }, /body is required/],
      ['/messages', { from: FROM, to: ['+14155559000'], body: 5 }, /body must be a string/],
      ['/messages', { from: FROM, to: ['+14155559000'], body: 'x', mediaUrls: eleven }, /at most 10/],
      ['/messages', { from: FROM, to: ['+14155559000'], body: 'x', mediaUrls: ['http://cdn.example.com/a.png'] }, /https/],
      ['/messages', { from: FROM, to: ['+14155559000'], body: 'x', mediaUrls: 'https://cdn.example.com/a.png' }, /array/],
      ['/messages', { from: '+14155550299', to: ['+14155559000'], body: 'x' }, /active provisioned number of yours/],
      ['/messages', { from: SMS_ONLY, to: ['+14155559000'], body: 'x', mediaUrls: ['https://cdn.example.com/a.png'] }, /not enabled for MMS/],
      ['/messages?isAsync=maybe', { from: FROM, to: ['+14155559000'], body: 'x' }, /isAsync must be true or false/],
    ];
    for (const [path, body, message] of cases) {
      const answer = await h.api('POST', path, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(obj(answer)['errorCode']).toBe('VALIDATION_ERROR');
      expect(obj(answer)['message']).toMatch(message);
    }
    const broken = await h.api('POST', '/messages', '{"from":', { headers: { 'Content-Type': 'application/json' } });
    expect(obj(broken)['errorCode']).toBe('INVALID_JSON');
    // Another account cannot send from this number.
    const foreign = await h.api('POST', '/messages', { from: FROM, to: ['+14155559000'], body: 'x' }, { auth: OTHER_AUTH });
    expect(foreign.status).toBe(400);
  });

  it('reads messages by id: 404 for unknown and for another owner’s, 400 for a malformed id', async () => {
    const id = obj(await h.api('POST', '/messages?isAsync=true', { from: FROM, to: ['+14155559007'], body: 'x' }))['messageId'] as string;
    expect((await h.api('GET', `/messages/${id}`)).status).toBe(200);
    expect((await h.api('GET', `/messages/${id}`, undefined, { auth: OTHER_AUTH })).status).toBe(404);
    expect((await h.api('GET', '/messages/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await h.api('GET', '/messages/nope')).status).toBe(400);
  });

  it('forgets the oldest finished messages beyond the retention, never one in flight', async () => {
    const small = await startHarness({ messageRetention: 3, messageStepMs: 600_000 });
    try {
      const t = await createTenant(small);
      await provisionAndWait(small, t, [FROM]);
      const send = async (to: string, sync: boolean): Promise<string> =>
        obj(await small.api('POST', `/messages?isAsync=${!sync}`, { from: FROM, to: [to], body: 'x' }))['messageId'] as string;
      // Synchronous sends to the failing range finish at once; async ones stay in flight.
      const finished = [await send('+15550100001', true), await send('+15550100002', true)];
      const inFlight = [await send('+14155559201', false), await send('+14155559202', false)];
      expect((await small.api('GET', `/messages/${finished[0] as string}`)).status).toBe(404);
      expect((await small.api('GET', `/messages/${finished[1] as string}`)).status).toBe(200);
      const more = await send('+14155559203', false);
      expect((await small.api('GET', `/messages/${finished[1] as string}`)).status).toBe(404);
      for (const id of [...inFlight, more]) expect((await small.api('GET', `/messages/${id}`)).status).toBe(200);
    } finally {
      await small.close();
    }
  });
});
