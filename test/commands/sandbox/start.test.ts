import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, tempConfigDir } from '../../helpers/cli.js';
import { basicAuth, startCommand, type RunningCommand } from '../../helpers/live.js';
import { ExchangeLogFiles } from '../../sandbox/openapi-check.js';

const DEFAULT_AUTH = basicAuth('sandbox@example.com', 'sandbox');
const running: RunningCommand[] = [];
const cleanups: Array<() => void | Promise<void>> = [];

// Every request and answer of these sandboxes is validated against the OpenAPI document.
const exchanges = new ExchangeLogFiles();

afterEach(async () => {
  for (const command of running.splice(0)) await command.interrupt();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  exchanges.check();
});
afterAll(() => exchanges.dispose());

/** Starts `svc sandbox start --port 0 ...` and waits for its banner; returns its URL. */
async function startSandboxCommand(args: string[]): Promise<{ command: RunningCommand; url: string }> {
  const command = startCommand(['sandbox', 'start', '--port', '0', ...args], exchanges.env());
  running.push(command);
  const banner = await command.stderr.waitFor(/Sandbox running at (http:\/\/127\.0\.0\.1:(\d+))/, command.done);
  if (banner === null) throw new Error(`the sandbox did not start: exit ${await command.done}\n${command.stderr.text}`);
  return { command, url: banner[1] ?? '' };
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-sandbox-start-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('svc sandbox start: flags', () => {
  const bad: Array<[string[], RegExp]> = [
    [['--port', '70000'], /--port must be a whole number from 0 to 65535, not "70000"/],
    [['--port', 'abc'], /--port .*"abc"/],
    [['--order-delay', '-5'], /--order-delay .*"-5"/],
    [['--order-delay', '1.5'], /--order-delay must be a whole number/],
    [['--time-scale', '0'], /--time-scale .*"0"/],
    [['--faults', '1.5'], /--faults must be a number from 0 to 1, not "1.5"/],
    [['--faults', 'often'], /--faults .*"often"/],
    [['--user', 'not-an-email:pw'], /--user "not-an-email": the part before ":" must be an email address/],
    [['--user', 'dev@example.com:'], /--user dev@example.com: the password after ":" is empty/],
    [['--user', 'a@example.com:x', '--user', 'A@example.com:y'], /--user A@example.com is given twice/],
    [['--host', ''], /--host must be an address/],
    [['--rate-limit', '0'], /--rate-limit must be a whole number from 1 to 1000000, not "0"/],
    [['--rate-limit', '2.5'], /--rate-limit must be a whole number/],
    [['--rate-limit', 'fast'], /--rate-limit .*"fast"/],
  ];
  for (const [args, message] of bad) {
    it(`refuses ${args.join(' ')} with exit 2 naming the value`, async () => {
      const result = await runCli(['sandbox', 'start', ...args]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stdout).toBe('');
    });
  }

  it('never echoes a --user value without a colon, which may be a password', async () => {
    const result = await runCli(['sandbox', 'start', '--user', 'hunter2-secret']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--user must be EMAIL:PASSWORD/);
    expect(result.stderr).not.toContain('hunter2-secret');
  });

  it('refuses a --state file in a directory that does not exist', async () => {
    const dir = tempDir();
    const result = await runCli(['sandbox', 'start', '--port', '0', '--state', join(dir, 'missing', 'state.json')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--state .*state\.json: the directory .*missing does not exist/);
  });

  it('refuses a --state file that is not a sandbox state, and leaves it untouched', async () => {
    const file = join(tempDir(), 'state.json');
    writeFileSync(file, '{"hello": "world"}');
    const result = await runCli(['sandbox', 'start', '--port', '0', '--state', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/is not a sandbox state/);
    expect(readFileSync(file, 'utf8')).toBe('{"hello": "world"}');
  });

  it('refuses a state file of another version with exit 2 naming it, not as an unexpected error', async () => {
    const file = join(tempDir(), 'state.json');
    const text = JSON.stringify({ version: 99, mediaSigningKey: '', nextOrderId: 1, tenants: [], numbers: [], orders: [], messages: [], media: [] });
    writeFileSync(file, text);
    const result = await runCli(['sandbox', 'start', '--port', '0', '--state', file]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/state file .*state\.json is not a sandbox state this version can load \(unsupported state file version 99/);
    expect(result.stderr).not.toMatch(/Unexpected error/);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('refuses --host that is not an address of this machine', async () => {
    const result = await runCli(['sandbox', 'start', '--port', '0', '--host', '192.0.2.1']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--host 192\.0\.2\.1 is not an address of this machine/);
  });
});

describe('svc sandbox start: running', () => {
  it('prints the real port and the default credentials, serves the API, and stops on Ctrl-C with 130', async () => {
    const { command, url } = await startSandboxCommand([]);
    expect(url).not.toMatch(/:0$/);
    expect(command.stderr.text).toContain(`API ${url}/api/v1`);
    expect(command.stderr.text).toContain('sandbox@example.com / sandbox');
    expect(command.stderr.text).toContain(`svc auth login --sandbox --base-url ${url}`);
    expect(command.stdout.text).toBe('');

    const health = await fetch(`${url}/api/v1/health`, { headers: { Authorization: DEFAULT_AUTH } });
    expect(health.status).toBe(200);
    expect(((await health.json()) as { status: string }).status).toBe('Healthy');

    running.splice(running.indexOf(command), 1);
    expect(await command.interrupt()).toBe(130);
    expect(command.stderr.text).toContain('Sandbox stopped.');
    await expect(fetch(`${url}/api/v1/health`, { headers: { Authorization: DEFAULT_AUTH } })).rejects.toThrow();
  });

  it('--json prints one JSON object with the URLs and accounts, never a password given with --user', async () => {
    const { command, url } = await startSandboxCommand(['--json', '--user', 'dev@example.com:dev-secret-pw', '--order-delay', '50', '--time-scale', '2']);
    const summary = JSON.parse(command.stdout.text) as Record<string, unknown>;
    expect(summary['url']).toBe(url);
    expect(summary['apiUrl']).toBe(`${url}/api/v1`);
    expect(summary['port']).toBe(Number(new URL(url).port));
    expect(summary['users']).toEqual([
      { email: 'sandbox@example.com', password: 'sandbox', passwordSource: 'default' },
      { email: 'dev@example.com', password: null, passwordSource: 'given' },
    ]);
    expect(summary['orderDelayMs']).toBe(50);
    expect(summary['timeScale']).toBe(2);
    expect(summary['login']).toBe(`svc auth login --sandbox --base-url ${url}`);
    expect(command.stdout.text + command.stderr.text).not.toContain('dev-secret-pw');
    expect(command.stderr.text).toContain('dev@example.com / (password as given)');
    expect(command.stderr.text).toContain(`svc auth login --sandbox --base-url ${url} --username dev@example.com`);

    const asDev = await fetch(`${url}/api/v1/tenants`, { headers: { Authorization: basicAuth('dev@example.com', 'dev-secret-pw') } });
    expect(asDev.status).toBe(200);
  });

  it('--rate-limit N throttles sends per account, says so, and names the OpenAPI document', async () => {
    const { command, url } = await startSandboxCommand(['--json', '--rate-limit', '2', '--order-delay', '10']);
    const summary = JSON.parse(command.stdout.text) as Record<string, unknown>;
    expect(summary['rateLimit']).toBe(2);
    expect(summary['openapi']).toBe(`${url}/api/v1/openapi.json`);
    expect(command.stderr.text).toContain('throttle  2 messages a second per account');
    const auth = basicAuth('sandbox@example.com', 'sandbox');
    const post = async (path: string, body: unknown): Promise<Response> =>
      fetch(`${url}/api/v1${path}`, { method: 'POST', headers: { Authorization: auth, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    const tenant = (await (await post('/tenants', {})).json()) as { tenantId: string };
    await post('/phone-numbers/provision', {
      action: 'Provision',
      tenantId: tenant.tenantId,
      phoneNumbers: [{ number: '+15551250001', messagingFeature: { provisionType: 'SMS', provisionClass: 'P2P' } }],
    });
    for (let i = 0; i < 200; i++) {
      const read = await fetch(`${url}/api/v1/phone-numbers/%2B15551250001`, { headers: { Authorization: auth } });
      if (((await read.json()) as { status: string }).status === 'Active') break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Sends a few milliseconds apart: a bucket of 2 a second runs dry within a few of them.
    let refused: Response | undefined;
    let accepted = 0;
    for (let i = 0; i < 50 && refused === undefined; i++) {
      const answer = await post('/messages?isAsync=true', { from: '+15551250001', to: ['+15551250002'], body: 'x' });
      if (answer.status === 429) refused = answer;
      else if (answer.status === 202) accepted++;
    }
    expect(accepted).toBeGreaterThanOrEqual(2);
    expect(refused?.status).toBe(429);
    expect(((await refused?.json()) as { errorCode: string }).errorCode).toBe('RATE_LIMITED');
    // One token comes back every 500 ms: rounded up to whole seconds, 1.
    expect(refused?.headers.get('retry-after')).toBe('1');
  });

  it('does not show the default password once --user replaces it', async () => {
    const { command } = await startSandboxCommand(['--json', '--user', 'sandbox@example.com:changed-pw']);
    const summary = JSON.parse(command.stdout.text) as { users: unknown[] };
    expect(summary.users).toEqual([{ email: 'sandbox@example.com', password: null, passwordSource: 'given' }]);
    expect(command.stderr.text).toContain('sandbox@example.com / (password as given)');
    expect(command.stderr.text).not.toMatch(/changed-pw|\/ sandbox /);
  });

  it('a port in use is exit 1 with a clear message', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
    const port = (blocker.address() as AddressInfo).port;
    const result = await runCli(['sandbox', 'start', '--port', String(port)]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
    expect(result.stderr).toContain('--port 0');
  });

  it('--debug logs one line per request, without credentials', async () => {
    const { command, url } = await startSandboxCommand(['--debug']);
    await fetch(`${url}/api/v1/tenants`, { headers: { Authorization: DEFAULT_AUTH } });
    await fetch(`${url}/api/v1/tenants`);
    const lines = await command.stderr.waitFor(/\[sandbox\] GET \/api\/v1\/tenants 401 [\d.]+ms/, command.done);
    expect(lines).not.toBeNull();
    expect(command.stderr.text).toMatch(/\[sandbox\] GET \/api\/v1\/tenants 200 [\d.]+ms/);
    expect(command.stderr.text).not.toContain(DEFAULT_AUTH.slice('Basic '.length));
  });

  it('without --debug, requests are not logged', async () => {
    const { command, url } = await startSandboxCommand([]);
    await fetch(`${url}/api/v1/tenants`, { headers: { Authorization: DEFAULT_AUTH } });
    expect(command.stderr.text).not.toContain('[sandbox]');
  });

  it('--state keeps what was created across a restart', async () => {
    const file = join(tempDir(), 'sandbox.json');
    const first = await startSandboxCommand(['--state', file]);
    expect(first.command.stderr.text).toContain(`kept in ${file}`);
    const created = await fetch(`${first.url}/api/v1/tenants`, {
      method: 'POST',
      headers: { Authorization: DEFAULT_AUTH, 'Content-Type': 'application/json' },
      body: JSON.stringify({ domain: 'kept.example.com' }),
    });
    expect(created.status).toBe(201);
    const tenantId = ((await created.json()) as { tenantId: string }).tenantId;
    running.splice(running.indexOf(first.command), 1);
    expect(await first.command.interrupt()).toBe(130);
    expect(first.command.stderr.text).toContain(`state saved to ${file}`);
    expect(existsSync(file)).toBe(true);

    const second = await startSandboxCommand(['--state', file]);
    const read = await fetch(`${second.url}/api/v1/tenants/${tenantId}`, { headers: { Authorization: DEFAULT_AUTH } });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { domain: string }).domain).toBe('kept.example.com');
  });

  it('svc auth login --sandbox --base-url connects to a sandbox on another port', async () => {
    const { url } = await startSandboxCommand([]);
    const config = tempConfigDir();
    cleanups.push(config.cleanup);
    const login = await runCli(['auth', 'login', '--sandbox', '--base-url', url], { env: { SVC_CONFIG_DIR: config.dir } });
    expect(login.code).toBe(0);
    expect(login.stderr).toContain(`Logged in to ${url} as sandbox@example.com; profile "sandbox" is active`);
    const status = await runCli(['auth', 'status', '--json'], { env: { SVC_CONFIG_DIR: config.dir } });
    expect(JSON.parse(status.stdout)).toMatchObject({ profile: 'sandbox', baseUrl: url, username: 'sandbox@example.com' });
    const tenants = await runCli(['tenant', 'list', '--json'], { env: { SVC_CONFIG_DIR: config.dir } });
    expect(tenants.code).toBe(0);
    expect(JSON.parse(tenants.stdout)).toEqual([]);
  });
});
