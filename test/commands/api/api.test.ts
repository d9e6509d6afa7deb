import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { createMockApi, MOCK_ENV, type MockApi } from '../../helpers/mock-api.js';

let mock: MockApi;
afterEach(async () => {
  await mock.agent.close();
});
const run = (argv: string[], options: Parameters<typeof runCli>[1] = {}) =>
  runCli(argv, { ...options, env: { ...MOCK_ENV, ...options.env }, dispatcher: mock.agent });

describe('svc api', () => {
  it('calls a path relative to /api/v1 with query parameters', async () => {
    mock = createMockApi();
    mock.expect('GET', 'phone-numbers/active?page=2&limit=50', { status: 200, body: { items: [] } });
    const result = await run(['api', 'get', '/phone-numbers/active', '--query', 'page=2', '-q', 'limit=50']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ items: [] });
    mock.verify();
  });

  it('sends --data as JSON, from text or stdin', async () => {
    mock = createMockApi();
    mock.expect('POST', 'tenants', { status: 201, body: { tenantId: 'a' } }, { body: (b) => expect(b).toEqual({ domain: 'x.com' }) });
    mock.expect('POST', 'tenants', { status: 201, body: { tenantId: 'b' } }, { body: (b) => expect(b).toEqual({ domain: 'y.com' }) });
    expect((await run(['api', 'POST', 'tenants', '--data', '{"domain":"x.com"}'])).code).toBe(0);
    expect((await run(['api', 'POST', 'tenants', '--data', '@-'], { stdin: '{"domain":"y.com"}' })).code).toBe(0);
    mock.verify();
  });

  it('refuses malformed --data before sending, naming where', async () => {
    mock = createMockApi();
    const result = await run(['api', 'POST', 'tenants', '--data', '{"domain":']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--data:1:\d+: invalid JSON/);
    expect(mock.seen).toHaveLength(0);
  });

  it('maps error answers to exit codes and prints a body that is not JSON as text', async () => {
    mock = createMockApi();
    mock.expect('GET', 'nope', { status: 404, body: { message: 'no such route' } });
    mock.expect('GET', 'plain', { status: 200, body: 'hello' });
    mock.expect('DELETE', 'thing', { status: 204 });
    expect((await run(['api', 'GET', '/nope'])).code).toBe(4);
    expect((await run(['api', 'GET', '/plain'])).stdout).toBe('hello\n');
    const empty = await run(['api', 'DELETE', '/thing', '--json']);
    expect(empty.code).toBe(0);
    expect(empty.stdout).toBe('null\n');
  });

  it('refuses a path that resolves outside /api/v1 (another host, plain HTTP, ..) with exit 2', async () => {
    mock = createMockApi();
    for (const path of ['\\\\evil.example/steal', 'http:evil.example/steal', '../../admin']) {
      const result = await run(['api', 'GET', path, '--json']);
      expect(result.code).toBe(2);
      expect(JSON.parse(result.stderr).error.message).toContain('leads outside https://api.test/api/v1/');
    }
    expect(mock.seen).toHaveLength(0);
  });

  it('refuses an unknown method', async () => {
    mock = createMockApi();
    const result = await run(['api', 'FETCH', '/health']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('"FETCH"');
  });

  it('reads with GET when only a PATH is given, and asks for a PATH that is missing', async () => {
    mock = createMockApi();
    mock.expect('GET', 'tenants', { status: 200, body: [] });
    const result = await run(['api', '/tenants']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([]);
    mock.verify();
    for (const argv of [['api'], ['api', 'get'], ['api', 'DELETE']]) {
      const missing = await run(argv);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(/missing PATH|PATH \(path relative to \/api\/v1, e.g. \/health\) is missing/);
      expect(missing.stderr).toContain('svc api');
    }
    expect(mock.seen).toHaveLength(1);
  });

  it('keeps the hints of an error in the JSON error object', async () => {
    mock = createMockApi();
    const result = await run(['api', '--json']);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stderr)).toEqual({ error: expect.objectContaining({ message: expect.stringContaining('PATH (path relative to /api/v1, e.g. /health) is missing'), hint: 'For example: svc api /health' }) });
  });
});

describe('svc health', () => {
  it('prints the health and exits 0 when Healthy', async () => {
    mock = createMockApi();
    const body = { status: 'Healthy', totalDuration: '00:00:00.0012345', entries: [{ name: 'db', status: 'Healthy', duration: '00:00:00.001' }] };
    mock.expect('GET', 'health', { status: 200, body });
    const result = await run(['health', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(body);
  });
  it('exits 1 when the service is not healthy, still showing its answer', async () => {
    mock = createMockApi();
    mock.expect('GET', 'health', { status: 503, body: { status: 'Unhealthy', entries: [{ name: 'db', status: 'Unhealthy' }] } });
    const result = await run(['health']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('Unhealthy');
    expect(result.stdout).toContain('db\tUnhealthy');
  });
});
