import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN } from '../../helpers/spawn.js';

// End to end: the built CLI sends to a few thousand recipients through a local server that
// fails some requests (500, 503), drops some connections before answering (some after accepting),
// and is killed part way; resuming from the journal reaches everyone, and nobody whose accepted
// answer was journaled is sent to again.

const RECIPIENTS = 3000;
const FROM = '+15551230000';

interface FlakyServer {
  url: string;
  /** Requests seen per recipient, across runs. */
  seen: Map<string, number>;
  /** Acceptances per recipient, across runs. */
  accepted: Map<string, number>;
  received: number;
  /** Recipients of requests in the current run (reset by the test between runs). */
  runRecipients: string[];
  close(): Promise<void>;
}

/** Deterministic faults by request: the first attempt for a recipient may fail; later ones pass. */
async function startFlakyServer(): Promise<FlakyServer> {
  const sockets = new Set<Socket>();
  const state: FlakyServer = {
    url: '',
    seen: new Map(),
    accepted: new Map(),
    received: 0,
    runRecipients: [],
    close: async () => {},
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.startsWith('/api/v1/messages')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"no route"}');
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { to: string[] };
      const to = body.to[0]!;
      state.received++;
      state.runRecipients.push(to);
      const attempt = (state.seen.get(to) ?? 0) + 1;
      state.seen.set(to, attempt);
      const n = Number(to.slice(-4));
      const firstTry = attempt === 1;
      const respond = (): void => {
        if (firstTry && n % 41 === 7) {
          res.writeHead(500, { 'content-type': 'application/json' }).end('{"message":"internal error","errorCode":"INTERNAL"}');
        } else if (firstTry && n % 37 === 5) {
          res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' }).end('{"message":"busy","errorCode":"RATE_LIMITED"}');
        } else if (firstTry && n % 43 === 11) {
          // Dropped before the message was accepted.
          req.socket.destroy();
        } else if (firstTry && n % 47 === 13) {
          // Accepted, then the connection dropped: the client cannot know (outcome unknown).
          state.accepted.set(to, (state.accepted.get(to) ?? 0) + 1);
          req.socket.destroy();
        } else {
          state.accepted.set(to, (state.accepted.get(to) ?? 0) + 1);
          res.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ messageId: `m-${to}-${attempt}`, status: 'queued', queuedAt: '2026-01-01T00:00:00Z' }));
        }
      };
      // A little latency so that requests are in flight when the process is killed.
      setTimeout(respond, n % 3);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
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

interface Run {
  child: ChildProcess;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

function startCli(args: string[], env: Record<string, string>): Run {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  child.stdin!.end();
  const timer = setTimeout(() => child.kill('SIGKILL'), 25_000);
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return { child, done };
}

async function until(condition: () => boolean, what: string, limitMs = 20_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > limitMs) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

interface JournalLine {
  to: string[];
  outcome: 'accepted' | 'rejected' | 'unknown';
}

function readJournalLines(path: string): JournalLine[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as JournalLine];
      } catch {
        return []; // a line torn by SIGKILL
      }
    });
}

let server: FlakyServer | undefined;
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

describe('bulk send end to end', () => {
  it('killed with SIGKILL part way, then resumed: everyone reached, nobody sent again after an accepted answer was journaled', async () => {
    server = await startFlakyServer();
    const { file, journal, env, list } = setup();
    const args = ['send', '--from', FROM, '--to-file', file, '--body', 'Hello {{name}}', '--async', '--concurrency', '16', '--journal', journal, '-o', 'ndjson', '--yes'];

    const first = startCli(args, env);
    await until(() => server!.received >= 1000, 'the first run to send 1000 requests');
    first.child.kill('SIGKILL');
    const killed = await first.done;
    expect(killed.signal).toBe('SIGKILL');
    expect(server.received).toBeLessThan(RECIPIENTS);

    // Within one run, nobody was sent to twice (a POST is never retried once it may have gone out).
    expect(new Set(server.runRecipients).size).toBe(server.runRecipients.length);
    const journaledAccepted = new Set(readJournalLines(journal).filter((l) => l.outcome === 'accepted').flatMap((l) => l.to));
    expect(journaledAccepted.size).toBeGreaterThan(500);

    let rounds = 0;
    let last: Awaited<Run['done']> | undefined;
    do {
      server.runRecipients = [];
      const resumed = startCli([...args, '--resume'], env);
      last = await resumed.done;
      rounds++;
      // The safety property: nobody whose acceptance was journaled is sent to again.
      const again = server.runRecipients.filter((to) => journaledAccepted.has(to));
      expect(again).toEqual([]);
      expect(new Set(server.runRecipients).size).toBe(server.runRecipients.length);
      for (const line of readJournalLines(journal)) if (line.outcome === 'accepted') for (const to of line.to) journaledAccepted.add(to);
    } while (last.code !== 0 && rounds < 4);

    expect(last.code).toBe(0);
    expect(last.stderr).toMatch(/Resuming from .*: \d+ recipients already accepted are skipped/);
    // Everyone was reached, and the journal shows everyone accepted.
    for (const to of list) expect(server.accepted.get(to) ?? 0, to).toBeGreaterThanOrEqual(1);
    expect(journaledAccepted.size).toBe(RECIPIENTS);
    // Twice only where the first acceptance never made it into the journal (a dropped answer or the kill).
    const twice = list.filter((to) => (server!.accepted.get(to) ?? 0) > 1);
    expect(twice.length).toBeLessThan(150);
  }, 60_000);

  it('on SIGINT stops launching, journals every answer in flight, and exits 130', async () => {
    server = await startFlakyServer();
    const { file, journal, env } = setup();
    const run = startCli(['send', '--from', FROM, '--to-file', file, '--body', 'Hi', '--async', '--concurrency', '8', '--journal', journal, '--json', '--yes'], env);
    await until(() => server!.received >= 500, 'the run to send 500 requests');
    run.child.kill('SIGINT');
    const result = await run.done;
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('Interrupted after');
    const lines = readJournalLines(journal);
    // Every request the server saw has its line: an answer, or `unknown` for a dropped connection.
    expect(lines.map((l) => l.to[0]).sort()).toEqual([...server.runRecipients].sort());
    expect(server.received).toBeLessThan(RECIPIENTS);
    const out = JSON.parse(result.stdout) as unknown[];
    expect(out).toHaveLength(lines.length);
  }, 40_000);
});
