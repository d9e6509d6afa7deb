import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, spawnCli } from '../../helpers/spawn.js';
import { startTestServer, type TestServer } from '../../helpers/http-server.js';
import { numbers, tempDir } from './helpers.js';

// The send journal as a file two processes and a full disk meet: a second run on one journal is
// refused while the first runs (nobody is sent to twice), a killed run leaves no stuck lock, and a
// journal that cannot be written stops the run naming it, with nothing lost for --resume.

const FROM = '+15551230000';
let server: TestServer | undefined;
let d: ReturnType<typeof tempDir> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  d?.cleanup();
  d = undefined;
});

/** The number's settings, read once before a bulk send (its rate limit). */
function numberRoute(): void {
  server!.on('GET', `/api/v1/phone-numbers/${encodeURIComponent(FROM)}`, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ number: FROM, settings: {} }));
  });
}

/** A service whose POST /messages answers wait until `release()`; `arrived` resolves at the first request. */
async function holdingServer(): Promise<{ posts: Map<string, number>; arrived: Promise<void>; release: () => void }> {
  server = await startTestServer();
  numberRoute();
  const posts = new Map<string, number>();
  let release = (): void => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  let arrive = (): void => undefined;
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  let holding = true;
  void released.then(() => (holding = false));
  server.on('POST', '/api/v1/messages', async (req, res) => {
    const to = (JSON.parse(req.body) as { to: string[] }).to[0]!;
    posts.set(to, (posts.get(to) ?? 0) + 1);
    arrive();
    if (holding) await released;
    res.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ messageId: `m-${to}`, status: 'queued' }));
  });
  return { posts, arrived, release };
}

function envFor(dir: string): Record<string, string> {
  return { SVC_BASE_URL: server!.url, SVC_USERNAME: 'user@example.com', SVC_PASSWORD: 'pa55-word', SVC_CONFIG_DIR: dir };
}

function start(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdout.resume();
  const deadline = setTimeout(() => child.kill('SIGKILL'), 90_000);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(deadline);
      resolve({ code, signal, stderr });
    }),
  );
  return { child, exited };
}

describe('svc send --journal: one run at a time', () => {
  it('a second run (and a second --resume) on a journal in use is refused naming the holder; everyone is sent to once', async () => {
    const { posts, arrived, release } = await holdingServer();
    d = tempDir();
    const recipients = numbers(6);
    const file = d.file('to.txt', `${recipients.join('\n')}\n`);
    const journal = `${d.dir}/run.jsonl`;
    const env = envFor(d.dir);
    const base = ['send', '--from', FROM, '--to-file', file, '--body', 'Hi', '--async', '--journal', journal, '--no-store', '--concurrency', '1'];
    const first = start(base, env);
    await arrived;
    for (const extra of [[], ['--resume', '--unknown', 'resend']]) {
      const second = await spawnCli([...base, ...extra], { env, timeoutMs: 60_000 });
      expect(second.code, second.stderr).toBe(1);
      expect(second.stderr).toContain(`The journal ${journal} is in use by another svc: process ${first.child.pid} (svc send)`);
      expect(second.stderr).toContain('Nothing was sent');
    }
    release();
    const ended = await first.exited;
    expect(ended.code, ended.stderr).toBe(0);
    expect([...posts.keys()].sort()).toEqual([...recipients].sort());
    expect([...posts.values()].every((n) => n === 1)).toBe(true);
    expect(existsSync(`${journal}.lock`)).toBe(false);
  }, 120_000);

  it('a run killed mid-send leaves no stuck lock: --resume takes over and sends to the rest', async () => {
    const { posts, arrived, release } = await holdingServer();
    d = tempDir();
    const recipients = numbers(5);
    const file = d.file('to.txt', `${recipients.join('\n')}\n`);
    const journal = `${d.dir}/run.jsonl`;
    const env = envFor(d.dir);
    const base = ['send', '--from', FROM, '--to-file', file, '--body', 'Hi', '--async', '--journal', journal, '--no-store', '--concurrency', '1'];
    const first = start(base, env);
    await arrived;
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    expect(existsSync(`${journal}.lock`)).toBe(true);
    release();
    // The one in flight when it died is unknown: sent again by choice.
    const resumed = await spawnCli([...base, '--resume', '--unknown', 'resend'], { env, timeoutMs: 60_000 });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect([...posts.keys()].sort()).toEqual([...recipients].sort());
    expect(existsSync(`${journal}.lock`)).toBe(false);
  }, 120_000);
});

describe('svc send --journal on a full disk', () => {
  it('stops naming the journal (exit 1) and --resume, once there is room, sends to everyone left once', async () => {
    server = await startTestServer();
    numberRoute();
    const posts = new Map<string, number>();
    server.on('POST', '/api/v1/messages', (req, res) => {
      const to = (JSON.parse(req.body) as { to: string[] }).to[0]!;
      posts.set(to, (posts.get(to) ?? 0) + 1);
      res.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ messageId: `m-${to}`, status: 'queued' }));
    });
    d = tempDir();
    const recipients = numbers(80);
    const file = d.file('to.txt', `${recipients.join('\n')}\n`);
    const journal = `${d.dir}/run.jsonl`;
    const env = envFor(d.dir);
    const base = ['send', '--from', FROM, '--to-file', file, '--body', 'Hi', '--async', '--journal', journal, '--no-store', '--concurrency', '4'];
    // 8 blocks of 512 bytes: the header and a few dozen records fit, the rest does not.
    const full = await spawnCli(base, { env, fileSizeBlocks: 8, timeoutMs: 60_000 });
    expect(full.code, full.stderr).toBe(1);
    expect(full.stderr).toContain(`Cannot write the journal ${journal}: the file would grow past the size this process may write (EFBIG`);
    expect(full.stderr).toContain('--resume');
    expect(full.stderr).not.toContain('Unexpected error');
    const sentBefore = posts.size;
    expect(sentBefore).toBeGreaterThan(0);
    expect(sentBefore).toBeLessThan(recipients.length);
    expect(readFileSync(journal).length).toBeLessThanOrEqual(8 * 512);

    const resumed = await spawnCli([...base, '--resume', '--unknown', 'skip'], { env, timeoutMs: 60_000 });
    expect(resumed.code, resumed.stderr).toBe(0);
    // Accepted ones are not sent again; those in flight when the journal failed were skipped by choice.
    expect([...posts.values()].every((n) => n === 1)).toBe(true);
    expect(posts.size).toBeGreaterThanOrEqual(recipients.length - 4);
  }, 120_000);
});
