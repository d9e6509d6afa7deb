import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type HttpExchange, type RunningSandbox } from '../../src/sandbox/index.js';
import { runCli } from '../helpers/cli.js';
import { ExchangeLog } from '../sandbox/openapi-check.js';

// `svc apply`, `diff` and `export` end to end against the sandbox: a fleet applies, a second
// apply only reads, drift is exit 7 until applied, export round-trips, prune asks, a saved plan
// is refused once the live state moved, a failed order is tried again and said so.

const T1 = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
const T2 = '9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d';
const AUTH = `Basic ${Buffer.from('sandbox@example.com:sandbox').toString('base64')}`;
const SECRET = 'whsec-fleet-test-value';

const FLEET = `version: 1
tenants:
  - tenantId: ${T1}
    domain: support.example.com
    settings:
      webhookPrimaryUri: https://hooks.example.com/svc
      webhookSecret: {env: SUPPORT_WEBHOOK_SECRET}
      webhookEventType: OrderStatus
  - tenantId: ${T2}
numbers:
  - number: "+15555550100"
    tenant: ${T1}
    type: SMS
    class: P2P
    email: ops@example.com
    description: Support line
    billingPlan: P2P500
    userId: alice
    settings:
      autoResponse: {enabled: true, message: "We answer within the hour."}
      rateLimit: 10
  - number: "+15555550101"
    tenant: ${T1}
    type: SMSMMS
    class: A2P
    campaignId: C1
    brandId: B1
    externalId: crm-101
  - number: "+15555550102"
    tenant: ${T2}
    type: SMS
    class: P2P
`;

let sandbox: RunningSandbox;
let dir: string;
const exchanges: HttpExchange[] = [];
const openapi = new ExchangeLog();

beforeAll(async () => {
  sandbox = await startSandbox({
    port: 0,
    orderDelayMs: 30,
    users: [{ email: 'other@example.com', password: 'other-pw' }],
    messageStepMs: 20,
    observe: (x) => {
      exchanges.push(x);
      openapi.observe(x);
    },
  });
});
afterAll(async () => {
  await sandbox.close();
  openapi.assertClean();
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-apply-'));
  return () => rmSync(dir, { recursive: true, force: true });
});

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    SVC_BASE_URL: sandbox.url,
    SVC_USERNAME: 'sandbox@example.com',
    SVC_PASSWORD: 'sandbox',
    SVC_CONFIG_DIR: dir,
    SVC_DATA_DIR: dir,
    SVC_ORDER_POLL_MS: '20',
    SUPPORT_WEBHOOK_SECRET: SECRET,
    ...extra,
  };
}

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${sandbox.apiUrl}${path}`, {
    method,
    headers: { Authorization: AUTH, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

/** Every order the sandbox holds (ids are consecutive from 1001). */
async function allOrders(): Promise<{ orderId: number; action: string; phoneNumbers: { number: string; status: string }[] }[]> {
  const orders = [];
  for (let id = 1001; ; id++) {
    const answer = await call('GET', `/phone-numbers/orders/${id}`);
    if (answer.status === 404) return orders;
    orders.push(answer.json as { orderId: number; action: string; phoneNumbers: { number: string; status: string }[] });
  }
}

function requestsDuring<T>(work: () => Promise<T>): Promise<{ result: T; requests: string[] }> {
  const start = exchanges.length;
  return work().then((result) => ({ result, requests: exchanges.slice(start).map((x) => `${x.method} ${x.url}`) }));
}

describe('svc apply against the sandbox', () => {
  it('applies a fleet; the second apply only reads; drift is exit 7 until applied; export round-trips', async () => {
    const file = join(dir, 'fleet.yaml');
    writeFileSync(file, FLEET);
    const first = await runCli(['apply', '-f', file], { env: env() });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('Plan: 2 tenants to create, 3 numbers to provision in 3 orders.');
    expect(first.stdout).toMatch(/Applied: \d+ changes made\./);
    expect(`${first.stdout}${first.stderr}`).not.toContain(SECRET);

    const number = (await call('GET', '/phone-numbers/%2B15555550100')).json as Record<string, unknown>;
    expect(number).toMatchObject({ status: 'Active', tenantId: T1, description: 'Support line', userId: 'alice', email: 'ops@example.com', billingPlan: 'P2P500' });
    expect(number['settings']).toEqual({ autoResponse: { enabled: true, message: 'We answer within the hour.' }, rateLimit: 10 });
    expect((await call('GET', '/phone-numbers/%2B15555550101')).json).toMatchObject({ status: 'Active', externalId: 'crm-101', campaignId: 'C1' });
    expect((await call('GET', `/tenants/${T1}`)).json).toMatchObject({ domain: 'support.example.com', settings: { webhookSecret: '********', webhookEventType: 'OrderStatus' } });

    const second = await requestsDuring(() => runCli(['apply', '-f', file], { env: env() }));
    expect(second.result.code, second.result.stderr).toBe(0);
    expect(second.result.stdout).toBe(`No changes: the live state matches ${file}.\n`);
    expect(second.requests.filter((r) => !r.startsWith('GET '))).toEqual([]);
    expect(second.requests).toEqual(['GET /api/v1/tenants', 'GET /api/v1/phone-numbers/active?page=1&limit=100']);

    // Someone changes a setting by hand: drift.
    expect((await call('PUT', '/phone-numbers/%2B15555550100', { settings: { rateLimit: 3 } })).status).toBe(204);
    const drift = await runCli(['diff', '-f', file, '--exit-code'], { env: env() });
    expect(drift.code).toBe(7);
    expect(drift.stdout).toContain('~ number +15555550100\n    ~ settings.rateLimit: 3 -> 10\n');
    const fix = await requestsDuring(() => runCli(['apply', '-f', file], { env: env() }));
    expect(fix.result.code, fix.result.stderr).toBe(0);
    expect(fix.requests.filter((r) => !r.startsWith('GET '))).toEqual(['PUT /api/v1/phone-numbers/%2B15555550100']);
    expect((await runCli(['diff', '-f', file, '--exit-code'], { env: env() })).code).toBe(0);

    const exported = await runCli(['export'], { env: env() });
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain('webhookSecret: {env: SVC_3F2504E0_WEBHOOK_SECRET}');
    expect(exported.stderr).toContain(`SVC_3F2504E0_WEBHOOK_SECRET  (tenant ${T1} webhookSecret)`);
    writeFileSync(join(dir, 'exported.yaml'), exported.stdout);
    const roundTrip = await runCli(['diff', '-f', join(dir, 'exported.yaml'), '--exit-code', '--json'], { env: env() });
    expect(roundTrip.code, roundTrip.stdout).toBe(0);
    expect(JSON.parse(roundTrip.stdout)).toEqual({ changes: [], inSync: true });
    const asJson = await runCli(['export', '--json', '--tenant', T2], { env: env() });
    writeFileSync(join(dir, 'exported.json'), asJson.stdout);
    expect(JSON.parse(asJson.stdout)).toMatchObject({ version: 1, tenants: [{ tenantId: T2 }], numbers: [{ number: '+15555550102', tenant: T2 }] });
    expect((await runCli(['diff', '-f', join(dir, 'exported.json'), '--exit-code'], { env: env() })).code).toBe(0);

    // Every number was ordered once.
    const provisioned = (await allOrders()).filter((o) => o.action === 'Provision').flatMap((o) => o.phoneNumbers.map((e) => e.number));
    for (const n of ['+15555550100', '+15555550101', '+15555550102']) expect(provisioned.filter((p) => p === n)).toEqual([n]);
  });

  it('a secret whose variable is unset is exit 2 before any write', async () => {
    const other = '11111111-2222-4333-8444-555555555555';
    const file = join(dir, 'fleet.yaml');
    writeFileSync(file, `version: 1\ntenants:\n  - tenantId: ${other}\n    settings: {webhookSecret: {env: UNSET_SECRET_VARIABLE}}\n`);
    const run = await requestsDuring(() => runCli(['apply', '-f', file], { env: env() }));
    expect(run.result.code).toBe(2);
    expect(run.result.stderr).toContain(`UNSET_SECRET_VARIABLE (tenant ${other} webhookSecret)`);
    expect(run.requests.every((r) => r.startsWith('GET '))).toBe(true);
  });

  it('--prune asks, needs --yes without a terminal, then unprovisions what the file leaves out', async () => {
    const tenant = 'aaaaaaaa-2222-4333-8444-555555555555';
    const file = join(dir, 'fleet.yaml');
    const numbers = ['+15555551200', '+15555551201'];
    const body = (list: string[]): string =>
      `version: 1\ntenants:\n  - tenantId: ${tenant}\nnumbers:\n${list.map((n) => `  - {number: "${n}", tenant: ${tenant}, type: SMS, class: P2P}\n`).join('')}`;
    writeFileSync(file, body(numbers));
    expect((await runCli(['apply', '-f', file], { env: env() })).code).toBe(0);
    writeFileSync(file, body(numbers.slice(0, 1)));
    const refused = await requestsDuring(() => runCli(['apply', '-f', file, '--prune'], { env: env() }));
    expect(refused.result.code).toBe(2);
    expect(refused.result.stderr).toContain('give --yes');
    expect(refused.requests.every((r) => r.startsWith('GET '))).toBe(true);
    const pruned = await runCli(['apply', '-f', file, '--prune', '--yes'], { env: env() });
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(pruned.stdout).toContain(`- number +15555551201 (unprovision from tenant ${tenant}: not in the file)`);
    expect((await call('GET', '/phone-numbers/%2B15555551201')).json).toMatchObject({ status: 'Released' });
    expect((await runCli(['diff', '-f', file, '--prune', '--exit-code'], { env: env() })).code).toBe(0);
  });

  it('apply --plan applies a saved plan, and refuses (exit 1, naming what moved) once the live state moved', async () => {
    const tenant = 'bbbbbbbb-2222-4333-8444-555555555555';
    const file = join(dir, 'fleet.yaml');
    writeFileSync(file, `version: 1\ntenants:\n  - tenantId: ${tenant}\n    domain: a.example.com\n`);
    expect((await runCli(['apply', '-f', file], { env: env() })).code).toBe(0);
    writeFileSync(file, `version: 1\ntenants:\n  - tenantId: ${tenant}\n    domain: b.example.com\n`);
    const plan = join(dir, 'plan.json');
    expect((await runCli(['diff', '-f', file, '--out', plan], { env: env() })).code).toBe(0);
    expect(JSON.parse(readFileSync(plan, 'utf8'))).toMatchObject({ changes: [{ action: 'update-tenant', target: tenant, fields: { domain: { from: 'a.example.com', to: 'b.example.com' } } }] });
    await call('PUT', `/tenants/${tenant}`, { domain: 'c.example.com' });
    const moved = await requestsDuring(() => runCli(['apply', '--plan', plan], { env: env() }));
    expect(moved.result.code).toBe(1);
    expect(moved.result.stderr).toContain(`update-tenant ${tenant}: its fields moved since the plan was made`);
    expect(moved.requests.every((r) => r.startsWith('GET '))).toBe(true);
    await call('PUT', `/tenants/${tenant}`, { domain: 'a.example.com' });
    const applied = await runCli(['apply', '--plan', plan], { env: env() });
    expect(applied.code, applied.stderr).toBe(0);
    expect((await call('GET', `/tenants/${tenant}`)).json).toMatchObject({ domain: 'b.example.com' });
  });

  it('a failed order is exit 5 naming the number; the next apply orders it again and says so', async () => {
    const tenant = 'cccccccc-2222-4333-8444-555555555555';
    const file = join(dir, 'fleet.yaml');
    // +1555010xxxx is the sandbox's range whose orders fail.
    writeFileSync(file, `version: 1\ntenants:\n  - tenantId: ${tenant}\nnumbers:\n  - {number: "+15550100042", tenant: ${tenant}, type: SMS, class: P2P}\n  - {number: "+15555551300", tenant: ${tenant}, type: SMS, class: P2P}\n`);
    const first = await runCli(['apply', '-f', file], { env: env() });
    expect(first.code).toBe(5);
    expect(first.stderr).toMatch(/Failed: \+15550100042 \(order \d+\): The carrier refused the number/);
    expect(first.stderr).toContain('again to order the failed numbers again');
    const again = await runCli(['apply', '-f', file, '--json'], { env: env() });
    expect(again.code).toBe(5);
    expect(again.stderr).toMatch(/\+15550100042: its order \d+ failed; ordering it again/);
    const outcome = JSON.parse(again.stdout) as { changes: { action: string; target: string; outcome: string; retry?: string }[]; inSync: boolean };
    expect(outcome.inSync).toBe(false);
    expect(outcome.changes).toEqual([expect.objectContaining({ action: 'provision', target: '+15550100042', outcome: 'failed', retry: 'it is Failed' })]);
  });

  it('a number another account holds: diff cannot see it; apply finds it by the refusal, blocks it with its reason (exit 1), orders the rest once', async () => {
    const theirs = 'dddddddd-3333-4444-8555-666666666666';
    const ours = 'eeeeeeee-4444-4555-8666-777777777777';
    const taken = '+15555551400';
    // The other account provisions the number first.
    const other = join(dir, 'other.yaml');
    writeFileSync(other, `version: 1\ntenants:\n  - tenantId: ${theirs}\nnumbers:\n  - {number: "${taken}", tenant: ${theirs}, type: SMS, class: P2P}\n`);
    expect((await runCli(['apply', '-f', other], { env: env({ SVC_USERNAME: 'other@example.com', SVC_PASSWORD: 'other-pw' }) })).code).toBe(0);
    const file = join(dir, 'fleet.yaml');
    const mine = ['+15555551401', '+15555551402', taken, '+15555551403'];
    writeFileSync(file, `version: 1\ntenants:\n  - tenantId: ${ours}\nnumbers:\n${mine.map((n) => `  - {number: "${n}", tenant: ${ours}, type: SMS, class: P2P}\n`).join('')}`);
    const diff = await runCli(['diff', '-f', file], { env: env() });
    expect(diff.stdout).toContain(`+ number ${taken} (provision)`);
    const applied = await runCli(['apply', '-f', file], { env: env() });
    expect(applied.stderr).toContain(`Blocked: ${taken}: it is held by another account`);
    expect(applied.code).toBe(1);
    // The orders this account's apply submitted (the other account's are not visible to it).
    const ids = [...applied.stderr.matchAll(/Submitted order (\d+)/g)].map((m) => m[1]!);
    const orders = await Promise.all(ids.map(async (id) => (await call('GET', `/phone-numbers/orders/${id}`)).json as { phoneNumbers: { number: string }[] }));
    const orderedNumbers = orders.flatMap((o) => o.phoneNumbers.map((e) => e.number)).sort();
    // Each of ours in exactly one order; the taken one in none of ours.
    expect(orderedNumbers).toEqual(mine.filter((n) => n !== taken).sort());
    for (const n of mine.filter((x) => x !== taken)) expect(((await call('GET', `/phone-numbers/${encodeURIComponent(n)}`)).json as { status: string }).status).toBe('Active');
  });

  it('secrets go to an existing tenant only with --update-secrets, and never into any output', async () => {
    const tenant = 'dddddddd-2222-4333-8444-555555555555';
    const file = join(dir, 'fleet.yaml');
    writeFileSync(file, `version: 1\ntenants:\n  - tenantId: ${tenant}\n    settings:\n      webhookPrimaryUri: https://hooks.example.com/x\n      webhookSecret: {env: SUPPORT_WEBHOOK_SECRET}\n`);
    const created = await requestsDuring(() => runCli(['apply', '-f', file, '--debug'], { env: env() }));
    expect(created.result.code, created.result.stderr).toBe(0);
    const create = exchanges.filter((x) => x.method === 'POST' && x.url === '/api/v1/tenants').at(-1)!;
    expect(JSON.parse(create.requestBody!.toString('utf8'))).toMatchObject({ tenantId: tenant, settings: { webhookSecret: SECRET } });
    expect(`${created.result.stdout}${created.result.stderr}`).not.toContain(SECRET);

    const plain = await requestsDuring(() => runCli(['apply', '-f', file], { env: env({ SUPPORT_WEBHOOK_SECRET: 'rotated-secret-value' }) }));
    expect(plain.result.code).toBe(0);
    expect(plain.requests.every((r) => r.startsWith('GET '))).toBe(true);

    const rotated = await requestsDuring(() => runCli(['apply', '-f', file, '--update-secrets', '--debug'], { env: env({ SUPPORT_WEBHOOK_SECRET: 'rotated-secret-value' }) }));
    expect(rotated.result.code, rotated.result.stderr).toBe(0);
    expect(rotated.requests.filter((r) => !r.startsWith('GET '))).toEqual([`PUT /api/v1/tenants/${tenant}`]);
    const put = exchanges.filter((x) => x.method === 'PUT').at(-1)!;
    expect(JSON.parse(put.requestBody!.toString('utf8'))).toEqual({ settings: { webhookSecret: 'rotated-secret-value' } });
    expect(`${rotated.result.stdout}${rotated.result.stderr}`).not.toContain('rotated-secret-value');
    expect(rotated.result.stderr).toContain(`Updated tenant ${tenant}: webhookSecret`);
  });

  it('--dry-run and --schema change nothing', async () => {
    const file = join(dir, 'fleet.yaml');
    writeFileSync(file, FLEET.replace('rateLimit: 10', 'rateLimit: 11'));
    const dry = await requestsDuring(() => runCli(['apply', '-f', file, '--dry-run'], { env: env() }));
    expect(dry.result.code).toBe(0);
    expect(dry.result.stdout).toContain('~ settings.rateLimit: 10 -> 11');
    expect(dry.requests.every((r) => r.startsWith('GET '))).toBe(true);
    const schema = await requestsDuring(() => runCli(['apply', '--schema'], { env: env() }));
    expect(schema.requests).toEqual([]);
    expect(JSON.parse(schema.result.stdout)).toMatchObject({ title: 'svc fleet file' });
  });
});
