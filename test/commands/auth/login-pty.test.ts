import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../../helpers/cli.js';
import { json, startTestServer, type Recorded, type TestServer } from '../../helpers/http-server.js';
import { BIN, testDataDir } from '../../helpers/spawn.js';
import { startPty, type PtySession } from '../../output/pty.js';

// `svc auth login` typed by a person on a real 80-column terminal of a machine without a
// keychain (a D-Bus address where nothing listens: no Secret Service): told so before anything is
// asked and offered the 0600 profile file, a bare host:port answered with the URL it means, and a
// refused password asked again, three tries in all.

const GOOD = 'right-pa55';
let server: TestServer | undefined;
let cleanup: (() => void) | undefined;
let session: PtySession | undefined;
afterEach(async () => {
  await session?.close();
  await server?.close();
  cleanup?.();
  session = server = cleanup = undefined;
});

const authorized = (req: Recorded): boolean => req.headers['authorization'] === `Basic ${Buffer.from(`pty@example.com:${GOOD}`).toString('base64')}`;

async function loginOnTerminal(answering = true): Promise<{ dir: string; session: PtySession }> {
  server = await startTestServer();
  // A run that must send nothing has no route: the server fails the test on any request.
  if (answering) {
  const tenants = json(200, []);
  const refused = json(401, { message: 'Invalid credentials', title: 'Unauthorized', errorCode: 'UNAUTHORIZED' });
  server.on('GET', '/api/v1/tenants', (req, res) => (authorized(req) ? tenants(req, res) : refused(req, res)));
  }
  const config = tempConfigDir();
  cleanup = config.cleanup;
  session = startPty(process.execPath, [BIN, 'auth', 'login'], {
    cols: 80,
    rows: 40,
    env: {
      PATH: process.env['PATH'],
      HOME: config.dir,
      TERM: 'xterm',
      NO_COLOR: '1',
      SVC_CONFIG_DIR: config.dir,
      SVC_DATA_DIR: testDataDir(),
      DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(config.dir, 'no-bus')}`,
    },
  });
  return { dir: config.dir, session };
}

/** Types an answer and waits for what it brings, looking only at what came after it. */
async function answer(pty: PtySession, text: string, then: RegExp): Promise<void> {
  const from = pty.mark();
  pty.write(text);
  await pty.waitFor(then, from);
}

const PASSWORD_PROMPT = /Password for pty@example\.com/;

describe.runIf(process.platform === 'linux')('svc auth login on a terminal without a keychain', () => {
  it('offers the 0600 file first, suggests the URL for host:port, asks a refused password again', async () => {
    const { dir, session: pty } = await loginOnTerminal();
    const port = new URL(server!.url).port;
    await pty.waitFor(/Secret Service\) cannot be used here[\s\S]*Keep the password in clear in \S+config\.json\s+\(readable by you only\)\?\s*\(y\/N\)/);
    await answer(pty, 'y\r', /Base URL \(Enter for the local sandbox\)/);
    await answer(pty, `127.0.0.1:${port}\r`, new RegExp(`"127\\.0\\.0\\.1:${port}" has no scheme: did you mean\\s+http://127\\.0\\.0\\.1:${port}\\?`));
    // The answer is edited as a person would: to the start of the line, the scheme typed there.
    await answer(pty, '\u0001http://\r', /Username \(account email\)/);
    await answer(pty, 'pty@example.com\r', PASSWORD_PROMPT);
    await answer(pty, 'wrong-1\r', new RegExp(`The service refused the password for pty@example\\.com[\\s\\S]*${PASSWORD_PROMPT.source}`));
    await answer(pty, 'wrong-2\r', new RegExp(`The service refused the password for pty@example\\.com[\\s\\S]*${PASSWORD_PROMPT.source}`));
    await answer(pty, `${GOOD}\r`, /Logged in to http:\/\/127\.0\.0\.1:\d+ as pty@example\.com; profile "default" is active/);
    expect(await pty.exited).toBe(0);
    // Three tries, the third accepted; nothing typed was lost on the way.
    expect(server!.requests.filter((r) => r.url === '/api/v1/tenants').map(authorized)).toEqual([false, false, true]);
    const file = join(dir, 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.default).toMatchObject({ baseUrl: `http://127.0.0.1:${port}`, username: 'pty@example.com', password: GOOD });
    // No password was echoed.
    expect(pty.text()).not.toMatch(/wrong-1|wrong-2|right-pa55/);
  }, 120_000);

  it('stops after the third refused password, storing nothing (exit 3)', async () => {
    const { dir, session: pty } = await loginOnTerminal();
    await pty.waitFor(/\(y\/N\)/);
    await answer(pty, 'y\r', /Base URL \(Enter for the local sandbox\)/);
    await answer(pty, `${server!.url}\r`, /Username/);
    await answer(pty, 'pty@example.com\r', PASSWORD_PROMPT);
    await answer(pty, 'wrong-1\r', new RegExp(`refused the password[\\s\\S]*${PASSWORD_PROMPT.source}`));
    await answer(pty, 'wrong-2\r', new RegExp(`refused the password[\\s\\S]*${PASSWORD_PROMPT.source}`));
    pty.write('wrong-3\r');
    expect(await pty.exited).toBe(3);
    expect(pty.text()).toMatch(/error: .*nothing was stored/);
    expect(server!.requests.length).toBe(3);
    expect(() => statSync(join(dir, 'config.json'))).toThrow();
  }, 120_000);

  it('declining the file (the default) stores nothing and asks nothing more', async () => {
    const { dir, session: pty } = await loginOnTerminal(false);
    await pty.waitFor(/\(y\/N\)/);
    pty.write('\r');
    expect(await pty.exited).toBe(1);
    expect(pty.text()).toContain('Nothing was stored: no keychain, and the profile file was declined');
    expect(pty.text()).not.toContain('Base URL');
    expect(() => statSync(join(dir, 'config.json'))).toThrow();
  }, 120_000);
});
