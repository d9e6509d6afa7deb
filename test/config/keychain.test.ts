import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { json, startTestServer, type TestServer } from '../helpers/http-server.js';
import { BIN } from '../helpers/spawn.js';

// The password in a real system keychain: a Secret Service (gnome-keyring) on its own D-Bus
// session, started by the test with `dbus-run-session` and unlocked, so that nothing of the
// user's own keyring is touched. `.ci/run` installs gnome-keyring, dbus and libsecret-tools and
// sets SVC_TEST_SECRET_SERVICE=1, which makes missing tools a failure rather than a reason.

const TOOLS = ['dbus-run-session', 'gnome-keyring-daemon', 'secret-tool', 'gdbus'];
const missingTools = TOOLS.filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);
const required = process.env['SVC_TEST_SECRET_SERVICE'] === '1';
const available = missingTools.length === 0 && process.platform === 'linux';
if (!available && !required) {
  process.stderr.write(
    `test/config/keychain.test.ts: the Secret Service test is not run here: ${missingTools.join(', ') || 'not Linux'} missing; ` +
      '.ci/run installs gnome-keyring, dbus and libsecret-tools and runs it.\n',
  );
}

let server: TestServer | undefined;
let cleanup = (): void => undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  cleanup();
});

/** Runs a shell script in a fresh D-Bus session with an unlocked gnome-keyring; resolves with its output. */
function inKeyringSession(script: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  // The daemon forks and returns before it owns its bus name; a request sent before then makes
  // D-Bus start a second daemon, which can find the login keyring half written by the first
  // ("invalid or unrecognized format") and answer nothing. gdbus wait blocks until the name is
  // owned (an event, bounded by its own timeout).
  const session = [
    'echo -n session-pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1 || exit 90',
    'gdbus wait --session --timeout 60 org.freedesktop.secrets || exit 89',
    script,
  ].join('\n');
  return new Promise((resolve, reject) => {
    const child = spawn('dbus-run-session', ['--', 'sh', '-c', session], { env: { PATH: process.env['PATH'] ?? '', HOME: env['HOME'] ?? '', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const deadline = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the keyring session did not end within 90 s:\n${stdout}\n${stderr}`));
    }, 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(deadline);
      resolve({ code, stdout, stderr });
    });
  });
}

describe.runIf(available || required)('the password in a real Secret Service (gnome-keyring on D-Bus)', () => {
  it('the tools are installed', () => {
    expect(missingTools).toEqual([]);
  });

  it('auth login stores it there, commands read it from there, logout removes it; the profile file never holds it', async () => {
    server = await startTestServer();
    server.on('GET', '/api/v1/tenants', json(200, [{ tenantId: '3f2504e0-4f89-11d3-9a0c-0305e82c3301' }]));
    const config = tempConfigDir();
    cleanup = config.cleanup;
    const node = JSON.stringify(process.execPath);
    const svc = `${node} ${JSON.stringify(BIN)}`;
    const service = `svc-cli:${server.url}`;
    const script = [
      `printf %s 'keyring-pa55' | ${svc} auth login --base-url ${server.url} --username kc@example.com --password-stdin || exit 91`,
      `echo "LOOKUP=$(secret-tool lookup service '${service}' username kc@example.com)"`,
      `cp "$SVC_CONFIG_DIR/config.json" "$SVC_CONFIG_DIR/after-login.json"`,
      `${svc} auth status || exit 92`,
      `${svc} tenant list --json || exit 93`,
      `${svc} auth logout || exit 94`,
      `echo "AFTER=$(secret-tool lookup service '${service}' username kc@example.com)"`,
    ].join('\n');
    const result = await inKeyringSession(script, { SVC_CONFIG_DIR: config.dir, HOME: config.dir, NO_COLOR: '1' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('LOOKUP=keyring-pa55\n');
    expect(result.stdout).toMatch(/password\s+in the system keychain \(Secret Service\)/);
    expect(result.stdout).toContain('AFTER=\n');
    expect(result.stderr).toContain('the password is in the system keychain (Secret Service)');
    const stored = readFileSync(join(config.dir, 'after-login.json'), 'utf8');
    expect(stored).not.toContain('keyring-pa55');
    expect(JSON.parse(stored).profiles.default).toEqual({ baseUrl: server.url, username: 'kc@example.com', passwordIn: 'keychain' });
    expect(server.requests.map((r) => r.headers['authorization'])).toEqual([
      `Basic ${Buffer.from('kc@example.com:keyring-pa55').toString('base64')}`,
      `Basic ${Buffer.from('kc@example.com:keyring-pa55').toString('base64')}`,
    ]);
  }, 120_000);
});

describe.runIf(process.platform === 'linux')('no keychain at all', () => {
  it('refuses to store the password in clear without --insecure-storage, and stores nothing', async () => {
    server = await startTestServer();
    server.on('GET', '/api/v1/tenants', json(200, []));
    const config = tempConfigDir();
    cleanup = config.cleanup;
    const run = (extra: string[]): Promise<{ code: number | null; stderr: string }> =>
      new Promise((resolve, reject) => {
        const child = spawn(process.execPath, [BIN, 'auth', 'login', '--base-url', server!.url, '--username', 'nk@example.com', '--password-stdin', ...extra], {
          // A bus address where nothing listens: no Secret Service answers.
          env: { PATH: process.env['PATH'] ?? '', HOME: config.dir, SVC_CONFIG_DIR: config.dir, DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(config.dir, 'no-bus')}` },
        });
        let stderr = '';
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        const deadline = setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error(`svc auth login did not end within 60 s: ${stderr}`));
        }, 60_000);
        child.on('close', (code) => {
          clearTimeout(deadline);
          resolve({ code, stderr });
        });
        child.stdin.end('clear-pa55');
      });
    const refused = await run([]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Nothing was asked or stored: the system keychain (Secret Service) cannot be used here');
    expect(refused.stderr).toContain('--insecure-storage');
    expect(() => readFileSync(join(config.dir, 'config.json'))).toThrow();
    const insecure = await run(['--insecure-storage']);
    expect(insecure.code, insecure.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(config.dir, 'config.json'), 'utf8')).profiles.default.password).toBe('clear-pa55');
  }, 120_000);
});
