import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnCli } from '../../helpers/spawn.js';
import { journalRecords, numbers, tempDir } from './helpers.js';

// The built CLI sending to 500 recipients while the service goes away: the server stops (and
// drops its connections) when the 100th message arrives. The run stops after a few connection
// failures instead of trying everyone, says how to resume, and the resume, against the service
// back on the same port, sends to nobody twice.

const FROM = '+15551230000';

interface Service {
  server: Server;
  sockets: Set<Socket>;
  posts: Map<string, number>;
}

function service(posts: Map<string, number>, stopAt: number | undefined): Service {
  const sockets = new Set<Socket>();
  let count = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ number: FROM, settings: {} }));
        return;
      }
      const to = (JSON.parse(body) as { to: string[] }).to[0]!;
      posts.set(to, (posts.get(to) ?? 0) + 1);
      if (++count === stopAt) {
        // Gone: no answer to this one, nothing listening, every open connection dropped.
        server.close();
        for (const socket of sockets) socket.destroy();
        return;
      }
      res.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ messageId: `m-${to}`, status: 'queued' }));
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  return { server, sockets, posts };
}

function listen(s: Service, port: number): Promise<number> {
  return new Promise((resolve) => s.server.listen(port, '127.0.0.1', () => resolve((s.server.address() as AddressInfo).port)));
}

const open: Service[] = [];
let d: ReturnType<typeof tempDir> | undefined;
afterEach(() => {
  for (const s of open.splice(0)) {
    s.server.close();
    for (const socket of s.sockets) socket.destroy();
  }
  d?.cleanup();
  d = undefined;
});

describe('svc send --to-file, the service gone mid-run', () => {
  it('stops after a few connection failures, exits 1 with the --resume line, and resumes without doubles', async () => {
    const posts = new Map<string, number>();
    const first = service(posts, 100);
    open.push(first);
    const port = await listen(first, 0);
    d = tempDir();
    const recipients = numbers(500);
    const file = d.file('to.txt', `${recipients.join('\n')}\n`);
    const journal = `${d.dir}/run.jsonl`;
    const env = { SVC_BASE_URL: `http://127.0.0.1:${port}`, SVC_USERNAME: 'user@example.com', SVC_PASSWORD: 'pa55-word', SVC_CONFIG_DIR: d.dir };
    const base = ['send', '--from', FROM, '--to-file', file, '--body', 'Hi', '--async', '--journal', journal, '-o', 'ndjson', '--yes', '--concurrency', '1'];

    const run = await spawnCli(base, { env, timeoutMs: 90_000 });
    expect(run.code, run.stderr).toBe(1);
    // A handful of failures (the ones in flight and the few in a row), not one line per recipient left.
    const failures = run.stdout.split('\n').filter((line) => line.includes('"error"'));
    expect(failures.length, run.stdout).toBeLessThanOrEqual(5);
    expect(run.stderr).toMatch(/Stopped: the service could not be reached 5 times in a row \(/);
    expect(run.stderr).toContain(`run the same command with --resume`);
    expect(run.stderr).toContain(`(journal: ${journal})`);

    const results = (await journalRecords(journal)).filter((r) => 'outcome' in r) as unknown as { to: string[]; outcome: string }[];
    const accepted = new Set(results.filter((r) => r.outcome === 'accepted').map((r) => r.to[0]!));
    const unknown = new Set(results.filter((r) => r.outcome === 'unknown').map((r) => r.to[0]!));
    expect(accepted.size).toBe(99);
    // The 100th reached the server and got no answer: unknown, not rejected.
    expect([...unknown]).toEqual([recipients[99]]);
    expect(results.length).toBe(104);
    // Refused before the request left: rejected, and indeed never seen by the service.
    const rejected = results.filter((x) => x.outcome === 'rejected');
    expect(rejected).toHaveLength(4);
    for (const r of rejected) expect(posts.has(r.to[0]!)).toBe(false);

    // Back on the same port: the resume skips the accepted, and the unknown by choice.
    first.server.close();
    const second = service(posts, undefined);
    open.push(second);
    await listen(second, port);
    const resumed = await spawnCli([...base, '--resume', '--unknown', 'skip'], { env, timeoutMs: 90_000 });
    expect(resumed.code, resumed.stderr).toBe(0);
    for (const to of recipients) {
      const expected = unknown.has(to) ? [0, 1] : [1];
      expect(expected, `${to} was posted ${posts.get(to) ?? 0} times`).toContain(posts.get(to) ?? 0);
    }
  }, 200_000);
});
