import { statSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, scriptedPrompter, tempConfigDir } from '../../helpers/cli.js';
import { createMockApi, MOCK_ORIGIN, type MockApi } from '../../helpers/mock-api.js';

let mock: MockApi;
let cleanup = (): void => undefined;
afterEach(async () => {
  await mock.agent.close();
  cleanup();
});

function setup(): string {
  mock = createMockApi();
  const temp = tempConfigDir();
  cleanup = temp.cleanup;
  return temp.dir;
}

describe('svc auth login', () => {
  it('verifies with one request, then stores the profile 0600 and makes it active', async () => {
    const dir = setup();
    mock.expect('GET', 'tenants', { status: 200, body: [] });
    const result = await runCli(['auth', 'login', '--base-url', MOCK_ORIGIN, '--username', 'me@example.com', '--password-stdin', '--profile', 'work'], {
      env: { SVC_CONFIG_DIR: dir },
      stdin: 'my-pass-word\n',
      dispatcher: mock.agent,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('profile "work" is active');
    expect(result.stderr).not.toContain('my-pass-word');
    expect(mock.seen[0]?.headers['authorization']).toBe(`Basic ${Buffer.from('me@example.com:my-pass-word').toString('base64')}`);
    const file = join(dir, 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    expect(stored).toEqual({ activeProfile: 'work', profiles: { work: { baseUrl: MOCK_ORIGIN, username: 'me@example.com', password: 'my-pass-word' } } });
    mock.verify();
  });

  it('stores nothing when the service refuses the credentials (exit 3)', async () => {
    const dir = setup();
    mock.expect('GET', 'tenants', { status: 401, body: { message: 'Invalid credentials', title: 'Unauthorized', errorCode: 'INVALID_CREDENTIALS' } });
    const result = await runCli(['auth', 'login', '--base-url', MOCK_ORIGIN, '--username', 'me@example.com', '--password-stdin'], {
      env: { SVC_CONFIG_DIR: dir },
      stdin: 'wrong',
      dispatcher: mock.agent,
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('Invalid credentials (INVALID_CREDENTIALS); nothing was stored');
    expect(() => statSync(join(dir, 'config.json'))).toThrow();
  });

  it('stores nothing when the base URL serves a web page instead of the API (exit 1)', async () => {
    const dir = setup();
    mock.expect('GET', 'tenants', { status: 200, body: '<!doctype html><html><head><title>Welcome</title></head></html>' });
    const result = await runCli(['auth', 'login', '--base-url', MOCK_ORIGIN, '--username', 'me@example.com', '--password-stdin'], {
      env: { SVC_CONFIG_DIR: dir },
      stdin: 'pw-of-mine',
      dispatcher: mock.agent,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Unexpected answer for GET /tenants: HTTP 200 with "Welcome", not JSON');
    expect(() => statSync(join(dir, 'config.json'))).toThrow();
    mock.verify();
  });

  it('asks for what is missing when a person is at the terminal', async () => {
    const dir = setup();
    mock.expect('GET', 'tenants', { status: 200, body: [] });
    const prompter = scriptedPrompter({ 'base url': MOCK_ORIGIN, username: 'p@example.com', password: 'typed-pw' });
    const result = await runCli(['auth', 'login'], { env: { SVC_CONFIG_DIR: dir }, tty: true, prompter, dispatcher: mock.agent });
    expect(result.code).toBe(0);
    expect(prompter.asked).toHaveLength(3);
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.default.username).toBe('p@example.com');
  });

  it('never prompts when stdin is not a terminal, and names the flag to use', async () => {
    const dir = setup();
    const prompter = scriptedPrompter({});
    const result = await runCli(['auth', 'login', '--base-url', MOCK_ORIGIN, '--username', 'me@example.com'], {
      env: { SVC_CONFIG_DIR: dir },
      tty: { stdin: false, stdout: true, stderr: true },
      prompter,
      dispatcher: mock.agent,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--password-stdin');
    expect(result.stderr).toContain('SVC_PASSWORD');
    expect(prompter.asked).toHaveLength(0);
    expect(mock.seen).toHaveLength(0);
  });

  it('--sandbox makes a sandbox profile with the default account', async () => {
    const dir = setup();
    mock = createMockApi('http://127.0.0.1:4010');
    mock.expect('GET', 'tenants', { status: 200, body: [] });
    // The sandbox's defaults win over a real service's settings exported in the shell.
    const result = await runCli(['auth', 'login', '--sandbox'], {
      env: { SVC_CONFIG_DIR: dir, SVC_BASE_URL: 'https://api.example.com', SVC_USERNAME: 'real@example.com', SVC_PASSWORD: 'real-password' },
      dispatcher: mock.agent,
    });
    expect(result.code).toBe(0);
    const stored = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    expect(stored.activeProfile).toBe('sandbox');
    expect(stored.profiles.sandbox).toEqual({ baseUrl: 'http://127.0.0.1:4010', username: 'sandbox@example.com', password: 'sandbox' });
  });
});

describe('svc auth status, logout and profiles', () => {
  async function login(dir: string, name: string, base = MOCK_ORIGIN): Promise<void> {
    const result = await runCli(['auth', 'login', '--no-verify', '--base-url', base, '--username', `${name}@example.com`, '--password-stdin', '--profile', name], {
      env: { SVC_CONFIG_DIR: dir },
      stdin: `${name}-password`,
    });
    expect(result.code).toBe(0);
  }

  it('shows the active profile without the password, as JSON and as text', async () => {
    const dir = setup();
    await login(dir, 'alpha');
    const json = await runCli(['auth', 'status', '--json'], { env: { SVC_CONFIG_DIR: dir } });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ profile: 'alpha', baseUrl: MOCK_ORIGIN, username: 'alpha@example.com', tenant: null });
    const text = await runCli(['auth', 'status'], { env: { SVC_CONFIG_DIR: dir } });
    expect(text.stdout).toContain('alpha@example.com');
    expect(text.stdout + text.stderr).not.toContain('alpha-password');
    const fromEnv = await runCli(['auth', 'status'], { env: { SVC_CONFIG_DIR: dir, SVC_USERNAME: 'env@example.com' } });
    expect(fromEnv.stdout).toContain('env@example.com (from SVC_USERNAME)');
  });

  it('names a broken profile store instead of crashing, in every command that writes it', async () => {
    const dir = setup();
    writeFileSync(join(dir, 'config.json'), '{"profiles": {');
    for (const argv of [['profile', 'use', 'alpha'], ['profile', 'remove', 'alpha'], ['auth', 'logout'], ['auth', 'login', '--sandbox', '--no-verify']]) {
      const result = await runCli(argv, { env: { SVC_CONFIG_DIR: dir } });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`The profile store ${join(dir, 'config.json')} cannot be used`);
      expect(result.stderr).not.toContain('Unexpected error');
    }
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe('{"profiles": {');
  });

  it('exits 3 when nothing is configured', async () => {
    const dir = setup();
    const result = await runCli(['auth', 'status'], { env: { SVC_CONFIG_DIR: dir } });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('svc auth login');
  });

  it('lists, switches and removes profiles', async () => {
    const dir = setup();
    await login(dir, 'alpha');
    await login(dir, 'beta');
    const list = await runCli(['profile', 'list', '--json'], { env: { SVC_CONFIG_DIR: dir } });
    expect(JSON.parse(list.stdout).map((p: { name: string; active: boolean }) => [p.name, p.active])).toEqual([
      ['alpha', false],
      ['beta', true],
    ]);
    expect(list.stdout).not.toContain('password');
    expect((await runCli(['profile', 'use', 'alpha'], { env: { SVC_CONFIG_DIR: dir } })).code).toBe(0);
    const status = await runCli(['auth', 'status', '--json'], { env: { SVC_CONFIG_DIR: dir } });
    expect(JSON.parse(status.stdout).profile).toBe('alpha');
    const unknown = await runCli(['profile', 'use', 'gamma'], { env: { SVC_CONFIG_DIR: dir } });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Known profiles: alpha, beta');
    expect((await runCli(['profile', 'remove', 'beta'], { env: { SVC_CONFIG_DIR: dir } })).code).toBe(0);
    expect((await runCli(['auth', 'logout'], { env: { SVC_CONFIG_DIR: dir } })).code).toBe(0);
    const after = await runCli(['profile', 'list', '--json'], { env: { SVC_CONFIG_DIR: dir } });
    expect(JSON.parse(after.stdout)).toEqual([]);
  });
});
