import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/http.js';
import { NetworkError, ApiError, UsageError } from '../../src/errors.js';
import { createMockApi, MOCK_ORIGIN, BASIC_AUTH, MOCK_ENV, type MockApi } from '../helpers/mock-api.js';
import { fakeClock } from '../helpers/cli.js';
import { apiRoot } from '../../src/config/settings.js';

function client(mock: MockApi, extra: { debug?: (line: string) => void; clock?: ReturnType<typeof fakeClock> } = {}): ApiClient {
  return new ApiClient({
    root: apiRoot(MOCK_ORIGIN),
    username: MOCK_ENV.SVC_USERNAME,
    password: MOCK_ENV.SVC_PASSWORD,
    timeoutMs: 5_000,
    clock: extra.clock ?? fakeClock(),
    env: {},
    dispatcher: mock.agent,
    debug: extra.debug,
  });
}

describe('ApiClient', () => {
  let mock: MockApi;
  afterEach(async () => {
    await mock.agent.close();
  });

  it('sends Basic auth and JSON under /api/v1 and parses the answer', async () => {
    mock = createMockApi();
    mock.expect('POST', 'tenants', { status: 201, body: { tenantId: 't1' } });
    const answer = await client(mock).request({ call: 'raw', method: 'POST', path: 'tenants', json: { domain: 'x.com' } });
    expect(answer.status).toBe(201);
    expect(answer.data).toEqual({ tenantId: 't1' });
    expect(mock.seen[0]?.headers['authorization']).toBe(BASIC_AUTH);
    expect(mock.seen[0]?.headers['content-type']).toBe('application/json');
    expect(mock.seen[0]?.body).toEqual({ domain: 'x.com' });
    mock.verify();
  });

  it('retries a GET after 503 with Retry-After, waiting what the server asked', async () => {
    mock = createMockApi();
    mock.expect('GET', 'tenants', { status: 503, body: { message: 'busy' }, headers: { 'retry-after': '3' } });
    mock.expect('GET', 'tenants', { status: 200, body: [] });
    const clock = fakeClock();
    const answer = await client(mock, { clock }).request({ call: 'raw', method: 'GET', path: 'tenants' });
    expect(answer.data).toEqual([]);
    expect(clock.sleeps).toHaveLength(1);
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(3000);
    mock.verify();
  });

  it('gives up after four attempts of a GET that keeps failing with 500', async () => {
    mock = createMockApi();
    mock.expect('GET', 'tenants', { status: 500, body: { message: 'boom' } }, { times: 4 });
    const clock = fakeClock();
    await expect(client(mock, { clock }).request({ call: 'raw', method: 'GET', path: 'tenants' })).rejects.toThrow(/HTTP 500: boom/);
    expect(clock.sleeps).toHaveLength(3);
    // Exponential: each wait's floor is half its step, and steps double.
    expect(clock.sleeps[1]!).toBeGreaterThanOrEqual(250);
    expect(clock.sleeps[2]!).toBeGreaterThanOrEqual(500);
    mock.verify();
  });

  it('does not retry a POST answered 503', async () => {
    mock = createMockApi();
    mock.expect('POST', 'messages', { status: 503, body: { message: 'busy' } });
    const clock = fakeClock();
    await expect(client(mock, { clock }).request({ call: 'raw', method: 'POST', path: 'messages', json: {} })).rejects.toBeInstanceOf(ApiError);
    expect(clock.sleeps).toHaveLength(0);
    mock.verify();
  });

  it('does not retry when Retry-After asks for more than 30 s', async () => {
    mock = createMockApi();
    mock.expect('GET', 'tenants', { status: 429, body: { message: 'slow down', errorCode: 'RATE_LIMITED' }, headers: { 'retry-after': '120' } });
    const clock = fakeClock();
    await expect(client(mock, { clock }).request({ call: 'raw', method: 'GET', path: 'tenants' })).rejects.toThrow(/slow down/);
    expect(clock.sleeps).toHaveLength(0);
  });

  it('traces --debug with the Authorization header and secrets redacted', async () => {
    mock = createMockApi();
    mock.expect('PUT', 'tenants/abc', { status: 200, body: { settings: { webhookSecret: 'whsec-echoed' } }, headers: { 'set-cookie': 'session=cookie-value-1; HttpOnly' } });
    const lines: string[] = [];
    const api = client(mock, { debug: (l) => lines.push(l) });
    api.addSecret('whsec-echoed');
    await api.request({ call: 'raw', method: 'PUT', path: 'tenants/abc', json: { settings: { webhookSecret: 'whsec-echoed', webhookBasicAuthPassword: 'hunter22' } } });
    const trace = lines.join('\n');
    expect(trace).toContain('> PUT https://api.test/api/v1/tenants/abc');
    expect(trace).toMatch(/< 200 \(\d+ ms\)/);
    expect(trace).toContain('Basic [REDACTED]');
    expect(trace).not.toContain(BASIC_AUTH.slice(6));
    expect(trace).not.toContain('whsec-echoed');
    expect(trace).not.toContain('hunter22');
    expect(trace).not.toContain(MOCK_ENV.SVC_PASSWORD);
    // A cookie the service sets is a credential: none of it is shown.
    expect(trace).toContain('< set-cookie: [REDACTED]');
    expect(trace).not.toContain('cookie-value-1');
  });

  it('redacts secret-named fields of bodies too long to trace whole', async () => {
    mock = createMockApi();
    const padding = 'x'.repeat(5000);
    mock.expect('POST', 'tenants', { status: 201, body: { settings: { webhookBasicAuthPassword: 'server-echoed-pw' }, notes: padding } });
    const lines: string[] = [];
    await client(mock, { debug: (l) => lines.push(l) }).request({ call: 'raw',
      method: 'POST',
      path: 'tenants',
      json: { settings: { webhookSecret: 'long-body-secret' }, domain: padding },
    });
    const trace = lines.join('\n');
    expect(trace).toContain('more characters]');
    expect(trace).not.toContain('long-body-secret');
    expect(trace).not.toContain('server-echoed-pw');
  });
});

describe('paths that would leave the API root', () => {
  let mock: MockApi;
  afterEach(async () => {
    await mock.agent.close();
  });

  it.each([
    ['\\\\evil.example/x'],
    ['/\\\\evil.example/x'],
    ['http:evil.example/x'],
    ['//evil.example/x/../../..'],
    ['../../admin'],
    ['tenants/../../../x'],
  ])('refuses %s before any request, so the credentials never leave for another host', async (path) => {
    mock = createMockApi();
    const error = await client(mock).request({ call: 'raw', method: 'GET', path }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toContain('leads outside https://api.test/api/v1/');
    expect(mock.seen).toHaveLength(0);
  });

  it('still takes ordinary paths, with or without a leading slash', async () => {
    mock = createMockApi();
    mock.expect('GET', 'tenants', { status: 200, body: [] }, { times: 2 });
    await client(mock).request({ call: 'raw', method: 'GET', path: '/tenants' });
    await client(mock).request({ call: 'raw', method: 'GET', path: 'tenants' });
    mock.verify();
  });
});

describe('network errors', () => {
  it('names a refused connection and marks it as not sent', async () => {
    const api = new ApiClient({
      root: apiRoot('http://127.0.0.1:1'),
      username: 'u',
      password: 'p1234',
      timeoutMs: 2_000,
      clock: fakeClock(),
      env: {},
    });
    const error = await api.request({ call: 'raw', method: 'POST', path: 'messages', json: {} }).catch((e: unknown) => e);
    await api.close();
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).sent).toBe(false);
    expect((error as NetworkError).message).toContain('connection refused');
  });
});
