import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { createMockApi, MOCK_ORIGIN } from './mock-api.js';
import { json, startTestServer } from './http-server.js';
import { takeComplaints } from './request-checks.js';

// The checks every test gets after it ends (request-checks.ts, a vitest setup file): here they
// are taken in the test, to see that they name what went wrong.

describe('the request checks of the fake transports', () => {
  it('name a MockAgent request no stub matched, and a stub never used', async () => {
    const api = createMockApi();
    api.expect('GET', 'tenants', { status: 200, body: [] });
    api.expect('GET', 'numbers', { status: 200, body: [] });
    const answered = await request(`${MOCK_ORIGIN}/api/v1/tenants`, { dispatcher: api.agent });
    expect(answered.statusCode).toBe(200);
    await answered.body.dump();
    await expect(request(`${MOCK_ORIGIN}/api/v1/tenants/x`, { method: 'DELETE', dispatcher: api.agent })).rejects.toThrow(/Mock dispatch not matched/);
    expect(takeComplaints()).toEqual([
      `unexpected request: DELETE ${MOCK_ORIGIN}/api/v1/tenants/x`,
      `stubbed but never requested: GET ${MOCK_ORIGIN}/api/v1/numbers (expected 1 time(s))`,
    ]);
  });

  it('name a request the test server had no route for, and a route requested fewer times than it has answers', async () => {
    const server = await startTestServer();
    try {
      server.on('GET', '/a', json(200, {}), json(200, {}));
      server.on('GET', '/b', json(200, {}));
      await (await request(`${server.url}/a`)).body.dump();
      const unrouted = await request(`${server.url}/c?x=1`, { method: 'POST', body: 'x' });
      expect(unrouted.statusCode).toBe(599);
      await unrouted.body.dump();
      expect(takeComplaints()).toEqual([
        'unexpected request: POST /c?x=1',
        'stubbed but never requested: GET /a (requested 1 of 2 times)',
        'stubbed but never requested: GET /b (requested 0 of 1 times)',
      ]);
    } finally {
      await server.close();
    }
  });

  it('find nothing to say when every stub was used once as set', async () => {
    const api = createMockApi();
    api.expect('GET', 'tenants', { status: 200, body: [] }, { times: 2 });
    for (let i = 0; i < 2; i++) await (await request(`${MOCK_ORIGIN}/api/v1/tenants`, { dispatcher: api.agent })).body.dump();
    expect(takeComplaints()).toEqual([]);
  });
});
