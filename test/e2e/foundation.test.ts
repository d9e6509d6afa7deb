import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestServer, type TestServer } from '../helpers/http-server.js';
import { spawnCli } from '../helpers/spawn.js';
import { tempConfigDir } from '../helpers/cli.js';

// The built CLI as a child process against a real HTTP server on 127.0.0.1.

const ID = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
const PASSWORD = 'e2e-Pa55word!';
let server: TestServer;
let env: Record<string, string>;
let cleanup = (): void => undefined;

beforeAll(async () => {
  server = await startTestServer();
  const temp = tempConfigDir();
  cleanup = temp.cleanup;
  env = { SVC_BASE_URL: server.url, SVC_USERNAME: 'e2e@example.com', SVC_PASSWORD: PASSWORD, SVC_CONFIG_DIR: temp.dir };
  const expected = `Basic ${Buffer.from(`e2e@example.com:${PASSWORD}`).toString('base64')}`;
  server.on('GET', '/api/v1/tenants', (req, res) => {
    if (req.headers['authorization'] !== expected) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'Invalid credentials', title: 'Unauthorized', errorCode: 'INVALID_CREDENTIALS' }));
      return;
    }
    json(200, [{ tenantId: ID, domain: 'example.com' }])(req, res);
  });
  server.on('GET', `/api/v1/tenants/${ID}`, json(200, { tenantId: ID, settings: { webhookSecret: '********' } }));
  for (const [code, message] of [
    ['MISSING_AUTHORIZATION', 'Authorization header is required'],
    ['INVALID_CREDENTIALS', 'Invalid credentials'],
    ['INVALID_AUTHORIZATION_FORMAT', 'Invalid authorization header format'],
  ] as const) {
    server.on('GET', `/api/v1/auth-${code}`, json(401, { message, title: 'Unauthorized', errorCode: code }));
  }
  server.on('GET', '/api/v1/missing', json(404, { message: 'Not here', title: 'Not Found', errorCode: 'NOT_FOUND' }));
  server.on('GET', '/api/v1/html-500', (_req, res) => {
    res.writeHead(500, { 'content-type': 'text/html' }).end('<!DOCTYPE html>\n<html><head><title>Internal Server Error</title></head><body><h1>Oops</h1></body></html>');
  });
  // Retry-After 0: the child process retries after its own short backoff, not a real second; how
  // long a Retry-After makes the client wait is tested with the fake clock (test/api/http.test.ts).
  server.on('GET', '/api/v1/flaky', json(503, { message: 'warming up' }, { 'retry-after': '0' }), json(200, { ok: true }));
  server.on('GET', '/api/v1/drop', (_req, res) => {
    res.socket?.destroy();
  });
  server.on('GET', '/api/v1/malformed', (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"tenantId": "abc", ');
  });
  server.on('GET', '/api/v1/empty', (_req, res) => {
    res.writeHead(200).end();
  });
  server.on('POST', '/api/v1/slow', () => {
    // Never answers: the client's --timeout has to end it.
  });
  server.on('GET', `/api/v1/tenants/00000000-0000-0000-0000-000000000000`, (_req, res) => {
    res.writeHead(200).end();
  });
});

afterAll(async () => {
  await server.close();
  cleanup();
});

describe('end to end', () => {
  it('lists tenants', async () => {
    const result = await spawnCli(['tenant', 'list', '--json'], { env });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([{ tenantId: ID, domain: 'example.com' }]);
    expect(result.stderr).toBe('');
  });

  it('exits 3 with the errorCode for wrong credentials', async () => {
    const result = await spawnCli(['tenant', 'list', '--json'], { env: { ...env, SVC_PASSWORD: 'wrong-one' } });
    expect(result.code).toBe(3);
    expect(JSON.parse(result.stderr)).toEqual({
      error: {
        status: 401,
        message: 'Invalid credentials (INVALID_CREDENTIALS)',
        title: 'Unauthorized',
        errorCode: 'INVALID_CREDENTIALS',
        hint: 'Check the username and password: `svc auth status` shows which ones are in use.',
      },
    });
  });

  it.each(['MISSING_AUTHORIZATION', 'INVALID_CREDENTIALS', 'INVALID_AUTHORIZATION_FORMAT'])('surfaces the 401 body %s', async (code) => {
    const result = await spawnCli(['api', 'GET', `/auth-${code}`], { env });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(code);
  });

  it('exits 4 on 404', async () => {
    const result = await spawnCli(['api', 'GET', '/missing'], { env });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('Not here');
  });

  it('reads a 500 HTML page into a clear message, no stack trace', async () => {
    const result = await spawnCli(['api', 'GET', '/html-500'], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('HTTP 500: Internal Server Error');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(server.requests.filter((r) => r.url === '/api/v1/html-500')).toHaveLength(4);
  });

  it('retries a 503 with Retry-After, then succeeds', async () => {
    const result = await spawnCli(['api', 'GET', '/flaky'], { env });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ ok: true });
  });

  it('reports a dropped connection after retrying', async () => {
    const result = await spawnCli(['api', 'GET', '/drop'], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/connection to 127\.0\.0\.1:\d+ failed/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('reports malformed JSON and an empty body without crashing', async () => {
    const malformed = await spawnCli(['api', 'GET', '/malformed'], { env });
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toContain('not valid JSON');
    const empty = await spawnCli(['api', 'GET', '/empty'], { env });
    expect(empty.code).toBe(0);
    expect(empty.stdout).toBe('');
    const emptyTenant = await spawnCli(['tenant', 'get', '00000000-0000-0000-0000-000000000000'], { env });
    expect(emptyTenant.code).toBe(1);
    expect(emptyTenant.stderr).toContain('empty body');
  });

  it('keeps the password out of stdout, stderr and --debug', async () => {
    const results = await Promise.all([
      spawnCli(['tenant', 'list', '--debug'], { env }),
      spawnCli(['tenant', 'get', ID, '--debug', '--json'], { env }),
      spawnCli(['api', 'GET', '/html-500', '--debug'], { env }),
      spawnCli(['auth', 'status', '--debug'], { env }),
    ]);
    for (const result of results) {
      const all = result.stdout + result.stderr;
      expect(all).not.toContain(PASSWORD);
      expect(all).not.toContain(Buffer.from(`e2e@example.com:${PASSWORD}`).toString('base64'));
    }
    expect(results[0]!.stderr).toContain('authorization: Basic [REDACTED]');
  });

  it('refuses plain HTTP to a host that is not loopback before any request', async () => {
    const before = server.requests.length;
    const result = await spawnCli(['tenant', 'list'], { env: { ...env, SVC_BASE_URL: 'http://api.example.com' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('plain HTTP');
    expect(server.requests.length).toBe(before);
  });

  it('gives up on a request after --timeout, and never retries a POST that went out', async () => {
    const result = await spawnCli(['api', 'POST', '/slow', '--data', '{}', '--timeout', '0.3'], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('No answer from 127.0.0.1');
    expect(result.stderr).toContain('within 0.3 s (--timeout)');
    expect(server.requests.filter((r) => r.url === '/api/v1/slow')).toHaveLength(1);
  });

  it('has no unhandled requests', () => {
    expect(server.unhandled).toEqual([]);
  });
});
