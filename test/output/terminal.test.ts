import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestServer, type TestServer } from '../helpers/http-server.js';
import { BIN } from '../helpers/spawn.js';
import { startPty } from './pty.js';

// The built CLI on a real pseudo-terminal against a live HTTP server: a choice prompt, a
// confirmation declined, the pager, and a table fitted to the terminal's width.

const TENANT_A = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
const TENANT_B = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const numbers = Array.from({ length: 30 }, (_, i) => ({ phoneNumber: `+1555123${String(i).padStart(4, '0')}`, status: 'Active', tenantId: TENANT_A }));

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  server.on('GET', '/api/v1/tenants', json(200, [{ tenantId: TENANT_A, domain: 'a.example' }, { tenantId: TENANT_B, domain: 'b.example' }]));
  server.on('GET', `/api/v1/tenants/${TENANT_B}`, json(200, { tenantId: TENANT_B, domain: 'b.example' }));
  server.on('GET', '/api/v1/phone-numbers/active', (req, res) => {
    const limit = Number(new URL(req.url, 'http://x').searchParams.get('limit') ?? '30');
    json(200, { items: numbers.slice(0, limit), page: 1, limit, total: numbers.length })(req, res);
  });
});
afterAll(async () => {
  await server.close();
});

const env = (extra: Record<string, string> = {}): Record<string, string | undefined> => ({
  PATH: process.env['PATH'],
  HOME: process.env['HOME'],
  TERM: 'xterm',
  SVC_CONFIG_DIR: '/nonexistent-svc-config',
  SVC_BASE_URL: server.url,
  SVC_USERNAME: 'pty@example.com',
  SVC_PASSWORD: 'pty-pa55',
  SVC_TENANT: TENANT_A,
  CI: undefined,
  ...extra,
});

const svc = (args: string[], extra: Record<string, string> = {}, size: { cols?: number; rows?: number } = {}) =>
  startPty(process.execPath, [BIN, ...args], { env: env(extra), ...size });

describe('on a real terminal', () => {
  it('asks for the tenant of `tenant get` among the account\'s tenants (arrow keys, Enter)', async () => {
    const run = svc(['tenant', 'get'], { NO_COLOR: '1', SVC_TENANT: '' });
    await run.waitFor(/Which tenant\?[\s\S]*b\.example/);
    run.write('\u001b[B');
    run.write('\r');
    const shown = await run.waitFor(/domain\s+b\.example/);
    expect(shown[0]).toContain('b.example');
    expect(await run.exited).toBe(0);
  }, 60_000);

  it('names what `number unprovision` would release; "n" does nothing and exits 2', async () => {
    const before = server.requests.length;
    const run = svc(['number', 'unprovision', '+15551230001']);
    await run.waitFor(new RegExp(`Release number \\+15551230001 of tenant ${TENANT_A}\\?`));
    run.write('n');
    run.write('\r');
    await run.waitFor(/Nothing was done\./);
    expect(await run.exited).toBe(2);
    expect(server.requests.length).toBe(before);
  }, 60_000);

  it('never asks with CI set: the error names the argument', async () => {
    const run = svc(['tenant', 'get'], { CI: 'true', SVC_TENANT: '' });
    await run.waitFor(/The tenant ID is missing: give it after `svc tenant get` or set SVC_TENANT/);
    expect(await run.exited).toBe(2);
  }, 60_000);

  it('pages output taller than the terminal through SVC_PAGER, and not with --no-pager or when it fits', async () => {
    const pager = { SVC_PAGER: "sed 's/^/PAGED|/'" };
    const tall = svc(['number', 'list', '--limit', '30'], pager, { rows: 12, cols: 120 });
    await tall.waitFor(/PAGED\|\+15551230029/);
    expect(await tall.exited).toBe(0);
    expect(tall.text()).toMatch(/PAGED\|NUMBER/);

    const unpaged = svc(['number', 'list', '--limit', '30', '--no-pager'], pager, { rows: 12, cols: 120 });
    expect(await unpaged.exited).toBe(0);
    expect(unpaged.text()).toContain('+15551230029');
    expect(unpaged.text()).not.toContain('PAGED|');

    const short = svc(['number', 'list', '--limit', '3'], pager, { rows: 12, cols: 120 });
    expect(await short.exited).toBe(0);
    expect(short.text()).toContain('+15551230002');
    expect(short.text()).not.toContain('PAGED|');
    expect(short.text()).toContain('3 of 30 shown: --all for every one, --page 2 for the next');
  }, 60_000);

  it('uses less -FRX when neither SVC_PAGER nor PAGER is set: it waits for q', async () => {
    const run = svc(['number', 'list', '--limit', '30'], { NO_COLOR: '1' }, { rows: 10, cols: 120 });
    await run.waitFor(/\+15551230007/);
    expect(run.text()).not.toContain('+15551230029');
    run.write('q');
    expect(await run.exited).toBe(0);
  }, 60_000);

  it('Ctrl-C during `svc demo` says "Interrupted" once and exits 130', async () => {
    const run = svc(['demo'], { NO_COLOR: '1', SVC_CONFIG_DIR: '/nonexistent-svc-config' }, { cols: 200, rows: 50 });
    await run.waitFor(/\$ svc tenant create/);
    run.write('\u0003');
    expect(await run.exited).toBe(130);
    expect(run.text().match(/Interrupted/g)).toHaveLength(1);
  }, 60_000);

  it('fits a table to the terminal\'s width: columns left out and named, no id cut', async () => {
    const run = svc(['number', 'list', '--limit', '3', '--no-pager'], { NO_COLOR: '1' }, { cols: 40, rows: 30 });
    expect(await run.exited).toBe(0);
    const rows = run.text().split('\n').filter((l) => l.startsWith('+1555'));
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      expect([...row.trimEnd()].length).toBeLessThanOrEqual(40);
      expect(row).not.toContain('…');
    }
    expect(run.text()).toMatch(/Left out to fit the terminal: [^(]*TENANT/);
  }, 60_000);
});
