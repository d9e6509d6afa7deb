import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_AUTH, obj, request, startHarness, type Harness } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

describe('authentication', () => {
  it('answers the document’s body when the Authorization header is missing', async () => {
    const answer = await h.api('GET', '/health', undefined, { auth: null });
    expect(answer.status).toBe(401);
    expect(answer.json).toEqual({
      message: 'Authorization header is required',
      title: 'Unauthorized',
      errorCode: 'MISSING_AUTHORIZATION',
    });
    expect(answer.headers.get('www-authenticate')).toMatch(/^Basic/);
  });

  it('answers the document’s body for a header not in Basic form', async () => {
    for (const header of ['Bearer abc', 'Basic', `Basic ${Buffer.from('no-colon').toString('base64')}`, 'Basic !!!']) {
      const answer = await h.api('GET', '/tenants', undefined, { auth: header });
      expect(answer.status).toBe(401);
      expect(answer.json).toEqual({
        message: 'Invalid authorization header format',
        title: 'Unauthorized',
        errorCode: 'INVALID_AUTHORIZATION_FORMAT',
      });
    }
  });

  it('answers the document’s body for wrong credentials', async () => {
    for (const pair of ['sandbox@example.com:wrong', 'nobody@example.com:sandbox']) {
      const answer = await h.api('GET', '/tenants', undefined, { auth: `Basic ${Buffer.from(pair).toString('base64')}` });
      expect(answer.status).toBe(401);
      expect(answer.json).toEqual({ message: 'Invalid credentials', title: 'Unauthorized', errorCode: 'INVALID_CREDENTIALS' });
    }
  });

  it('accepts the default account and an added one', async () => {
    expect((await h.api('GET', '/tenants')).status).toBe(200);
    const other = `Basic ${Buffer.from('other@example.com:other-pass').toString('base64')}`;
    expect((await h.api('GET', '/tenants', undefined, { auth: other })).status).toBe(200);
    expect(h.sandbox.users.map((u) => u.email)).toEqual(['sandbox@example.com', 'other@example.com']);
  });

  it('requires authentication before telling whether an endpoint exists', async () => {
    const answer = await h.api('GET', '/no-such-thing', undefined, { auth: null });
    expect(answer.status).toBe(401);
  });
});

describe('health and routing', () => {
  it('answers the health shape of docs/decisions.md#lists', async () => {
    const answer = await h.api('GET', '/health');
    expect(answer.status).toBe(200);
    const body = obj(answer);
    expect(body['status']).toBe('Healthy');
    expect(body['totalDuration']).toMatch(/^\d{2}:\d{2}:\d{2}\.\d{7}$/);
    const entries = body['entries'] as Record<string, unknown>[];
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) {
      expect(typeof entry['name']).toBe('string');
      expect(entry['status']).toBe('Healthy');
      expect(entry['duration']).toMatch(/^\d{2}:\d{2}:\d{2}\.\d{7}$/);
    }
  });

  it('answers 404 in the error shape for an unknown endpoint, and 405 for a wrong method', async () => {
    const missing = await h.api('GET', '/no-such-thing');
    expect(missing.status).toBe(404);
    expect(obj(missing)).toMatchObject({ errorCode: 'NOT_FOUND', title: 'Not Found' });
    const outside = await request(h.sandbox.url, 'GET', '/elsewhere', undefined, { auth: DEFAULT_AUTH });
    expect(outside.status).toBe(404);
    const wrongMethod = await h.api('DELETE', '/tenants');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, POST');
    expect(obj(wrongMethod)['errorCode']).toBe('METHOD_NOT_ALLOWED');
  });

  it('routes a path the same way every time it is asked (matches are cached by path)', async () => {
    for (let round = 0; round < 3; round++) {
      const wrongMethod = await h.api('DELETE', '/phone-numbers/active');
      expect(wrongMethod.status).toBe(405);
      expect(wrongMethod.headers.get('allow')).toBe('GET, PUT');
      // PUT on the literal path goes to the {phoneNumber} route, which refuses "active" as a number.
      expect((await h.api('PUT', '/phone-numbers/active', {})).status).toBe(400);
      const badEncoding = await h.api('GET', '/phone-numbers/%E0%A4%A');
      expect(badEncoding.status).toBe(400);
      expect(obj(badEncoding)['message']).toBe('The path segment "%E0%A4%A" is not valid URL encoding');
      expect((await h.api('HEAD', '/tenants')).status).toBe(200);
      expect((await h.api('GET', `/no-such/${'x'.repeat(300)}`)).status).toBe(404);
    }
  });

  it('gives its base URL without /api/v1 and listens on loopback', () => {
    expect(h.sandbox.url).toBe(`http://127.0.0.1:${h.sandbox.port}`);
    expect(h.sandbox.apiUrl).toBe(`${h.sandbox.url}/api/v1`);
  });
});
