import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OTHER_AUTH, createTenant, obj, provisionAndWait, startHarness, type Harness } from './helpers.js';
import type { FailedEvent } from '../../src/sandbox/index.js';

let h: Harness;
let tenantId: string;
const NUMBER = '+14155550400';

beforeAll(async () => {
  h = await startHarness();
  tenantId = await createTenant(h, { settings: { webhookPrimaryUri: 'http://127.0.0.1:9/hook', webhookEventType: 'MessageReceived' } });
  await provisionAndWait(h, tenantId, [NUMBER]);
});
afterAll(async () => {
  await h.close();
});

function failedEvent(deliveryId: string, tenant: string): FailedEvent {
  return {
    deliveryId,
    event: 'MessageReceived',
    tenantId: tenant,
    attempts: 9,
    firstAttemptAt: '2026-01-01T00:00:00.000Z',
    lastAttemptAt: '2026-01-02T00:00:00.000Z',
    lastStatus: 500,
    lastError: null,
    payload: { messageId: 'x' },
  };
}

describe('sandbox-only endpoints', () => {
  it('simulates an inbound message: the document’s payload with type 0 goes to the dispatcher', async () => {
    const pic = obj(await h.api('POST', '/media', { phoneNumber: NUMBER, fileName: 'p.png', contentType: 'image/png', data: 'iVBORw0KGgo=', tenantId }))['uri'] as string;
    const answer = await h.api('POST', '/sandbox/inbound', {
      to: NUMBER,
      from: '+14155559999',
      body: 'Hi from a phone',
      mediaUrls: [pic, 'https://cdn.example.com/files/clip.mp4'],
    });
    expect(answer.status).toBe(202);
    const recorded = h.dispatcher.eventsOf('MessageReceived').at(-1);
    expect(obj(answer)['deliveryId']).toBe(recorded?.deliveryId);
    expect(recorded?.target).toMatchObject({ tenantId, primaryUri: 'http://127.0.0.1:9/hook', eventType: 'MessageReceived' });
    const payload = obj(recorded?.payload);
    expect(payload).toEqual({
      messageId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      from: '+14155559999',
      tos: [NUMBER],
      message: 'Hi from a phone',
      type: 0,
      tenantId,
      sentDate: expect.any(String),
      targetNumber: NUMBER,
      phoneNumberId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      threadId: expect.any(String),
      threadKey: expect.any(String),
      dlrId: expect.any(String),
      segmentCount: 1,
      tag: null,
      attachments: [
        { name: 'p.png', url: pic, contentType: 'image/png', size: 8 },
        { name: 'clip.mp4', url: 'https://cdn.example.com/files/clip.mp4', contentType: 'video/mp4', size: 0 },
      ],
    });
    expect(obj(answer)['payload']).toEqual(payload);
  });

  it('takes a media link whose file name has a malformed %-escape as written (not a 500)', async () => {
    const url = 'https://cdn.example.com/files/%E0%A4%A.png';
    const answer = await h.api('POST', '/sandbox/inbound', { to: NUMBER, from: '+14155559999', body: 'x', mediaUrls: [url] });
    expect(answer.status, answer.text).toBe(202);
    expect(obj(obj(answer)['payload'])['attachments']).toEqual([{ name: '%E0%A4%A.png', url, contentType: 'image/png', size: 0 }]);
  });

  it('refuses an inbound message to a number that is not the caller’s', async () => {
    const cases: [Record<string, unknown>, string | undefined][] = [
      [{ to: '+14155550499', from: '+14155559999', body: 'x' }, undefined],
      [{ to: NUMBER, from: 'nope', body: 'x' }, undefined],
      [{ to: NUMBER, from: '+14155559999' }, undefined],
      [{ to: NUMBER, from: '+14155559999', body: 'x' }, OTHER_AUTH],
    ];
    for (const [body, auth] of cases) {
      const answer = await h.api('POST', '/sandbox/inbound', body, auth ? { auth } : {});
      expect(answer.status, JSON.stringify(body)).toBe(400);
    }
    expect((await h.api('POST', '/sandbox/inbound', {}, { auth: null })).status).toBe(401);
  });

  it('lists deliveries and failed events of the caller’s tenants only, and replays one', async () => {
    const foreign = await createTenant(h, {}, OTHER_AUTH);
    h.dispatcher.failedEvents.push(failedEvent('dlv_mine', tenantId), failedEvent('dlv_theirs', foreign));
    h.dispatcher.attempts.push(
      { deliveryId: 'dlv_mine', event: 'MessageReceived', tenantId, attempt: 1, url: 'http://127.0.0.1:9/hook', status: 500, error: null, at: '2026-01-01T00:00:00.000Z', durationMs: 3 },
      { deliveryId: 'dlv_theirs', event: 'MessageReceived', tenantId: foreign, attempt: 1, url: 'https://x.example', status: 500, error: null, at: '2026-01-01T00:00:00.000Z', durationMs: 3 },
    );
    const failed = await h.api('GET', '/sandbox/webhooks/failed');
    expect((failed.json as Record<string, unknown>[]).map((f) => f['deliveryId'])).toEqual(['dlv_mine']);
    const deliveries = await h.api('GET', '/sandbox/webhooks/deliveries');
    expect((deliveries.json as Record<string, unknown>[]).map((d) => d['deliveryId'])).toEqual(['dlv_mine']);

    expect((await h.api('POST', '/sandbox/webhooks/failed/dlv_theirs/replay')).status).toBe(404);
    expect((await h.api('POST', '/sandbox/webhooks/failed/dlv_unknown/replay')).status).toBe(404);
    const replay = await h.api('POST', '/sandbox/webhooks/failed/dlv_mine/replay');
    expect(replay.status).toBe(202);
    expect(h.dispatcher.replays).toEqual([{ deliveryId: 'dlv_mine', target: expect.objectContaining({ tenantId, primaryUri: 'http://127.0.0.1:9/hook' }) }]);
    expect((await h.api('GET', '/sandbox/webhooks/failed')).json).toEqual([]);
  });
});
