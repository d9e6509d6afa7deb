import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readJournal, type JournalState } from '../../../src/send/journal/replay.js';
import { BIN } from '../../helpers/spawn.js';
import { testDataDir } from '../../helpers/spawn.js';

// End to end: the built CLI sends to 2,000 recipients through a live loopback server that counts
// every POST, fails some first attempts (500), and drops some connections after accepting (the
// outcome is unknown). The process is stopped by SIGTERM, SIGHUP or SIGKILL at a random POST (the
// server sends the signal when it has seen that many, so nothing depends on timing), then resumed
// with --unknown skip and with --unknown resend. Invariants: every POST the server saw was
// journaled before it left; nobody whose acceptance was journaled is sent again; the ones in
// flight are reported unknown; nobody is lost; duplicates happen only by the user's choice.

const RECIPIENTS = 2000;
const FROM = '+15551230000';

interface CountingServer {
  url: string;
  /** POSTs per recipient, across runs. */
  posts: Map<string, number>;
  /** Acceptances per recipient (including those whose connection was then dropped). */
  accepted: Map<string, number>;
  /** Recipients posted in the current run (reset between runs). */
  runPosts: string[];
  /** Called with the running total after each POST arrives. */
  onPost: ((total: number) => void) | undefined;
  /** Whether first attempts may fail (a 500, or accepted and then dropped). */
  faults: boolean;
  total: number;
  /** The most connections open at once, and how many were opened in all. */
  maxOpen: number;
  opened: number;
  close(): Promise<void>;
}

async function startCountingServer(): Promise<CountingServer> {
  const sockets = new Set<Socket>();
  const state: CountingServer = { url: '', posts: new Map(), accepted: new Map(), runPosts: [], onPost: undefined, faults: true, total: 0, maxOpen: 0, opened: 0, close: async () => {} };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.startsWith('/api/v1/messages')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"no route"}');
        return;
      }
      const to = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { to: string[] }).to[0]!;
      const attempt = (state.posts.get(to) ?? 0) + 1;
      state.posts.set(to, attempt);
      state.runPosts.push(to);
      state.total++;
      const n = Number(to.slice(-4));
      const respond = (): void => {
        if (state.faults && attempt === 1 && n % 41 === 7) {
          res.writeHead(500, { 'content-type': 'application/json' }).end('{"message":"internal error"}');
          return;
        }
        state.accepted.set(to, (state.accepted.get(to) ?? 0) + 1);
        if (state.faults && attempt === 1 && n % 47 === 13) {
          // Accepted, then the connection dropped: the client cannot know.
          req.socket.destroy();
          return;
        }
        res.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ messageId: `m-${to}-${attempt}`, status: 'queued' }));
      };
      // Some answers wait a turn, so that requests are in flight when the signal comes.
      if (n % 3 === 0) setImmediate(respond);
      else respond();
      state.onPost?.(state.total);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    state.opened++;
    state.maxOpen = Math.max(state.maxOpen, sockets.size);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return state;
}

interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function startCli(args: string[], env: Record<string, string>, options: { shell?: string } = {}): { child: ChildProcess; done: Promise<Finished> } {
  const base = { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', SVC_DATA_DIR: testDataDir(), ...env };
  const child =
    options.shell !== undefined
      ? spawn('bash', ['-c', options.shell], { env: { ...base, NODE: process.execPath, SVC_BIN: BIN }, stdio: ['pipe', 'pipe', 'pipe'] })
      : spawn(process.execPath, [BIN, ...args], { env: base, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  child.stdin!.end();
  // A generous deadline: only a hung process ever reaches it. (The four runs of the SIGKILL case
  // took 44 s together in a full run at a load average over 20; one run is bounded well apart.)
  const deadline = setTimeout(() => child.kill('SIGKILL'), 100_000);
  const done = new Promise<Finished>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(deadline);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return { child, done };
}

let server: CountingServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function setup(): { file: string; journal: string; env: Record<string, string>; list: string[] } {
  dir = mkdtempSync(join(tmpdir(), 'svc-bulk-e2e-'));
  const list = Array.from({ length: RECIPIENTS }, (_, i) => `+1555701${String(i).padStart(4, '0')}`);
  const file = join(dir, 'to.csv');
  writeFileSync(file, `phone,name\n${list.map((to, i) => `${to},Person ${i}`).join('\n')}\n`);
  return {
    file,
    journal: join(dir, 'run.jsonl'),
    list,
    env: { SVC_BASE_URL: server!.url, SVC_USERNAME: 'bulk@example.com', SVC_PASSWORD: 'bulk-secret', SVC_CONFIG_DIR: dir },
  };
}

function acceptedIn(state: JournalState, list: readonly string[]): Set<string> {
  return new Set(list.filter((to) => state.stateOf(to) === 'accepted'));
}

describe.each([
  ['SIGTERM', 143],
  ['SIGHUP', 129],
  ['SIGKILL', null],
] as const)('a 2,000-recipient send stopped by %s at a random POST, then resumed', (signal, exitCode) => {
  it('journals every POST before it left, never resends a journaled acceptance, reports the in-flight ones unknown, loses nobody', async () => {
    server = await startCountingServer();
    const { file, journal, env, list } = setup();
    const args = ['send', '--from', FROM, '--to-file', file, '--body', 'Hello {{name}}', '--async', '--concurrency', '16', '--journal', journal, '-o', 'ndjson', '--yes'];
    const killAt = 200 + Math.floor(Math.random() * 1300);

    const first = startCli(args, env);
    server.onPost = (total) => {
      if (total === killAt) first.child.kill(signal);
    };
    const stopped = await first.done;
    server.onPost = undefined;
    if (exitCode === null) expect(stopped.signal, `killed at POST ${killAt}`).toBe('SIGKILL');
    else {
      expect(stopped.code, `${signal} at POST ${killAt}: ${stopped.stderr}`).toBe(exitCode);
      expect(stopped.stderr).toContain('Interrupted after');
    }
    expect(server.total).toBeLessThan(RECIPIENTS);

    const state = await readJournal(journal);
    // Write-ahead: every recipient the server saw is in the journal.
    for (const to of server.runPosts) expect(state.stateOf(to), to).toBeDefined();
    // After SIGTERM and SIGHUP the answers in flight were awaited and journaled.
    if (exitCode !== null) expect(state.counts.inFlight).toBe(0);
    const journaled = acceptedIn(state, list);
    for (const to of journaled) expect(server.accepted.get(to) ?? 0).toBeGreaterThanOrEqual(1);
    const unknown = list.filter((to) => state.stateOf(to) === 'unknown');
    // Those the server answered in part (accepted, then dropped) and those in flight are unknown, not lost.
    for (const to of server.runPosts) if (!journaled.has(to) && (server.accepted.get(to) ?? 0) > 0) expect(unknown, to).toContain(to);

    if (unknown.length > 0) {
      const undecided = await startCli([...args, '--resume'], env).done;
      expect(undecided.code).toBe(2);
      expect(undecided.stderr).toContain(`${unknown.length} recipient${unknown.length === 1 ? ' has' : 's have'} an unknown outcome`);
      expect(undecided.stderr).toContain('--unknown resend');
    }

    // --unknown skip: nobody journaled as accepted or unknown is sent.
    server.runPosts = [];
    const skipped = await startCli([...args, '--resume', '--unknown', 'skip'], env).done;
    expect([0, 6]).toContain(skipped.code);
    for (const to of server.runPosts) {
      expect(journaled.has(to), `${to} was accepted before`).toBe(false);
      expect(unknown.includes(to), `${to} was unknown and skipped`).toBe(false);
    }
    expect(new Set(server.runPosts).size).toBe(server.runPosts.length);

    // --unknown resend: the unknown ones (and any new unknown) go again, by choice; nobody accepted does.
    const afterSkip = await readJournal(journal);
    const acceptedNow = acceptedIn(afterSkip, list);
    const unknownNow = new Set(list.filter((to) => afterSkip.stateOf(to) === 'unknown'));
    // A recipient journaled in flight when SIGKILL came may never have reached the server: its
    // first attempt then comes in this run, and a fault on it (a 500: rejected; a drop: unknown)
    // would be a new, correctly reported failure, not a resend. So this run meets no faults, and
    // everyone must end accepted.
    server.faults = false;
    server.runPosts = [];
    const resent = await startCli([...args, '--resume', '--unknown', 'resend'], env).done;
    expect(resent.code, resent.stderr).toBe(0);
    for (const to of server.runPosts) expect(acceptedNow.has(to), `${to} was accepted before`).toBe(false);

    const final = await readJournal(journal);
    expect(final.counts).toMatchObject({ accepted: RECIPIENTS, unknown: 0, rejected: 0 });
    // Nobody lost; twice only where the user chose to resend an unknown outcome.
    for (const to of list) expect(server.accepted.get(to) ?? 0, to).toBeGreaterThanOrEqual(1);
    const twice = list.filter((to) => (server!.accepted.get(to) ?? 0) > 1);
    for (const to of twice) expect(unknownNow.has(to) || unknown.includes(to), `${to} was sent twice without a choice`).toBe(true);
  }, 400_000);
});

describe('--concurrency', () => {
  it('is the most connections the send opens to the service, however fast the answers come', async () => {
    server = await startCountingServer();
    server.faults = false;
    const { file, env, list } = setup();
    const result = await startCli(['send', '--from', FROM, '--to-file', file, '--body', 'Hello {{name}}', '--async', '--concurrency', '4', '-o', 'ndjson', '--yes'], env).done;
    expect(result.code, result.stderr).toBe(0);
    expect(server.total).toBe(list.length);
    expect(server.maxOpen).toBeLessThanOrEqual(4);
    expect(server.opened).toBeLessThanOrEqual(4);
  }, 120_000);
});

/** 30 numbers the server answers plainly (no 500, no dropped connection). */
function faultless(prefix: string): string[] {
  return Array.from({ length: 60 }, (_, n) => n)
    .filter((n) => n % 41 !== 7 && n % 47 !== 13)
    .slice(0, 30)
    .map((n) => `+1555${prefix}${String(n).padStart(4, '0')}`);
}

describe('recipients from a pipe, a FIFO and a process substitution', () => {
  const expectEachOnce = (result: Finished, list: readonly string[]): void => {
    expect(result.code, result.stderr).toBe(0);
    expect([...server!.posts.keys()].sort()).toEqual([...list].sort());
    expect([...server!.posts.values()].every((n) => n === 1)).toBe(true);
  };

  it('svc send --to-file /dev/stdin fed by a shell pipe sends to each recipient once', async () => {
    server = await startCountingServer();
    const { file, env } = setup();
    const list = faultless('702');
    writeFileSync(file, `${list.join('\n')}\n`);
    const result = await startCli([], env, { shell: `cat ${JSON.stringify(file)} | "$NODE" "$SVC_BIN" send --from ${FROM} --to-file /dev/stdin --body hi --json` }).done;
    expectEachOnce(result, list);
  });

  it('--to-file <(...) sends to each recipient once', async () => {
    server = await startCountingServer();
    const { file, env } = setup();
    const list = faultless('703');
    writeFileSync(file, `phone,name\n${list.map((to) => `${to},X`).join('\n')}\n`);
    const result = await startCli([], env, { shell: `"$NODE" "$SVC_BIN" send --from ${FROM} --to-file <(cat ${JSON.stringify(file)}) --body 'hi {{name}}' --json` }).done;
    expectEachOnce(result, list);
  });

  it('a FIFO as --to-file is read once, checked whole, and a bad line in it sends nothing', async () => {
    server = await startCountingServer();
    const { env } = setup();
    const list = faultless('704');
    const fifo = join(dir!, 'to.fifo');
    execFileSync('mkfifo', [fifo]);
    const bad = startCli(['send', '--from', FROM, '--to-file', fifo, '--body', 'hi', '--json'], env);
    await writeFile(fifo, `${list.join('\n')}\nnot-a-number\n`);
    const refused = await bad.done;
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${fifo}:31: \\"not-a-number\\" is not an E.164 number`);
    expect(server.total).toBe(0);

    const good = startCli(['send', '--from', FROM, '--to-file', fifo, '--body', 'hi', '--json'], env);
    await writeFile(fifo, `${list.join('\n')}\n`);
    expectEachOnce(await good.done, list);
  });
});
