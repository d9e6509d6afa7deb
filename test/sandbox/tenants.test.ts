import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OTHER_AUTH, createTenant, obj, provisionAndWait, startHarness, type Harness } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

describe('tenants', () => {
  it('creates a tenant with a generated id, owner from the credentials, secrets hidden', async () => {
    const answer = await h.api('POST', '/tenants', {
      domain: 'example.com',
      settings: {
        webhookPrimaryUri: 'https://hooks.example.com/a',
        webhookSecret: 's3cret-value',
        webhookBasicAuthUsername: 'hook',
        webhookBasicAuthPassword: 'hook-pass',
        webhookEventType: 'MessageReceived',
      },
    });
    expect(answer.status).toBe(201);
    const tenant = obj(answer);
    expect(tenant['tenantId']).toMatch(/^[0-9a-f-]{36}$/);
    expect(tenant['owner']).toBe('sandbox@example.com');
    expect(tenant['billableOwner']).toBe('sandbox@example.com');
    expect(Number.isNaN(Date.parse(tenant['createdDate'] as string))).toBe(false);
    expect(tenant['settings']).toMatchObject({
      webhookPrimaryUri: 'https://hooks.example.com/a',
      webhookSecret: '********',
      webhookBasicAuthUsername: 'hook',
      webhookBasicAuthPassword: '********',
      webhookEventType: 'MessageReceived',
    });
    expect(answer.text).not.toContain('s3cret-value');
    expect(answer.text).not.toContain('hook-pass');

    const read = await h.api('GET', `/tenants/${tenant['tenantId'] as string}`);
    expect(read.status).toBe(200);
    expect(read.text).not.toContain('s3cret-value');
    expect(obj(read)['settings']).toMatchObject({ webhookSecret: '********' });
  });

  it('takes a given tenant id and refuses a duplicate with 409', async () => {
    const id = '6f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f';
    expect(await createTenant(h, { tenantId: id })).toBe(id);
    const again = await h.api('POST', '/tenants', { tenantId: id });
    expect(again.status).toBe(409);
    expect(obj(again)).toMatchObject({ errorCode: 'CONFLICT', title: 'Conflict' });
    // Another account cannot take it either.
    expect((await h.api('POST', '/tenants', { tenantId: id }, { auth: OTHER_AUTH })).status).toBe(409);
  });

  it('lists the caller’s tenants as a bare array and hides others’ tenants (404)', async () => {
    const mine = await createTenant(h);
    const theirs = await createTenant(h, {}, OTHER_AUTH);
    const list = await h.api('GET', '/tenants');
    expect(Array.isArray(list.json)).toBe(true);
    const ids = (list.json as Record<string, unknown>[]).map((t) => t['tenantId']);
    expect(ids).toContain(mine);
    expect(ids).not.toContain(theirs);
    const foreign = await h.api('GET', `/tenants/${theirs}`);
    expect(foreign.status).toBe(404);
    expect(obj(foreign)).toMatchObject({ errorCode: 'NOT_FOUND' });
    expect((await h.api('PUT', `/tenants/${theirs}`, { domain: 'x.com' })).status).toBe(404);
    expect((await h.api('GET', '/tenants/00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });

  it('answers 400 for a tenant id in the path that is not a GUID, like every other path identifier', async () => {
    const read = await h.api('GET', '/tenants/not-a-guid');
    expect(read.status).toBe(400);
    expect(obj(read)).toMatchObject({ errorCode: 'VALIDATION_ERROR', message: expect.stringContaining('"not-a-guid"') });
    expect((await h.api('PUT', '/tenants/not-a-guid', { domain: 'x.com' })).status).toBe(400);
  });

  it('refuses invalid input with 400 and the right code', async () => {
    const cases: [unknown, string, RegExp][] = [
      [{ tenantId: 'not-a-guid' }, 'VALIDATION_ERROR', /tenantId must be a GUID/],
      [{ owner: 'me@example.com' }, 'VALIDATION_ERROR', /owner is read-only/],
      [{ billableOwner: 'me@example.com' }, 'VALIDATION_ERROR', /billableOwner is read-only/],
      [{ settings: { webhookPrimaryUri: 'http://hooks.example.com/a' } }, 'VALIDATION_ERROR', /https:\/\//],
      [{ settings: { webhookSecondaryUri: 'ftp://x' } }, 'VALIDATION_ERROR', /webhookSecondaryUri/],
      [{ settings: { webhookEventType: 'all' } }, 'VALIDATION_ERROR', /All, MessageReceived, OrderStatus/],
      [{ settings: { webhookColour: 'red' } }, 'VALIDATION_ERROR', /not a tenant setting/],
      [{ settings: 'x' }, 'VALIDATION_ERROR', /settings must be an object/],
      [{ domain: 5 }, 'VALIDATION_ERROR', /domain must be a string/],
      [[1, 2], 'VALIDATION_ERROR', /JSON object/],
    ];
    for (const [body, code, message] of cases) {
      const answer = await h.api('POST', '/tenants', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(obj(answer)['errorCode']).toBe(code);
      expect(obj(answer)['title']).toBe('Bad Request');
      expect(obj(answer)['message']).toMatch(message);
    }
    const broken = await h.api('POST', '/tenants', '{"domain": ', { headers: { 'Content-Type': 'application/json' } });
    expect(broken.status).toBe(400);
    expect(obj(broken)['errorCode']).toBe('INVALID_JSON');
  });

  it('accepts http:// webhook URIs only for loopback hosts', async () => {
    for (const uri of ['http://127.0.0.1:9000/hook', 'http://localhost:9000/hook', 'http://[::1]:9000/hook']) {
      expect((await h.api('POST', '/tenants', { settings: { webhookPrimaryUri: uri } })).status, uri).toBe(201);
    }
    expect((await h.api('POST', '/tenants', { settings: { webhookPrimaryUri: 'http://10.0.0.1/hook' } })).status).toBe(400);
  });

  it('updates with 204, accepts webhook fields at the top level, and keeps secrets sent back hidden', async () => {
    const id = await createTenant(h, { settings: { webhookSecret: 'first-secret', webhookBasicAuthPassword: 'pw1' } });
    const update = await h.api('PUT', `/tenants/${id}`, {
      domain: 'new.example.com',
      webhookPrimaryUri: 'https://hooks.example.com/top',
      webhookEventType: 'OrderStatus',
    });
    expect(update.status).toBe(204);
    expect(update.text).toBe('');
    const read = obj(await h.api('GET', `/tenants/${id}`));
    expect(read['domain']).toBe('new.example.com');
    expect(read['settings']).toMatchObject({
      webhookPrimaryUri: 'https://hooks.example.com/top',
      webhookEventType: 'OrderStatus',
      webhookSecret: '********',
    });

    // A read-modify-write sends the hidden markers back: the stored secrets stay.
    expect((await h.api('PUT', `/tenants/${id}`, read)).status).toBe(204);
    // The dispatcher receives the secrets in clear, unchanged by the round trip.
    await provisionAndWait(h, id, ['+14155550199']);
    const orderEvent = h.dispatcher.eventsOf('OrderStatus').find((e) => e.target.tenantId === id);
    expect(orderEvent?.target).toMatchObject({
      secret: 'first-secret',
      basicAuthPassword: 'pw1',
      primaryUri: 'https://hooks.example.com/top',
      eventType: 'OrderStatus',
    });

    expect((await h.api('PUT', `/tenants/${id}`, { owner: 'someone@else.com' })).status).toBe(400);
    expect((await h.api('PUT', `/tenants/${id}`, { settings: { webhookPrimaryUri: 'http://example.com' } })).status).toBe(400);
    expect((await h.api('PUT', `/tenants/${id}`, { tenantId: '00000000-0000-4000-8000-000000000000' })).status).toBe(400);
  });
});
