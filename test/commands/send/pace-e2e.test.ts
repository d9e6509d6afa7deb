import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, spawnCli } from '../../helpers/spawn.js';
import { startTestServer, type TestServer } from '../../helpers/http-server.js';
import { numbers, tempDir } from './helpers.js';

// The built CLI, killed with SIGKILL while it waits for its send window, then resumed inside the
// window: everyone is sent to once. Events only: the kill comes when the run says it waits.

const FROM = '+15551230000';
let server: TestServer | undefined;
let d: ReturnType<typeof tempDir> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  d?.cleanup();
  d = undefined;
});

const hh = (hour: number): string => String(((hour % 24) + 24) % 24).padStart(2, '0');

describe('svc send --window, killed during the pause', () => {
  it('resumed inside the window, sends to each recipient once', async () => {
    server = await startTestServer();
    const posts = new Map<string, number>();
    server.on('GET', `/api/v1/phone-numbers/${encodeURIComponent(FROM)}`, (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ number: FROM, settings: {} }));
    });
    server.on('POST', '/api/v1/messages', (req, res) => {
      const to = (JSON.parse(req.body) as { to: string[] }).to[0]!;
      posts.set(to, (posts.get(to) ?? 0) + 1);
      res.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ messageId: `m-${to}`, status: 'queued' }));
    });
    d = tempDir();
    const recipients = numbers(40);
    const file = d.file('to.txt', `${recipients.join('\n')}\n`);
    const journal = `${d.dir}/run.jsonl`;
    const env = { SVC_BASE_URL: server.url, SVC_USERNAME: 'user@example.com', SVC_PASSWORD: 'pa55-word', SVC_CONFIG_DIR: d.dir };
    const hour = new Date().getUTCHours();
    const base = ['send', '--from', FROM, '--to-file', file, '--body', 'Hi', '--async', '--journal', journal, '--tz', 'UTC', '-o', 'ndjson'];

    // A window two hours ahead: the run pauses at once; it is killed when it says so.
    const child = spawn(process.execPath, [BIN, ...base, '--window', `${hh(hour + 2)}:00-${hh(hour + 3)}:00`], {
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    const deadline = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, signal) => resolve(signal)));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      if (stderr.includes('outside the send window')) child.kill('SIGKILL');
    });
    expect(await exited).toBe('SIGKILL');
    clearTimeout(deadline);
    expect(stderr).toContain(`outside the send window ${hh(hour + 2)}:00-${hh(hour + 3)}:00 (UTC): waiting until`);
    expect(posts.size).toBe(0);
    expect(readFileSync(journal, 'utf8')).toContain('"type":"pause"');

    // Resumed with a window that holds the present hour.
    const resumed = await spawnCli([...base, '--window', `${hh(hour)}:00-${hh(hour + 2)}:00`, '--resume'], { env, timeoutMs: 60_000 });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect([...posts.keys()].sort()).toEqual([...recipients].sort());
    expect([...posts.values()].every((n) => n === 1)).toBe(true);
  }, 120_000);
});
