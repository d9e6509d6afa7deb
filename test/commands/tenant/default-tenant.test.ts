import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, scriptedPrompter, tempConfigDir, type RunOptions } from '../../helpers/cli.js';
import { createMockApi, MOCK_ENV, MOCK_ORIGIN, type MockApi } from '../../helpers/mock-api.js';
import { memorySecretStore } from '../../config/memory-secrets.js';

// The default tenant (SVC_TENANT, else the profile's) stands in wherever a tenant ID may be left
// out, is marked in `tenant list`, and is where the tenant picker starts.

const A = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
const B = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const C = '16fd2706-8baf-433b-82eb-8c7fada847da';
const tenants = [
  { tenantId: A, domain: 'a.example', createdDate: '2026-01-01T00:00:00Z', settings: { webhookPrimaryUri: 'https://hooks.example.com/a-long-path-for-the-receiver', webhookEventType: 'All' } },
  { tenantId: B, domain: 'b.example', createdDate: '2026-01-02T00:00:00Z', settings: { webhookEventType: 'OrderStatus' } },
];

let mock: MockApi;
let cleanups: (() => void)[] = [];
afterEach(async () => {
  await mock.agent.close();
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A profile store whose active profile "work" has `tenant` as its default (or none). */
function profileWith(tenant?: string): string {
  const config = tempConfigDir();
  cleanups.push(config.cleanup);
  const work = { baseUrl: MOCK_ORIGIN, username: 'w@example.com', password: 'pw-pw', ...(tenant ? { tenant } : {}) };
  writeFileSync(join(config.dir, 'config.json'), JSON.stringify({ activeProfile: 'work', profiles: { work } }), { mode: 0o600 });
  return config.dir;
}

const run = (argv: string[], options: RunOptions = {}) => runCli(argv, { ...options, dispatcher: mock.agent, secretStore: memorySecretStore() });

describe('a tenant ID left out is the default tenant', () => {
  it("tenant get without an ID reads the profile's tenant, on a terminal too, without asking", async () => {
    mock = createMockApi();
    mock.expect('GET', `tenants/${B}`, { status: 200, body: tenants[1] }, { times: 2 });
    const dir = profileWith(B);
    const piped = await run(['tenant', 'get', '--json'], { env: { SVC_CONFIG_DIR: dir } });
    expect(piped.code).toBe(0);
    expect(JSON.parse(piped.stdout)).toEqual(tenants[1]);
    const prompter = scriptedPrompter({}, { select: true });
    const tty = await run(['tenant', 'get'], { tty: true, env: { SVC_CONFIG_DIR: dir, NO_COLOR: '1' }, prompter });
    expect(tty.code).toBe(0);
    expect(tty.stdout).toContain('b.example');
    expect(prompter.asked).toEqual([]);
    mock.verify();
  });

  it('SVC_TENANT wins over the profile, as it does for every command', async () => {
    mock = createMockApi();
    mock.expect('GET', `tenants/${A}`, { status: 200, body: tenants[0] });
    const result = await run(['tenant', 'get', '--json'], { env: { SVC_CONFIG_DIR: profileWith(B), SVC_TENANT: A } });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).tenantId).toBe(A);
    mock.verify();
  });

  it('a default that is not a GUID is refused before any request, naming where it came from', async () => {
    mock = createMockApi();
    const result = await run(['tenant', 'get'], { env: { ...MOCK_ENV, SVC_TENANT: 'not-a-guid' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('SVC_TENANT');
    expect(result.stderr).toContain('not-a-guid');
    expect(mock.seen).toEqual([]);
  });

  it("a default the service no longer has says so, and how to choose another (exit 4)", async () => {
    mock = createMockApi();
    mock.expect('GET', `tenants/${C}`, { status: 404, body: { message: 'Tenant not found', errorCode: 'NOT_FOUND' } });
    const result = await run(['tenant', 'get'], { env: { SVC_CONFIG_DIR: profileWith(C) } });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain(`${C} is the default tenant of profile "work"`);
    expect(result.stderr).toContain('svc tenant use GUID');
    mock.verify();
  });

  it('tenant update without an ID changes the default tenant and says which it changed', async () => {
    mock = createMockApi();
    mock.expect('GET', `tenants/${B}`, { status: 200, body: tenants[1] });
    mock.expect('PUT', `tenants/${B}`, { status: 204 }, { body: (b) => expect(b).toEqual({ domain: 'b.example', settings: { webhookEventType: 'All' } }) });
    mock.expect('GET', `tenants/${B}`, { status: 200, body: { ...tenants[1], settings: { webhookEventType: 'All' } } });
    const result = await run(['tenant', 'update', '--webhook-event-type', 'all', '--json'], { env: { SVC_CONFIG_DIR: profileWith(B) } });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(`Updating tenant ${B} (the default tenant of profile "work").\n`);
    expect(JSON.parse(result.stdout).settings.webhookEventType).toBe('All');
    mock.verify();
  });

  it('tenant update checks its changes before it looks for a tenant', async () => {
    mock = createMockApi();
    const result = await run(['tenant', 'update'], { env: { SVC_CONFIG_DIR: profileWith(B) } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Nothing to update');
    expect(mock.seen).toEqual([]);
  });
});

describe('tenant list marks the default tenant', () => {
  it('on a terminal: a * column first, explained under the table', async () => {
    mock = createMockApi();
    mock.expect('GET', 'tenants', { status: 200, body: tenants });
    const result = await run(['tenant', 'list'], { tty: true, env: { SVC_CONFIG_DIR: profileWith(B), NO_COLOR: '1' } });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('* marks the default tenant of profile "work"\n');
    const rows = result.stdout.trimEnd().split('\n');
    expect(rows[1]).toMatch(new RegExp(`^ +${A}`));
    expect(rows[2]).toMatch(new RegExp(`^\\* +${B}`));
    mock.verify();
  });

  it.each([40, 60, 80])('keeps the mark and the whole id when the table is fitted to %i columns', async (columns) => {
    mock = createMockApi();
    mock.expect('GET', 'tenants', { status: 200, body: tenants });
    const result = await run(['tenant', 'list'], { tty: true, columns, env: { SVC_CONFIG_DIR: profileWith(B), NO_COLOR: '1' } });
    expect(result.code).toBe(0);
    const rows = result.stdout.trimEnd().split('\n');
    expect(rows[2]).toMatch(new RegExp(`^\\* +${B}`));
    for (const row of [...rows, ...result.stderr.trimEnd().split('\n')]) expect(row.length).toBeLessThanOrEqual(columns);
    mock.verify();
  });

  it('says so when the default is not among the tenants', async () => {
    mock = createMockApi();
    mock.expect('GET', 'tenants', { status: 200, body: tenants });
    const result = await run(['tenant', 'list'], { tty: true, env: { SVC_CONFIG_DIR: profileWith(C), NO_COLOR: '1' } });
    expect(result.code).toBe(0);
    expect(result.stderr.replace(/\n/g, ' ')).toContain(`The default tenant of profile "work", ${C}, is not among these: choose another with \`svc tenant use\``);
    expect(result.stdout).not.toContain('*');
    mock.verify();
  });

  it('piped rows, --json and ndjson are what they are without a default: nothing added', async () => {
    mock = createMockApi();
    mock.expect('GET', 'tenants', { status: 200, body: tenants }, { times: 6 });
    const withDefault = { SVC_CONFIG_DIR: profileWith(B) };
    const without = { SVC_CONFIG_DIR: profileWith() };
    for (const argv of [['tenant', 'list'], ['tenant', 'list', '--json'], ['tenant', 'list', '-o', 'ndjson']]) {
      const marked = await run(argv, { env: withDefault });
      const plain = await run(argv, { env: without });
      expect(marked.code).toBe(0);
      expect(marked.stdout).toBe(plain.stdout);
      expect(marked.stderr).toBe('');
    }
    mock.verify();
  });
});

describe('the tenant picker starts on the default tenant', () => {
  it('tenant use on a terminal preselects and marks the current default', async () => {
    mock = createMockApi();
    mock.expect('GET', 'tenants', { status: 200, body: tenants });
    const dir = profileWith(B.toUpperCase());
    const prompter = scriptedPrompter({ 'which tenant': A }, { select: true });
    const result = await run(['tenant', 'use'], { tty: true, env: { SVC_CONFIG_DIR: dir }, prompter });
    expect(result.code).toBe(0);
    expect(prompter.preselected).toEqual({ 'Which tenant?': B });
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.work.tenant).toBe(A);
    mock.verify();
  });

  it('with no default, nothing is preselected', async () => {
    mock = createMockApi();
    mock.expect('GET', 'tenants', { status: 200, body: tenants });
    const prompter = scriptedPrompter({ 'which tenant': A }, { select: true });
    const result = await run(['tenant', 'use'], { tty: true, env: { SVC_CONFIG_DIR: profileWith() }, prompter });
    expect(result.code).toBe(0);
    expect(prompter.preselected).toEqual({ 'Which tenant?': undefined });
    mock.verify();
  });

  it('a prompter without lists offers the default as the typed answer', async () => {
    mock = createMockApi();
    mock.expect('GET', 'tenants', { status: 200, body: tenants });
    const defaults: (string | undefined)[] = [];
    const prompter = {
      input: async (_message: string, options: { default?: string } = {}) => {
        defaults.push(options.default);
        return options.default ?? '';
      },
      password: async () => '',
      confirm: async () => false,
    };
    const result = await run(['tenant', 'use'], { tty: true, env: { SVC_CONFIG_DIR: profileWith(B) }, prompter });
    expect(result.code).toBe(0);
    expect(defaults).toEqual([B]);
    mock.verify();
  });

  it('tenant use with no tenants at all says how to make one, not "svc asks for it"', async () => {
    mock = createMockApi();
    mock.expect('GET', 'tenants', { status: 200, body: [] });
    const prompter = scriptedPrompter({}, { select: true });
    const result = await run(['tenant', 'use'], { tty: true, env: { SVC_CONFIG_DIR: profileWith() }, prompter });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('The account has no tenants yet');
    expect(result.stderr).toContain('svc tenant create --domain example.com --use');
    expect(result.stderr).not.toContain('svc asks for it');
    expect(prompter.asked).toEqual([]);
    mock.verify();
  });
});
