import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fakeClock, runCli } from '../helpers/cli.js';
import { createMockApi, MOCK_ENV, type MockApi } from '../helpers/mock-api.js';

// `svc diff` in-process against a fake service: the fewest reads, only what the file names
// compared, the plan as +/~/-/! lines or JSON, exit 7 with --exit-code.

const T1 = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
const T2 = '9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d';

const FILE = `version: 1
tenants:
  - tenantId: ${T1}
    domain: support.example.com
    settings:
      webhookPrimaryUri: https://hooks.example.com/svc
      webhookSecret: {env: SUPPORT_SECRET}
numbers:
  - number: "+15555550100"
    tenant: ${T1}
    type: SMS
    class: P2P
    email: ops@example.com
    description: Support line
    settings:
      rateLimit: 10
  - number: "+15555550101"
    tenant: ${T1}
    type: SMS
    class: P2P
    description: Sales
  - number: "+15555550102"
    tenant: ${T1}
    type: MMS
    class: P2P
  - number: "+15555550103"
    tenant: ${T1}
    type: SMS
    class: P2P
`;

function liveNumber(number: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    phoneNumber: number,
    status: 'Active',
    tenantId: T1,
    provisionType: 'SMS',
    provisionClass: 'P2P',
    email: 'someone@example.com',
    isActivated: true,
    isMMSEnabled: false,
    settings: { rateLimit: 10, autoResponse: { enabled: false } },
    ...extra,
  };
}

let dir: string;
let api: MockApi;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-diff-'));
  writeFileSync(join(dir, 'fleet.yaml'), FILE);
  api = createMockApi();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function expectLive(numbers: { page1: unknown[]; page2?: unknown[]; total: number }): void {
  api.expect('GET', '/tenants', { status: 200, body: [{ tenantId: T1, domain: 'old.example.com', settings: { webhookPrimaryUri: 'https://hooks.example.com/svc', webhookSecret: '********', webhookEventType: 'All' } }] });
  api.expect('GET', '/phone-numbers/active?page=1&limit=100', { status: 200, body: { items: numbers.page1, page: 1, limit: 100, total: numbers.total } });
  if (numbers.page2) api.expect('GET', '/phone-numbers/active?page=2&limit=100', { status: 200, body: { items: numbers.page2, page: 2, limit: 100, total: numbers.total } });
}

const run = (args: string[], tty = false) =>
  runCli([...args], { env: { ...MOCK_ENV, SVC_CONFIG_DIR: dir, SVC_DATA_DIR: dir }, dispatcher: api.agent, tty, clock: fakeClock() });

describe('svc diff', () => {
  it('reads the lists and only the numbers the list cannot answer, and prints the plan field by field', async () => {
    const others = Array.from({ length: 100 }, (_, i) => liveNumber(`+1666555${String(1000 + i)}`, { tenantId: T2 }));
    expectLive({
      page1: [liveNumber('+15555550100', { description: 'Support line', settings: { rateLimit: 5 } }), ...others.slice(0, 99)],
      page2: [liveNumber('+15555550102', { provisionType: 'SMS' }), others[99]],
      total: 101,
    });
    // +15555550101 is not in the active list: its own read says it is pending; +15555550103 is unknown.
    api.expect('GET', '/phone-numbers/%2B15555550101', { status: 200, body: liveNumber('+15555550101', { status: 'Pending' }) });
    api.expect('GET', '/phone-numbers/%2B15555550103', { status: 404, body: { message: 'Phone number +15555550103 was not found', title: 'Not Found', errorCode: 'NOT_FOUND' } });
    const result = await run(['diff', '-f', join(dir, 'fleet.yaml')]);
    expect(result.stderr).toContain('Not compared: email (sent when a number is provisioned, never compared afterwards).');
    expect(result.stderr).toContain('Secrets (webhookSecret) are hidden by the service on read and never compared');
    expect(result.stdout).toBe(
      [
        `~ tenant ${T1}`,
        '    ~ domain: "old.example.com" -> "support.example.com"',
        '~ number +15555550100',
        '    ~ settings.rateLimit: 5 -> 10',
        '+ number +15555550101 (its order is in flight: waited for, not ordered again)',
        `    + tenant: "${T1}"`,
        '    + type: "SMS"',
        '    + class: "P2P"',
        '    + description: "Sales"',
        '! number +15555550102 blocked: its type cannot change once provisioned (unprovision and provision it again)',
        '    type: "SMS" live, "MMS" in the file',
        '+ number +15555550103 (provision)',
        `    + tenant: "${T1}"`,
        '    + type: "SMS"',
        '    + class: "P2P"',
        'Plan: 1 tenant to update, 1 number to provision in 1 order, 1 number in orders already in flight, 1 number to update, 1 change blocked.',
        '',
      ].join('\n'),
    );
    expect(result.code).toBe(0);
    expect(api.seen.every((r) => r.method === 'GET')).toBe(true);
  });

  it('--exit-code: 7 with changes, 0 in sync; --json is {changes, inSync}; a setting the file leaves out is not drift', async () => {
    const inSync = [
      liveNumber('+15555550100', { description: 'Support line' }),
      liveNumber('+15555550101', { description: 'Sales' }),
      liveNumber('+15555550102', { provisionType: 'MMS', isMMSEnabled: true }),
      liveNumber('+15555550103'),
    ];
    api.expect('GET', '/tenants', { status: 200, body: [{ tenantId: T1, domain: 'support.example.com', settings: { webhookPrimaryUri: 'https://hooks.example.com/svc' } }] }, { times: 2 });
    api.expect('GET', '/phone-numbers/active?page=1&limit=100', { status: 200, body: { items: inSync, page: 1, limit: 100, total: 4 } });
    const clean = await run(['diff', '-f', join(dir, 'fleet.yaml'), '--exit-code', '--json']);
    expect(clean.code).toBe(0);
    expect(JSON.parse(clean.stdout)).toEqual({ changes: [], inSync: true });

    api.expect('GET', '/phone-numbers/active?page=1&limit=100', { status: 200, body: { items: [...inSync.slice(0, 3), liveNumber('+15555550103', { tenantId: T2 })], page: 1, limit: 100, total: 4 } });
    const drift = await run(['diff', '-f', join(dir, 'fleet.yaml'), '--exit-code', '--json', '--out', join(dir, 'plan.json')]);
    expect(drift.code).toBe(7);
    expect(JSON.parse(drift.stdout)).toEqual({
      changes: [
        {
          action: 'blocked',
          target: '+15555550103',
          tenant: T1,
          fields: { tenant: { from: T2, to: T1 } },
          reason: `it is held by tenant ${T2}; a number cannot move between tenants (unprovision it there first)`,
        },
      ],
      inSync: false,
    });
    const saved = JSON.parse(readFileSync(join(dir, 'plan.json'), 'utf8')) as Record<string, unknown>;
    expect(saved).toMatchObject({ kind: 'svc-fleet-plan', version: 1, prune: false, inSync: false, baseUrl: 'https://api.test/api/v1' });
    expect(JSON.stringify(saved)).not.toContain('********');
  });

  it('--prune lists the numbers of the file\'s tenants that the file leaves out, and no other tenant\'s', async () => {
    expectLive({
      page1: [
        liveNumber('+15555550100', { description: 'Support line' }),
        liveNumber('+15555550101', { description: 'Sales' }),
        liveNumber('+15555550102', { provisionType: 'MMS' }),
        liveNumber('+15555550103'),
        liveNumber('+15555550199'),
        liveNumber('+16665550000', { tenantId: T2 }),
      ],
      total: 6,
    });
    const result = await run(['diff', '-f', join(dir, 'fleet.yaml'), '--prune']);
    expect(result.stdout).toContain(`- number +15555550199 (unprovision from tenant ${T1}: not in the file)`);
    expect(result.stdout).not.toContain('+16665550000');
  });

  it('colours the lines on a terminal, plain when piped', async () => {
    expectLive({ page1: [liveNumber('+15555550100', { description: 'Support line', settings: { rateLimit: 5 } })], total: 1 });
    api.expect('GET', '/phone-numbers/%2B15555550101', { status: 404, body: { message: 'not found' } });
    api.expect('GET', '/phone-numbers/%2B15555550102', { status: 404, body: { message: 'not found' } });
    api.expect('GET', '/phone-numbers/%2B15555550103', { status: 404, body: { message: 'not found' } });
    const result = await run(['diff', '-f', join(dir, 'fleet.yaml'), '--no-pager'], true);
    expect(result.stdout).toContain('\u001b[33m~ number +15555550100\u001b[39m');
    expect(result.stdout).toContain('\u001b[32m+ number +15555550101 (provision)\u001b[39m');
  });

  it('retries a read the service throttles, after its Retry-After', async () => {
    api.expect('GET', '/tenants', { status: 200, body: [] });
    api.expect('GET', '/phone-numbers/active?page=1&limit=100', { status: 429, body: { message: 'slow down' }, headers: { 'retry-after': '2' } });
    api.expect('GET', '/phone-numbers/active?page=1&limit=100', { status: 200, body: { items: [], page: 1, limit: 100, total: 0 } });
    for (const n of ['0', '1', '2', '3']) api.expect('GET', `/phone-numbers/%2B1555555010${n}`, { status: 404, body: { message: 'not found' } });
    const clock = fakeClock();
    const result = await runCli(['diff', '-f', join(dir, 'fleet.yaml'), '--json'], { env: { ...MOCK_ENV, SVC_CONFIG_DIR: dir, SVC_DATA_DIR: dir }, dispatcher: api.agent, clock });
    expect(result.code, result.stderr).toBe(0);
    expect(clock.sleeps).toContain(2000);
    expect((JSON.parse(result.stdout) as { changes: { action: string }[] }).changes.map((c) => c.action)).toEqual(['create-tenant', 'provision', 'provision', 'provision', 'provision']);
  });

  it('a bad file is exit 2 before any request', async () => {
    writeFileSync(join(dir, 'bad.yaml'), FILE.replace('class: P2P', 'class: A2P'));
    const result = await run(['diff', '-f', join(dir, 'bad.yaml')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${join(dir, 'bad.yaml')}:9:5: +15555550100 is A2P and needs campaignId and brandId`);
    expect(api.seen).toEqual([]);
  });

  it('without -f it says how to give the file', async () => {
    const result = await run(['diff']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('give -f FILE');
  });
});
