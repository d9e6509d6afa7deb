import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestServer, type TestServer } from '../helpers/http-server.js';
import { BIN } from '../helpers/spawn.js';
import { startPty } from '../output/pty.js';

// The built CLI on a real pseudo-terminal: the pickers start on what is in use now (Enter alone
// keeps it), a missing NUMBER is typed in, and `tenant list` marks the default at every width.

const A = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
const B = '7c9e6679-7425-40de-944b-e07fc1f90ae7';

let server: TestServer;
let configDir: string;
beforeAll(async () => {
  server = await startTestServer();
  server.on('GET', '/api/v1/tenants', json(200, [{ tenantId: A, domain: 'a.example', settings: { webhookPrimaryUri: 'https://hooks.example.com/receiver', webhookEventType: 'All' } }, { tenantId: B, domain: 'b.example' }]));
  server.on('POST', '/api/v1/phone-numbers/provision', json(202, { orderId: 41, status: 'Pending' }));
  server.on('POST', /^\/api\/v1\/messages/, json(202, { messageId: 'm-bulk', status: 'queued', queuedAt: '2026-11-26T17:00:00Z' }));
  configDir = mkdtempSync(join(tmpdir(), 'svc-pickers-'));
});
afterAll(async () => {
  await server.close();
  rmSync(configDir, { recursive: true, force: true });
});

function writeStore(tenant: string): void {
  const profile = { baseUrl: server.url, username: 'pty@example.com', password: 'pty-pa55', tenant };
  writeFileSync(join(configDir, 'config.json'), JSON.stringify({ activeProfile: 'work', profiles: { work: profile, home: { ...profile, username: 'home@example.com' } } }), { mode: 0o600 });
}
const storeData = (): { activeProfile: string; profiles: Record<string, { tenant?: string }> } => JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8'));

const svc = (args: string[], cols = 100) =>
  startPty(process.execPath, [BIN, ...args], {
    env: { PATH: process.env['PATH'], HOME: process.env['HOME'], TERM: 'xterm', NO_COLOR: '1', SVC_CONFIG_DIR: configDir, CI: undefined },
    cols,
  });

describe('pickers on a real terminal', () => {
  it('tenant use starts on the current default, marked; Enter keeps it, one arrow picks the other', async () => {
    writeStore(B);
    const keep = svc(['tenant', 'use']);
    await keep.waitFor(new RegExp(`Which tenant\\?[\\s\\S]*❯ ${B}  b\\.example  \\(default\\)`));
    keep.write('\r');
    await keep.waitFor(new RegExp(`Tenant ${B} is now the default of profile "work"`));
    expect(await keep.exited).toBe(0);
    const change = svc(['tenant', 'use']);
    await change.waitFor(new RegExp(`❯ ${B}`));
    change.write('\u001b[A');
    change.write('\r');
    await change.waitFor(new RegExp(`Tenant ${A} is now the default of profile "work"`));
    expect(await change.exited).toBe(0);
    expect(storeData().profiles['work']!.tenant).toBe(A);
  }, 60_000);

  it('profile use starts on the active profile', async () => {
    writeStore(A);
    const run = svc(['profile', 'use']);
    await run.waitFor(/Which profile\?[\s\S]*❯ work  pty@example\.com at \S+  \(active\)/);
    run.write('\u001b[A');
    run.write('\r');
    await run.waitFor(/Profile "home" is now active\./);
    expect(await run.exited).toBe(0);
    expect(storeData().activeProfile).toBe('home');
  }, 60_000);

  it('number provision with no NUMBER asks for it, refuses a slip, then asks the type and class', async () => {
    writeStore(A);
    const run = svc(['number', 'provision']);
    await run.waitFor(/Numbers to provision \(E\.164, separated by spaces or commas\)/);
    run.write('5551234567\r');
    const refused = await run.waitFor(/"5551234567" is not an E\.164 number/);
    expect(refused[0]).toContain('5551234567');
    // Clear what was typed and give a good number.
    run.write('\u0015+15551234567\r');
    const mark = run.mark();
    await run.waitFor(/Provision type/, mark);
    run.write('\r');
    await run.waitFor(/Provision class/, mark);
    run.write('\r');
    await run.waitFor(/41/, mark);
    expect(await run.exited).toBe(0);
  }, 60_000);

  it.each([40, 60, 120])('tenant list marks the default at %i columns, explained, every line within the width', async (cols) => {
    writeStore(B);
    const run = svc(['tenant', 'list', '--no-pager'], cols);
    expect(await run.exited).toBe(0);
    const lines = run.text().split('\n').filter((l) => l.trim() !== '');
    expect(lines.join(' ')).toMatch(/\* marks the default tenant of +profile "work"/);
    expect(lines.some((l) => new RegExp(`^\\* +${B}`).test(l))).toBe(true);
    expect(lines.some((l) => new RegExp(`^ +${A}`).test(l))).toBe(true);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(cols);
  }, 60_000);
});

describe('the one question before a send, on a real terminal', () => {
  it('beyond 100 recipients: one question, the cursor on sending nothing; one arrow and Enter send with --async', async () => {
    writeStore(A);
    const to = Array.from({ length: 101 }, (_, i) => `+1555765${String(i).padStart(4, '0')}`);
    const run = svc(['send', '--from', '+15551230000', '--to', ...to, '--body', 'hi']);
    await run.waitFor(/Send to 101 recipients from \+15551230000\?[\s\S]*❯ No, send nothing[\s\S]*Yes, asynchronously \(--async, advised beyond 100 recipients\)[\s\S]*Yes, synchronously/);
    run.write('\u001b[B');
    run.write('\r');
    expect(await run.exited).toBe(0);
    const sent = server.requests.filter((r) => r.method === 'POST' && r.url.startsWith('/api/v1/messages'));
    expect(sent.map((r) => r.url)).toEqual(['/api/v1/messages?isAsync=true']);
    // Nothing else was asked: no second question about --async, no "Send it?".
    expect(run.text()).not.toMatch(/Send it\?|send asynchronously/);
  }, 60_000);
});
