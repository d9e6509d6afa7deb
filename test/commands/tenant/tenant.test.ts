import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { createMockApi, MOCK_ENV, type MockApi } from '../../helpers/mock-api.js';

const ID = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
const tenant = {
  tenantId: ID,
  owner: 'user@example.com',
  billableOwner: 'user@example.com',
  domain: 'example.com',
  createdDate: '2026-01-01T00:00:00Z',
  settings: { webhookPrimaryUri: 'https://hooks.example.com/a', webhookSecret: '********', webhookEventType: 'All', extraField: 7 },
};

let mock: MockApi;
afterEach(async () => {
  await mock.agent.close();
});
const run = (argv: string[], options: Parameters<typeof runCli>[1] = {}) =>
  runCli(argv, { ...options, env: { ...MOCK_ENV, ...options.env }, dispatcher: mock.agent });

describe('svc tenant list', () => {
  it.each([
    ['a bare array', [tenant]],
    ['an items envelope', { items: [tenant], total: 1 }],
    ['a tenants envelope', { tenants: [tenant] }],
    ['a value envelope', { value: [tenant] }],
  ])('prints a JSON array from %s', async (_name, body) => {
    mock = createMockApi();
    mock.expect('GET', 'tenants', { status: 200, body });
    const result = await run(['tenant', 'list', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([tenant]);
    mock.verify();
  });

  it('reads an empty body, and a page that is not JSON, as an unexpected answer (not as no tenants)', async () => {
    mock = createMockApi();
    mock.expect('GET', 'tenants', { status: 200 });
    mock.expect('GET', 'tenants', { status: 200, body: 'Hello from a web server' });
    const empty = await run(['tenant', 'list', '--json']);
    expect(empty.code).toBe(1);
    expect(empty.stdout).toBe('');
    expect(JSON.parse(empty.stderr).error.message).toContain('HTTP 200 with an empty body, where a JSON list is due');
    const page = await run(['tenant', 'list', '--json']);
    expect(page.code).toBe(1);
    expect(page.stdout).toBe('');
    expect(JSON.parse(page.stderr).error.message).toContain('HTTP 200 with "Hello from a web server"');
    mock.verify();
  });

  it('prints tab-separated rows when piped, and an aligned table on a TTY', async () => {
    mock = createMockApi();
    mock.expect('GET', 'tenants', { status: 200, body: [tenant] }, { times: 2 });
    const piped = await run(['tenant', 'list']);
    expect(piped.stdout).toBe(`${ID}\texample.com\thttps://hooks.example.com/a\tAll\t2026-01-01T00:00:00Z\n`);
    const tty = await run(['tenant', 'list'], { tty: true, env: { NO_COLOR: '1' } });
    expect(tty.stdout).toMatch(/^TENANT ID\s+DOMAIN\s+WEBHOOK\s+EVENTS\s+CREATED\n/);
    expect(tty.stdout).toContain(ID);
    expect(tty.stdout).not.toMatch(/\u001b\[/);
  });

  it('colours the table on a TTY unless NO_COLOR or --no-color', async () => {
    mock = createMockApi();
    mock.expect('GET', 'tenants', { status: 200, body: [tenant] }, { times: 2 });
    expect((await run(['tenant', 'list'], { tty: true })).stdout).toMatch(/\u001b\[/);
    expect((await run(['tenant', 'list', '--no-color'], { tty: true })).stdout).not.toMatch(/\u001b\[/);
  });

  it('prints one object a line with -o ndjson', async () => {
    mock = createMockApi();
    mock.expect('GET', 'tenants', { status: 200, body: [tenant, { ...tenant, tenantId: 'x' }] });
    const result = await run(['tenant', 'list', '-o', 'ndjson']);
    expect(result.stdout.trim().split('\n').map((l) => JSON.parse(l).tenantId)).toEqual([ID, 'x']);
  });
});

describe('svc tenant get', () => {
  it('prints the object as returned, unknown fields kept', async () => {
    mock = createMockApi();
    mock.expect('GET', `tenants/${ID}`, { status: 200, body: tenant });
    const result = await run(['tenant', 'get', ID, '--json']);
    expect(JSON.parse(result.stdout)).toEqual(tenant);
  });
  it('refuses a non-GUID before any request', async () => {
    mock = createMockApi();
    const result = await run(['tenant', 'get', 'abc']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('"abc"');
    expect(mock.seen).toHaveLength(0);
  });
  it('exits 4 on 404 with a JSON error on stderr under --json', async () => {
    mock = createMockApi();
    mock.expect('GET', `tenants/${ID}`, { status: 404, body: { message: 'Tenant not found', title: 'Not Found', errorCode: 'NOT_FOUND' } });
    const result = await run(['tenant', 'get', ID, '--json']);
    expect(result.code).toBe(4);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr)).toEqual({ error: { status: 404, message: expect.stringContaining('Tenant not found'), title: 'Not Found', errorCode: 'NOT_FOUND' } });
  });
  it('never prints a secret the server returned in clear', async () => {
    mock = createMockApi();
    mock.expect('GET', `tenants/${ID}`, { status: 200, body: { ...tenant, settings: { webhookSecret: 'leaked-secret-value', webhookBasicAuthPassword: 'pw-leak' } } });
    const result = await run(['tenant', 'get', ID, '--json']);
    expect(result.stdout).not.toContain('leaked-secret-value');
    expect(result.stdout).not.toContain('pw-leak');
    expect(JSON.parse(result.stdout).settings.webhookSecret).toBe('********');
  });
});

describe('svc tenant create', () => {
  it('puts webhook fields in settings, reads the secret from stdin and never prints it', async () => {
    mock = createMockApi();
    mock.expect('POST', 'tenants', { status: 201, body: { ...tenant, settings: { ...tenant.settings, webhookSecret: 's3cret-from-stdin' } } }, {
      body: (body) =>
        expect(body).toEqual({
          domain: 'example.com',
          settings: { webhookPrimaryUri: 'https://hooks.example.com/a', webhookEventType: 'MessageReceived', webhookSecret: 's3cret-from-stdin' },
        }),
    });
    const result = await run(
      ['tenant', 'create', '--domain', 'example.com', '--webhook-primary-uri', 'https://hooks.example.com/a', '--webhook-event-type', 'messagereceived', '--webhook-secret-stdin', '--json', '--debug'],
      { stdin: 's3cret-from-stdin\n' },
    );
    expect(result.code).toBe(0);
    expect(result.stdout + result.stderr).not.toContain('s3cret-from-stdin');
    expect(result.stderr).toContain('[REDACTED]');
    mock.verify();
  });

  it('takes the secret from an environment variable', async () => {
    mock = createMockApi();
    mock.expect('POST', 'tenants', { status: 201, body: tenant }, { body: (b) => expect((b as { settings: Record<string, string> }).settings['webhookSecret']).toBe('env-secret') });
    const result = await run(['tenant', 'create', '--webhook-secret-env', 'MY_SECRET'], { env: { MY_SECRET: 'env-secret' } });
    expect(result.code).toBe(0);
    mock.verify();
  });

  it.each([
    [['--webhook-primary-uri', 'http://hooks.example.com'], '"http://hooks.example.com"'],
    [['--webhook-event-type', 'Everything'], '"Everything"'],
    [['--tenant-id', 'nope'], '"nope"'],
    [['--webhook-secret-env', 'UNSET_VAR_X'], 'UNSET_VAR_X'],
    [['--webhook-secret-env', 'X', '--webhook-secret-stdin'], 'not both'],
  ])('refuses %j before any request', async (flags, named) => {
    mock = createMockApi();
    const result = await run(['tenant', 'create', ...flags]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(named);
    expect(mock.seen).toHaveLength(0);
  });

  it('names the file and line of malformed JSON', async () => {
    mock = createMockApi();
    const dir = mkdtempSync(join(tmpdir(), 'svc-tenant-'));
    const file = join(dir, 'tenant.json');
    writeFileSync(file, '{\n  "domain": "a.com",\n  "settings": { "webhookEventType": "All", }\n}\n');
    const result = await run(['tenant', 'create', '--file', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file}:3:`);
    writeFileSync(file, '{"owner": "me"}');
    const readOnly = await run(['tenant', 'create', '--file', file]);
    expect(readOnly.code).toBe(2);
    expect(readOnly.stderr).toContain('"owner" is read-only');
    const missing = await run(['tenant', 'create', '--file', join(dir, 'nope.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nope.json: no such file');
  });

  it('moves top-level webhook fields of a file into settings', async () => {
    mock = createMockApi();
    const dir = mkdtempSync(join(tmpdir(), 'svc-tenant-'));
    const file = join(dir, 'tenant.json');
    writeFileSync(file, JSON.stringify({ domain: 'a.com', webhookPrimaryUri: 'https://h.example.com', webhookEventType: 'orderstatus' }));
    mock.expect('POST', 'tenants', { status: 201, body: tenant }, {
      body: (b) => expect(b).toEqual({ domain: 'a.com', settings: { webhookPrimaryUri: 'https://h.example.com', webhookEventType: 'OrderStatus' } }),
    });
    expect((await run(['tenant', 'create', '--file', file])).code).toBe(0);
    mock.verify();
  });
});

describe('svc tenant update', () => {
  it('keeps other settings, never sends the hidden secret back, and reads back after an empty answer', async () => {
    mock = createMockApi();
    mock.expect('GET', `tenants/${ID}`, { status: 200, body: tenant });
    mock.expect('PUT', `tenants/${ID}`, { status: 204 }, {
      body: (b) =>
        expect(b).toEqual({
          domain: 'example.com',
          settings: { webhookPrimaryUri: 'https://hooks.example.com/a', webhookEventType: 'OrderStatus', extraField: 7 },
        }),
    });
    mock.expect('GET', `tenants/${ID}`, { status: 200, body: { ...tenant, settings: { ...tenant.settings, webhookEventType: 'OrderStatus' } } });
    const result = await run(['tenant', 'update', ID, '--webhook-event-type', 'OrderStatus', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).settings.webhookEventType).toBe('OrderStatus');
    mock.verify();
  });

  it('prints the answer when the update returns a body', async () => {
    mock = createMockApi();
    mock.expect('GET', `tenants/${ID}`, { status: 200, body: tenant });
    mock.expect('PUT', `tenants/${ID}`, { status: 200, body: { ...tenant, domain: 'new.com' } });
    const result = await run(['tenant', 'update', ID, '--domain', 'new.com', '--json']);
    expect(JSON.parse(result.stdout).domain).toBe('new.com');
    mock.verify();
  });

  it('never sends back a hidden secret that a file saved from `tenant get --json` holds', async () => {
    mock = createMockApi();
    const dir = mkdtempSync(join(tmpdir(), 'svc-tenant-'));
    const file = join(dir, 'tenant.json');
    writeFileSync(file, JSON.stringify({ tenantId: ID, domain: 'edited.com', settings: { webhookSecret: '********', webhookBasicAuthPassword: '********', webhookEventType: 'All' } }));
    mock.expect('GET', `tenants/${ID}`, { status: 200, body: tenant });
    mock.expect('PUT', `tenants/${ID}`, { status: 204 }, {
      body: (b) =>
        expect(b).toEqual({
          domain: 'edited.com',
          settings: { webhookPrimaryUri: 'https://hooks.example.com/a', webhookEventType: 'All', extraField: 7 },
        }),
    });
    mock.expect('GET', `tenants/${ID}`, { status: 200, body: { ...tenant, domain: 'edited.com' } });
    const result = await run(['tenant', 'update', ID, '--file', file]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('settings.webhookSecret is the hidden marker');
    mock.verify();
  });

  it('refuses an update with nothing to change', async () => {
    mock = createMockApi();
    const result = await run(['tenant', 'update', ID]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Nothing to update');
  });
});
