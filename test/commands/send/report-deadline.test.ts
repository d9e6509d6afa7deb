import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/clock.js';
import { InterruptedError } from '../../../src/errors.js';
import { sealRecord } from '../../../src/send/journal/format.js';
import { fakeClock, runCli } from '../../helpers/cli.js';
import { startTestServer, type TestServer } from '../../helpers/http-server.js';
import { spawnCli } from '../../helpers/spawn.js';
import { testDir } from './helpers.js';

// `svc send report` against a live loopback server that hangs or fails: --timeout (with or
// without --watch) ends the report at its deadline, cutting off the reads in flight (exit 5), and
// a report without --watch that could not read some statuses is incomplete (exit 1). Time is the
// injected clock's; the deadline is reached by advancing it when the server has seen the reads.

const FROM = '+15557770100';

/**
 * A clock that moves only when told: sleeps and timeouts end when advance() reaches them, or
 * (sleeps) when their signal aborts. `onSleep` sees each sleep as it starts.
 */
function manualClock(onSleep: (ms: number) => void = () => {}): Clock & { advance(ms: number): void } {
  let time = Date.parse('2026-01-01T00:00:00Z');
  const sleepers: { at: number; resolve: () => void }[] = [];
  const timers: { at: number; controller: AbortController }[] = [];
  const fireDue = (): void => {
    for (const timer of timers.filter((t) => t.at <= time)) {
      timers.splice(timers.indexOf(timer), 1);
      timer.controller.abort(new DOMException('The operation timed out.', 'TimeoutError'));
    }
    for (const sleeper of sleepers.filter((s) => s.at <= time)) {
      sleepers.splice(sleepers.indexOf(sleeper), 1);
      sleeper.resolve();
    }
  };
  return {
    now: () => time,
    monotonic: () => time,
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        if (signal?.aborted) {
          reject(new InterruptedError());
          return;
        }
        const sleeper = { at: time + ms, resolve };
        sleepers.push(sleeper);
        signal?.addEventListener(
          'abort',
          () => {
            const at = sleepers.indexOf(sleeper);
            if (at !== -1) sleepers.splice(at, 1);
            reject(new InterruptedError());
          },
          { once: true },
        );
        onSleep(ms);
      }),
    timeout: (ms) => {
      const controller = new AbortController();
      timers.push({ at: time + ms, controller });
      return controller.signal;
    },
    advance: (ms) => {
      time += ms;
      fireDue();
    },
  };
}

function journalOf(dir: string, ids: readonly string[]): string {
  const to = ids.map((_, i) => `+1415555${String(i).padStart(4, '0')}`);
  const lines = [
    sealRecord({
      journal: 'svc-send',
      version: 2,
      run: { from: FROM, body: 'sha256:00', recipients: 'sha256:11', recipientCount: ids.length, media: [] },
      created: '2026-01-01T00:00:00Z',
      svc: '0.1.0',
    }),
    ...ids.flatMap((id, i) => [
      sealRecord({ type: 'launch', seq: i + 1, to: [to[i]] }),
      sealRecord({ type: 'result', seq: i + 1, to: [to[i]], outcome: 'accepted', messageId: id, at: '2026-01-01T00:00:01Z' }),
    ]),
  ];
  const path = join(dir, 'run.jsonl');
  writeFileSync(path, lines.join(''));
  return path;
}

interface Report {
  statuses: Record<string, number>;
  unread: number;
  final: boolean;
  reads: number;
}

let server: TestServer;
beforeEach(async () => {
  server = await startTestServer();
});
afterEach(async () => {
  await server.close();
});

const envOf = (dir: string): Record<string, string> => ({
  SVC_BASE_URL: server.url,
  SVC_USERNAME: 'user@example.com',
  SVC_PASSWORD: 'pa55-word',
  SVC_DATA_DIR: join(dir, 'data'),
});

// Without the fix these runs outlast the per-request timeout and its retries (about 2 min): this
// limit only ends such a hung run sooner; nothing here measures time.
const HUNG = 30_000;

describe('svc send report --timeout against a server that never answers', () => {
  const hangOnce = (ids: readonly string[], then: () => void): void => {
    let arrived = 0;
    server.on('GET', /^\/api\/v1\/messages\//, () => {
      // Never answered; once every read is in flight, time reaches the deadline.
      arrived++;
      if (arrived === ids.length) then();
    });
  };

  it('without --watch: the reads in flight are cut off at the deadline, the report as far as it got, exit 5', async () => {
    const d = testDir();
    const ids = ['m1', 'm2', 'm3'];
    const journal = journalOf(d.dir, ids);
    const clock = manualClock();
    hangOnce(ids, () => clock.advance(5000));
    const run = await runCli(['send', 'report', '--journal', journal, '--timeout', '5', '--json'], { env: envOf(d.dir), clock });
    expect(run.code, run.stderr).toBe(5);
    expect(run.stderr).toContain('--timeout 5 s ran out: the status of 3 of 3 messages not read');
    const report = JSON.parse(run.stdout) as Report;
    expect(report.statuses['unknown']).toBe(3);
    expect(report.unread).toBe(3);
    expect(report.final).toBe(false);
    expect(server.requests).toHaveLength(3);
  }, HUNG);

  it('with --watch: the first round\'s reads in flight are cut off at the deadline, exit 5', async () => {
    const d = testDir();
    const ids = ['m1', 'm2'];
    const journal = journalOf(d.dir, ids);
    const clock = manualClock();
    hangOnce(ids, () => clock.advance(5000));
    const run = await runCli(['send', 'report', '--journal', journal, '--watch', '--timeout', '5', '--json'], { env: envOf(d.dir), clock });
    expect(run.code, run.stderr).toBe(5);
    expect(run.stderr).toContain('--watch timed out: 2 messages not yet delivered or failed');
    expect((JSON.parse(run.stdout) as Report).statuses['unknown']).toBe(2);
  }, HUNG);

  it('the built svc, on the real clock, ends at a short --watch deadline with the reads still in flight: exit 5', async () => {
    const d = testDir();
    const journal = journalOf(d.dir, ['m1']);
    server.on('GET', '/api/v1/messages/m1', () => {
      // Never answered.
    });
    // Killed after 20 s (code null) if it outlasts its deadline: nothing is measured.
    const run = await spawnCli(['send', 'report', '--journal', journal, '--watch', '--timeout', '0.3', '--json'], { env: { ...envOf(d.dir), SVC_CONFIG_DIR: d.dir }, timeoutMs: 20_000 });
    expect(run.code, run.stderr).toBe(5);
    expect(run.stderr).toContain('--watch timed out: 1 message not yet delivered or failed');
    expect((JSON.parse(run.stdout) as Report).statuses['unknown']).toBe(1);
  }, HUNG);

  it('a retry waiting out a Retry-After is cut off at the deadline too', async () => {
    const d = testDir();
    const journal = journalOf(d.dir, ['m1']);
    // The client waits Retry-After (20 s) before its second attempt: the deadline (5 s) ends that wait.
    const clock = manualClock((ms) => {
      if (ms >= 20_000) clock.advance(5000);
    });
    server.on('GET', '/api/v1/messages/m1', (_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '20' }).end(JSON.stringify({ message: 'busy', title: 'Service Unavailable' }));
    });
    const run = await runCli(['send', 'report', '--journal', journal, '--timeout', '5', '--json'], { env: envOf(d.dir), clock });
    expect(run.code, run.stderr).toBe(5);
    expect(run.stderr).toContain('--timeout 5 s ran out: the status of 1 of 1 message not read');
    expect(server.requests).toHaveLength(1);
  }, HUNG);
});

describe('svc send report when status reads fail', () => {
  const resetEvery = (): void => {
    server.on('GET', /^\/api\/v1\/messages\//, (_req, res) => {
      res.socket?.destroy();
    });
  };

  it('without --watch: statuses it could not read make the report incomplete, exit 1 with how many', async () => {
    const d = testDir();
    const journal = journalOf(d.dir, ['m1', 'm2']);
    resetEvery();
    const run = await runCli(['send', 'report', '--journal', journal, '--json'], { env: envOf(d.dir), clock: fakeClock() });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain('the status of 2 of 2 messages could not be read');
    const report = JSON.parse(run.stdout) as Report;
    expect(report.unread).toBe(2);
    expect(report.statuses['unknown']).toBe(2);
    const text = await runCli(['send', 'report', '--journal', journal], { env: envOf(d.dir), clock: fakeClock() });
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('2 could not be read, counted unknown');
  });

  it('with --watch: reads again each round until the deadline, then exit 5', async () => {
    const d = testDir();
    const journal = journalOf(d.dir, ['m1']);
    resetEvery();
    const clock = fakeClock();
    const run = await runCli(['send', 'report', '--journal', journal, '--watch', '--timeout', '6', '--json'], { env: envOf(d.dir), clock });
    expect(run.code, run.stderr).toBe(5);
    expect(run.stderr).toContain('--watch timed out: 1 message not yet delivered or failed');
    // Every round read it again (each read is the client's four attempts).
    expect(server.requests.length).toBeGreaterThan(4);
  });
});
