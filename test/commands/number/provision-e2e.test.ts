import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli } from '../../helpers/spawn.js';
import { json, startTestServer, type TestServer } from '../../helpers/http-server.js';
import { tempConfigDir } from '../../helpers/cli.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/index.js';
import { fileDir, order, TENANT } from './helpers.js';
import { ExchangeLog } from '../../sandbox/openapi-check.js';

// The built CLI as a script would run it: against a local server that plays an order through its
// states, and against the sandbox.

const config = tempConfigDir();
const files = fileDir('svc-provision-e2e-');
afterAll(() => {
  config.cleanup();
  files.cleanup();
});

describe('provision --wait against a server that plays the order', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  const env = (): Record<string, string> => ({
    SVC_BASE_URL: server.url,
    SVC_USERNAME: 'ci@example.com',
    SVC_PASSWORD: 'ci-password',
    SVC_TENANT: TENANT,
    SVC_CONFIG_DIR: config.dir,
    SVC_ORDER_POLL_MS: '20',
  });

  it('Pending, Processing, Completed: exit 0, one line per change on stderr, the order as it ended on stdout', async () => {
    const numbers: [string, string][] = [['+15551230001', 'Pending'], ['+15551230002', 'Pending']];
    server.on('POST', '/api/v1/phone-numbers/provision', json(202, order('Pending', numbers)));
    server.on(
      'GET',
      '/api/v1/phone-numbers/orders/42',
      json(200, order('Pending', numbers)),
      json(200, order('Processing', [['+15551230001', 'Active'], ['+15551230002', 'Pending']])),
      json(200, order('Completed', [['+15551230001', 'Active'], ['+15551230002', 'Active']])),
    );
    const result = await spawnCli(['number', 'provision', '+15551230001', '+15551230002', '--type', 'sms', '--class', 'p2p', '--wait', '--json'], { env: env() });
    expect(result.code).toBe(0);
    expect(server.unhandled).toEqual([]);
    expect(JSON.parse(result.stdout)).toMatchObject({ orderId: 42, status: 'Completed' });
    expect(result.stderr.trim().split('\n')).toEqual([
      'order 42: Pending (+15551230001 Pending, +15551230002 Pending)',
      'order 42: Processing',
      'order 42: +15551230001 Active',
      'order 42: Completed',
      'order 42: +15551230002 Active',
    ]);
    const post = server.requests.find((r) => r.method === 'POST')!;
    expect(JSON.parse(post.body)).toMatchObject({ action: 'Provision', tenantId: TENANT, phoneNumbers: [{ number: '+15551230001' }, { number: '+15551230002' }] });
    expect(post.headers['authorization']).toBe(`Basic ${Buffer.from('ci@example.com:ci-password').toString('base64')}`);
  });

  it('Pending, Processing, Failed: exit 5 and the failed numbers named', async () => {
    server.on('GET', '/api/v1/phone-numbers/orders/43', json(200, { ...order('Processing', [['+15550101234', 'Pending']]), orderId: 43 }), json(200, {
      ...order('Failed', []),
      orderId: 43,
      phoneNumbers: [{ number: '+15550101234', status: 'Failed', errorMessage: 'Number could not be provisioned' }],
    }));
    const result = await spawnCli(['order', 'watch', '43'], { env: env() });
    expect(result.code).toBe(5);
    expect(result.stdout).toMatch(/^\+15550101234\tFailed\t/);
    expect(result.stderr).toContain('error: Order 43 ended Failed: +15550101234 (Number could not be provisioned)');
  });

  it('refuses a bad entry with exit 2 and sends nothing', async () => {
    const before = server.requests.length;
    const result = await spawnCli(['number', 'provision', '+15551230001', '--type', 'SMS', '--class', 'A2P'], { env: env() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('+15551230001 is A2P and needs a campaign (--campaign-id) and a brand (--brand-id)');
    expect(server.requests.length).toBe(before);
  });
});

describe('the whole provisioning flow against the sandbox', () => {
  let sandbox: RunningSandbox;
  const exchanges = new ExchangeLog();
  const env = (): Record<string, string> => ({
    SVC_BASE_URL: sandbox.url,
    SVC_USERNAME: 'sandbox@example.com',
    SVC_PASSWORD: 'sandbox',
    SVC_CONFIG_DIR: config.dir,
    SVC_ORDER_POLL_MS: '50',
  });
  let tenantId = '';

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, orderDelayMs: 200, observe: exchanges.observe });
    const created = await spawnCli(['tenant', 'create', '--domain', 'example.com', '--json'], { env: env() });
    expect(created.code).toBe(0);
    tenantId = (JSON.parse(created.stdout) as { tenantId: string }).tenantId;
  });
  afterAll(async () => {
    await sandbox.close();
    // Every request the CLI sent and every answer, as the sandbox's OpenAPI document says.
    exchanges.assertClean();
  });

  it('uploads an LOA, provisions from a CSV file with --wait, lists, reads, updates and releases', async () => {
    const pdf = files.write('loa.pdf', Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.from([0, 1, 2, 0xff, 0xfe]), Buffer.from('\n%%EOF\n')]));
    const loa = await spawnCli(['number', 'loa', 'upload', pdf], { env: env() });
    expect(loa.code).toBe(0);
    const loaUrl = loa.stdout.trim();
    expect(loaUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);

    const csv = files.write('numbers.csv', `number,email,description\n+15551230001,ops@example.com,"Desk, one"\n+15551230002,,\n`);
    const provision = await spawnCli(['number', 'provision', '--file', csv, '--tenant', tenantId, '--type', 'SMS', '--class', 'P2P', '--loa-url', loaUrl, '--wait', '--json'], {
      env: env(),
    });
    expect(provision.stderr).not.toContain('error');
    expect(provision.code).toBe(0);
    const ended = JSON.parse(provision.stdout) as { status: string; phoneNumbers: { number: string; status: string }[] };
    expect(ended.status).toBe('Completed');
    expect(ended.phoneNumbers.map((e) => [e.number, e.status])).toEqual([
      ['+15551230001', 'Active'],
      ['+15551230002', 'Active'],
    ]);

    const list = await spawnCli(['number', 'list', '--all', '--limit', '1', '-o', 'ndjson'], { env: env() });
    expect(list.code).toBe(0);
    expect(list.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { phoneNumber: string }).phoneNumber)).toEqual(['+15551230001', '+15551230002']);

    const update = await spawnCli(
      ['number', 'update', '+15551230001', '--description', 'Front desk', '--set', 'settings.autoResponse.enabled=yes', '--set', 'settings.autoForward.emailAddresses=a@example.com,b@example.com', '--json'],
      { env: env() },
    );
    expect(update.code).toBe(0);
    const updated = JSON.parse(update.stdout) as { description: string; loaUrl: string; settings: Record<string, unknown> };
    expect(updated.description).toBe('Front desk');
    expect(updated.loaUrl).toBe(loaUrl);
    expect(updated.settings).toMatchObject({ autoResponse: { enabled: true }, autoForward: { emailAddresses: ['a@example.com', 'b@example.com'] } });

    const get = await spawnCli(['number', 'get', '+15551230001', '--json'], { env: env() });
    expect(JSON.parse(get.stdout)).toMatchObject({ phoneNumber: '+15551230001', status: 'Active', email: 'ops@example.com', description: 'Front desk' });

    const release = await spawnCli(['number', 'unprovision', '+15551230002', '--tenant', tenantId, '--wait', '--json', '--yes'], { env: env() });
    expect(release.code).toBe(0);
    expect(JSON.parse(release.stdout)).toMatchObject({ action: 'Unprovision', status: 'Completed', phoneNumbers: [{ number: '+15551230002', status: 'Released' }] });
  });

  it('exits 5 when the sandbox fails a number (+1555010xxxx)', async () => {
    const result = await spawnCli(['number', 'provision', '+15550101234', '--tenant', tenantId, '--type', 'SMS', '--class', 'P2P', '--wait'], { env: env() });
    expect(result.code).toBe(5);
    expect(result.stdout).toMatch(/^\+15550101234\tFailed\t/);
    expect(result.stderr).toMatch(/error: Order \d+ ended Failed: \+15550101234/);
  });
});
