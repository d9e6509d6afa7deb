import { statSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, scriptedPrompter, tempConfigDir } from '../../helpers/cli.js';
import { createMockApi, MOCK_ORIGIN, type MockApi } from '../../helpers/mock-api.js';
import { memorySecretStore } from '../../config/memory-secrets.js';
import { keychainService } from '../../../src/config/secrets.js';
import { SANDBOX_DEFAULT_URL, SANDBOX_DEFAULT_USER } from '../../../src/domain/sandbox-defaults.js';

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
  it('verifies with one request, then stores the profile 0600 and the password in the keychain', async () => {
    const dir = setup();
    const secretStore = memorySecretStore();
    mock.expect('GET', 'tenants', { status: 200, body: [] });
    const result = await runCli(['auth', 'login', '--base-url', MOCK_ORIGIN, '--username', 'me@example.com', '--password-stdin', '--profile', 'work'], {
      env: { SVC_CONFIG_DIR: dir },
      stdin: 'my-pass-word\n',
      dispatcher: mock.agent,
      secretStore,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('profile "work" is active');
    expect(result.stderr).not.toContain('my-pass-word');
    expect(mock.seen[0]?.headers['authorization']).toBe(`Basic ${Buffer.from('me@example.com:my-pass-word').toString('base64')}`);
    const file = join(dir, 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    expect(stored).toEqual({ activeProfile: 'work', profiles: { work: { baseUrl: MOCK_ORIGIN, username: 'me@example.com', passwordIn: 'keychain' } } });
    expect(readFileSync(file, 'utf8')).not.toContain('my-pass-word');
    expect(secretStore.items.get(`${keychainService(MOCK_ORIGIN)}|me@example.com`)).toBe('my-pass-word');
    expect(result.stderr).toContain('the password is in the test keychain');
    mock.verify();
  });

  it('refuses to store in clear when no keychain answers, unless --insecure-storage', async () => {
    const dir = setup();
    const argv = ['auth', 'login', '--base-url', MOCK_ORIGIN, '--username', 'me@example.com', '--password-stdin'];
    // Without a terminal the keychain is tried first: the refusal comes before stdin is read or
    // the service is asked.
    const refused = await runCli(argv, { env: { SVC_CONFIG_DIR: dir }, stdin: 'pw-123', dispatcher: mock.agent, secretStore: memorySecretStore({ unavailable: true }) });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Nothing was asked or stored: the test keychain cannot be used here: no answer within 5 s');
    expect(refused.stderr).toContain('--insecure-storage');
    expect(mock.seen).toHaveLength(0);
    expect(() => statSync(join(dir, 'config.json'))).toThrow();
    mock.expect('GET', 'tenants', { status: 200, body: [] });
    const insecure = await runCli([...argv, '--insecure-storage'], {
      env: { SVC_CONFIG_DIR: dir },
      stdin: 'pw-123',
      dispatcher: mock.agent,
      secretStore: memorySecretStore({ unavailable: true }),
    });
    expect(insecure.code).toBe(0);
    expect(insecure.stderr).toContain('IN CLEAR');
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.default.password).toBe('pw-123');
    const status = await runCli(['auth', 'status'], { env: { SVC_CONFIG_DIR: dir } });
    expect(status.stdout).toMatch(/password\s+in clear in the profile file/);
    expect(status.stderr).toContain('hint: the password is in clear');
    expect(status.stderr).toContain('svc auth login');
    mock.verify();
  });

  it('never asks again for what the profile has: --tenant alone changes the tenant', async () => {
    const dir = setup();
    const secretStore = memorySecretStore();
    mock.expect('GET', 'tenants', { status: 200, body: [] });
    mock.expect('GET', 'tenants', { status: 200, body: [] });
    const first = await runCli(['auth', 'login', '--base-url', MOCK_ORIGIN, '--username', 'me@example.com', '--password-stdin'], {
      env: { SVC_CONFIG_DIR: dir },
      stdin: 'kept-pw',
      dispatcher: mock.agent,
      secretStore,
    });
    expect(first.code).toBe(0);
    const prompter = scriptedPrompter({});
    const tenant = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
    const again = await runCli(['auth', 'login', '--tenant', tenant], { env: { SVC_CONFIG_DIR: dir }, tty: true, prompter, dispatcher: mock.agent, secretStore });
    expect(again.code).toBe(0);
    expect(prompter.asked).toEqual([]);
    expect(mock.seen[1]?.headers['authorization']).toBe(`Basic ${Buffer.from('me@example.com:kept-pw').toString('base64')}`);
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.default.tenant).toBe(tenant);
    mock.verify();
  });

  it('refuses a profile name that is not a plain name, such as __proto__ (exit 2), wherever a name is taken', async () => {
    const dir = setup();
    for (const argv of [
      ['auth', 'login', '--profile', '__proto__', '--sandbox', '--no-verify'],
      ['auth', 'status', '--profile', '.hidden'],
      ['profile', 'use', '__proto__'],
      ['profile', 'remove', '__proto__', '--yes'],
      ['tenant', 'list', '--profile', '../x'],
    ]) {
      const result = await runCli(argv, { env: { SVC_CONFIG_DIR: dir } });
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr).toContain('is not a profile name');
    }
    const fromEnv = await runCli(['auth', 'status'], { env: { SVC_CONFIG_DIR: dir, SVC_PROFILE: '__proto__' } });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toContain('SVC_PROFILE: "__proto__" is not a profile name');
    expect(() => statSync(join(dir, 'config.json'))).toThrow();
  });

  it('stores nothing when the service refuses the credentials (exit 3)', async () => {
    const dir = setup();
    mock.expect('GET', 'tenants', { status: 401, body: { message: 'Invalid credentials', title: 'Unauthorized', errorCode: 'INVALID_CREDENTIALS' } });
    const result = await runCli(['auth', 'login', '--base-url', MOCK_ORIGIN, '--username', 'me@example.com', '--password-stdin'], {
      env: { SVC_CONFIG_DIR: dir },
      stdin: 'wrong',
      dispatcher: mock.agent,
      secretStore: memorySecretStore(),
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
      secretStore: memorySecretStore(),
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
    const result = await runCli(['auth', 'login'], { env: { SVC_CONFIG_DIR: dir }, tty: true, prompter, dispatcher: mock.agent, secretStore: memorySecretStore() });
    expect(result.code).toBe(0);
    expect(prompter.asked).toHaveLength(3);
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.default.username).toBe('p@example.com');
  });

  it('on a terminal without a keychain, says so before asking anything and offers the profile file (default no)', async () => {
    const dir = setup();
    const declining = scriptedPrompter({ 'in clear': false });
    const declined = await runCli(['auth', 'login'], { env: { SVC_CONFIG_DIR: dir }, tty: true, prompter: declining, dispatcher: mock.agent, secretStore: memorySecretStore({ unavailable: true }) });
    expect(declined.code).toBe(1);
    expect(declining.asked).toEqual([expect.stringContaining('Keep the password in clear in')]);
    expect(declined.stderr.indexOf('the test keychain cannot be used here')).toBe(0);
    expect(declined.stderr).toContain('--insecure-storage');
    expect(() => statSync(join(dir, 'config.json'))).toThrow();

    mock.expect('GET', 'tenants', { status: 200, body: [] });
    const accepting = scriptedPrompter({ 'in clear': true, 'base url': MOCK_ORIGIN, username: 'p@example.com', password: 'typed-pw' });
    const accepted = await runCli(['auth', 'login'], { env: { SVC_CONFIG_DIR: dir }, tty: true, prompter: accepting, dispatcher: mock.agent, secretStore: memorySecretStore({ unavailable: true }) });
    expect(accepted.code).toBe(0);
    expect(accepting.asked.map((m) => m.split(' ')[0])).toEqual(['Keep', 'Base', 'Username', 'Password']);
    expect(accepted.stderr).toContain('IN CLEAR in the profile file');
    expect(accepted.stderr).not.toContain('typed-pw');
    const file = join(dir, 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.default).toEqual({ baseUrl: MOCK_ORIGIN, username: 'p@example.com', password: 'typed-pw' });
    mock.verify();
  });

  it('offers the local sandbox as the base URL when no profile exists: Enter twice is the sandbox login', async () => {
    const dir = setup();
    await mock.agent.close();
    mock = createMockApi(SANDBOX_DEFAULT_URL);
    const sandboxAuth = `Basic ${Buffer.from(`${SANDBOX_DEFAULT_USER.email}:${SANDBOX_DEFAULT_USER.password}`).toString('base64')}`;
    mock.expect('GET', 'tenants', { status: 200, body: [] });
    const prompter = scriptedPrompter({ 'base url': '', username: '' });
    const result = await runCli(['auth', 'login'], { env: { SVC_CONFIG_DIR: dir }, tty: true, prompter, dispatcher: mock.agent, secretStore: memorySecretStore() });
    expect(result.stderr).toMatch(new RegExp(`^Logged in to ${SANDBOX_DEFAULT_URL} as ${SANDBOX_DEFAULT_USER.email}; profile "default" is active \\(`));
    expect(result.code).toBe(0);
    expect(prompter.asked).toEqual(['Base URL (Enter for the local sandbox)', 'Username (account email)']);
    expect(Object.values(prompter.defaults)).toEqual([SANDBOX_DEFAULT_URL, SANDBOX_DEFAULT_USER.email]);
    expect(mock.seen[0]!.headers['authorization']).toBe(sandboxAuth);
    mock.verify();
  });

  it("offers the active profile's service as the base URL of a new profile, and asks the rest", async () => {
    const dir = setup();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ activeProfile: 'work', profiles: { work: { baseUrl: MOCK_ORIGIN, username: 'a@example.com', passwordIn: 'keychain' } } }), { mode: 0o600 });
    mock.expect('GET', 'tenants', { status: 200, body: [] });
    const prompter = scriptedPrompter({ 'base url': '', username: 'b@example.com', password: 'b-pw' });
    const result = await runCli(['auth', 'login', '--profile', 'second'], { env: { SVC_CONFIG_DIR: dir }, tty: true, prompter, dispatcher: mock.agent, secretStore: memorySecretStore() });
    expect(result.stderr).toContain(`Logged in to ${MOCK_ORIGIN} as b@example.com; profile "second" is active`);
    expect(result.code).toBe(0);
    expect(prompter.defaults['Base URL']).toBe(MOCK_ORIGIN);
    expect(prompter.defaults['Username (account email)']).toBeUndefined();
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.second).toEqual({ baseUrl: MOCK_ORIGIN, username: 'b@example.com', passwordIn: 'keychain' });
    mock.verify();
  });

  it('suggests a scheme for a bare host:port typed as the base URL', async () => {
    const dir = setup();
    const said: string[] = [];
    const prompter = {
      ...scriptedPrompter({ username: 'p@example.com', password: 'pw' }),
      input: async (message: string, options?: { validate?: (value: string) => true | string }) => {
        if (!message.startsWith('Base URL')) return 'p@example.com';
        for (const typed of ['127.0.0.1:36441', 'api.example.com:8443', 'localhost:4010']) said.push(String(options?.validate?.(typed)));
        expect(options?.validate?.(MOCK_ORIGIN)).toBe(true);
        return MOCK_ORIGIN;
      },
    };
    mock.expect('GET', 'tenants', { status: 200, body: [] });
    const result = await runCli(['auth', 'login'], { env: { SVC_CONFIG_DIR: dir }, tty: true, prompter, dispatcher: mock.agent, secretStore: memorySecretStore() });
    expect(result.code).toBe(0);
    expect(said).toEqual([
      '"127.0.0.1:36441" has no scheme: did you mean http://127.0.0.1:36441?',
      '"api.example.com:8443" has no scheme: did you mean https://api.example.com:8443?',
      '"localhost:4010" has no scheme: did you mean http://localhost:4010?',
    ]);
    mock.verify();
  });

  it('on a terminal asks again for a refused password, three tries, for a new and an existing profile', async () => {
    const dir = setup();
    const refused = { status: 401, body: { message: 'Invalid credentials', title: 'Unauthorized', errorCode: 'INVALID_CREDENTIALS' } };
    const typing = (passwords: string[]) => {
      const base = scriptedPrompter({ 'base url': MOCK_ORIGIN, username: 'p@example.com' });
      const asked: string[] = [];
      return { ...base, asked, password: async (message: string) => (asked.push(message), passwords.shift() ?? 'none left') };
    };
    const secretStore = memorySecretStore();
    mock.expect('GET', 'tenants', refused);
    mock.expect('GET', 'tenants', refused);
    mock.expect('GET', 'tenants', { status: 200, body: [] });
    const fresh = typing(['typo-1', 'typo-2', 'right-pw']);
    const first = await runCli(['auth', 'login'], { env: { SVC_CONFIG_DIR: dir }, tty: true, prompter: fresh, dispatcher: mock.agent, secretStore });
    expect(first.code).toBe(0);
    expect(fresh.asked).toHaveLength(3);
    expect(first.stderr.match(/refused the password/g)).toHaveLength(2);
    expect(secretStore.items.get(`${keychainService(MOCK_ORIGIN)}|p@example.com`)).toBe('right-pw');

    // The stored password was rotated: the terminal is asked, and the new one is kept.
    mock.expect('GET', 'tenants', refused);
    mock.expect('GET', 'tenants', { status: 200, body: [] });
    const rotated = typing(['new-pw']);
    const again = await runCli(['auth', 'login'], { env: { SVC_CONFIG_DIR: dir }, tty: true, prompter: rotated, dispatcher: mock.agent, secretStore });
    expect(again.code).toBe(0);
    expect(rotated.asked).toHaveLength(1);
    expect(secretStore.items.get(`${keychainService(MOCK_ORIGIN)}|p@example.com`)).toBe('new-pw');
    const auth = (pw: string): string => `Basic ${Buffer.from(`p@example.com:${pw}`).toString('base64')}`;
    expect(mock.seen.map((r) => r.headers['authorization'])).toEqual([auth('typo-1'), auth('typo-2'), auth('right-pw'), auth('right-pw'), auth('new-pw')]);

    // Three wrong tries end it: exit 3, nothing changed.
    for (let i = 0; i < 3; i++) mock.expect('GET', 'tenants', refused);
    const wrong = typing(['w1', 'w2', 'w3', 'w4']);
    const failed = await runCli(['auth', 'login', '--profile', 'other'], { env: { SVC_CONFIG_DIR: dir }, tty: true, prompter: wrong, dispatcher: mock.agent, secretStore });
    expect(failed.code).toBe(3);
    expect(wrong.asked).toHaveLength(3);
    expect(failed.stderr).toContain('nothing was stored');
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.other).toBeUndefined();
    mock.verify();
  });

  it('never prompts when stdin is not a terminal, and names the flag to use', async () => {
    const dir = setup();
    const prompter = scriptedPrompter({});
    const result = await runCli(['auth', 'login', '--base-url', MOCK_ORIGIN, '--username', 'me@example.com'], {
      env: { SVC_CONFIG_DIR: dir },
      tty: { stdin: false, stdout: true, stderr: true },
      prompter,
      dispatcher: mock.agent,
      secretStore: memorySecretStore(),
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
  let secretStore = memorySecretStore();
  async function login(dir: string, name: string, base = MOCK_ORIGIN): Promise<void> {
    const result = await runCli(['auth', 'login', '--no-verify', '--base-url', base, '--username', `${name}@example.com`, '--password-stdin', '--profile', name], {
      env: { SVC_CONFIG_DIR: dir },
      stdin: `${name}-password`,
      secretStore,
    });
    expect(result.code).toBe(0);
  }
  afterEach(() => {
    secretStore = memorySecretStore();
  });

  it('shows the active profile without the password, as JSON and as text', async () => {
    const dir = setup();
    await login(dir, 'alpha');
    const json = await runCli(['auth', 'status', '--json'], { env: { SVC_CONFIG_DIR: dir } });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ profile: 'alpha', baseUrl: MOCK_ORIGIN, username: 'alpha@example.com', tenant: null });
    const text = await runCli(['auth', 'status'], { env: { SVC_CONFIG_DIR: dir }, secretStore });
    expect(text.stdout).toContain('alpha@example.com');
    expect(text.stdout).toMatch(/password\s+in the test keychain/);
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
    const unconfirmed = await runCli(['profile', 'remove', 'beta'], { env: { SVC_CONFIG_DIR: dir }, secretStore });
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain('remove profile "beta" (beta@example.com at');
    expect(unconfirmed.stderr).toContain('--yes');
    expect(secretStore.items.size).toBe(2);
    expect((await runCli(['profile', 'remove', 'beta', '--yes'], { env: { SVC_CONFIG_DIR: dir }, secretStore })).code).toBe(0);
    expect(secretStore.items.size).toBe(1);
    expect((await runCli(['auth', 'logout'], { env: { SVC_CONFIG_DIR: dir }, secretStore })).code).toBe(0);
    expect(secretStore.items.size).toBe(0);
    const after = await runCli(['profile', 'list', '--json'], { env: { SVC_CONFIG_DIR: dir } });
    expect(JSON.parse(after.stdout)).toEqual([]);
  });
});
