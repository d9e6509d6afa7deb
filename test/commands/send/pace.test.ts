import { readFileSync, rmSync } from 'node:fs';
import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/clock.js';
import { fakeClock, runCli } from '../../helpers/cli.js';
import { MOCK_ENV, MOCK_ORIGIN } from '../../helpers/mock-api.js';
import { dropResultsFor, numbers, PNG_BYTES, testDir } from './helpers.js';

// Bulk sends at the service's pace: throttling, --max-stall, --rate and the number's
// rateLimit, --window with --tz, --exclude-file and --shard. In-process against an undici
// MockAgent whose answers are computed per request, with the injected clock: every wait is the
// clock's, so the tests never sleep and never time anything.

const FROM = '+15551230000';

interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

interface Service {
  agent: MockAgent;
  /** Every POST /messages: its (first) recipient, all of them, and the clock's time when it left. */
  posts: { to: string; recipients: string[]; at: number }[];
  /** GETs of the from-number. */
  numberReads: number;
  close(): Promise<void>;
}

/** The service: `answer` decides each POST from its recipient and how often that one came. */
function service(clock: Clock, answer: (to: string, attempt: number, index: number) => Answer, number: Answer = { status: 200, body: { number: FROM, settings: {} } }): Service {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const pool = agent.get(MOCK_ORIGIN);
  const posts: Service['posts'] = [];
  const attempts = new Map<string, number>();
  const result: Service = { agent, posts, numberReads: 0, close: () => agent.close() };
  pool
    .intercept({ method: 'GET', path: `/api/v1/phone-numbers/${encodeURIComponent(FROM)}` })
    .reply(() => {
      result.numberReads++;
      return { statusCode: number.status, data: JSON.stringify(number.body ?? {}), responseOptions: { headers: { 'content-type': 'application/json', ...number.headers } } };
    })
    .persist();
  pool
    .intercept({ method: 'POST', path: (path) => path.startsWith('/api/v1/messages?') })
    .reply((options) => {
      const recipients = (JSON.parse(String(options.body)) as { to: string[] }).to;
      const to = recipients[0]!;
      const attempt = (attempts.get(to) ?? 0) + 1;
      attempts.set(to, attempt);
      posts.push({ to, recipients, at: clock.now() });
      const a = answer(to, attempt, posts.length - 1);
      return {
        statusCode: a.status,
        data: a.body === undefined ? '' : JSON.stringify(a.body),
        responseOptions: { headers: { 'content-type': 'application/json', ...a.headers } },
      };
    })
    .persist();
  return result;
}

const queued = (to: string): Answer => ({ status: 202, body: { messageId: `m-${to}`, status: 'queued', queuedAt: '2026-01-01T00:00:00Z' } });
const throttled = (status: number, retryAfter?: string): Answer => ({
  status,
  body: { message: 'Too many requests', title: 'Rate limited', errorCode: 'RATE_LIMITED' },
  headers: retryAfter === undefined ? {} : { 'retry-after': retryAfter },
});

let svc: Service | undefined;
afterEach(async () => {
  await svc?.close();
  svc = undefined;
});
const dir = testDir;

function run(argv: string[], clock: Clock, options: Parameters<typeof runCli>[1] = {}) {
  return runCli(argv, { clock, ...options, env: { ...MOCK_ENV, ...options.env }, dispatcher: svc!.agent });
}

interface JournalLine {
  type?: string;
  window?: string;
  until?: string;
  outcome?: string;
  to?: string[];
  shard?: unknown;
}
function journalLines(path: string): JournalLine[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as JournalLine);
}

describe('throttling is not failure', () => {
  it('429 in bursts, 503 with Retry-After in seconds and as an HTTP date, 429 without one: each recipient accepted exactly once', async () => {
    const clock = fakeClock();
    const recipients = numbers(60);
    const accepted = new Map<string, number>();
    const answer = (to: string, attempt: number, index: number): Answer => {
      if (attempt === 1) {
        if (index >= 10 && index < 20) return throttled(429, '2'); // a burst
        if (index % 7 === 3) return throttled(503, '1');
        if (index % 11 === 5) return throttled(503, new Date(clock.now() + 3000).toUTCString());
        if (index % 13 === 6) return throttled(429);
      }
      accepted.set(to, (accepted.get(to) ?? 0) + 1);
      return queued(to);
    };
    svc = service(clock, answer);
    const d = dir();
    const file = d.file('to.txt', `${recipients.join('\n')}\n`);
    const journal = `${d.dir}/run.jsonl`;
    const result = await run(['send', '--from', FROM, '--to-file', file, '--body', 'Hi', '--async', '--concurrency', '4', '--journal', journal, '-o', 'ndjson'], clock);
    expect(result.stderr).not.toMatch(/rejected|failed/);
    expect(result.code).toBe(0);
    expect([...accepted.keys()].sort()).toEqual([...recipients].sort());
    expect([...accepted.values()].every((n) => n === 1)).toBe(true);
    const outcomes = journalLines(journal).filter((l) => l.outcome !== undefined && l.outcome !== 'throttled');
    expect(outcomes.every((l) => l.outcome === 'accepted')).toBe(true);
    expect(outcomes).toHaveLength(60);
    const retries = svc.posts.length - 60;
    expect(retries).toBeGreaterThan(10);
    expect(result.stderr).toContain(`${retries} throttle retries`);
    expect(result.stderr).toMatch(/throttled by the service \((429|503)\): waiting \d+ s/);
    // Every pause came from the injected clock, at least as long as the service asked.
    expect(clock.sleeps.some((ms) => ms >= 2000)).toBe(true);
  });

  it('a 503 without Retry-After is a failure, not a throttle: rejected, not sent again', async () => {
    const clock = fakeClock();
    svc = service(clock, (to, _attempt, index) => (index === 0 ? { status: 503, body: { message: 'down' } } : queued(to)));
    const d = dir();
    const file = d.file('to.txt', `${numbers(3).join('\n')}\n`);
    const result = await run(['send', '--from', FROM, '--to-file', file, '--body', 'Hi', '--async', '--concurrency', '1', '-o', 'ndjson'], clock);
    expect(result.code).toBe(6);
    expect(svc.posts).toHaveLength(3);
  });

  it('gives up only when nothing was accepted for --max-stall: the throttled are rejected with the last answer', async () => {
    const clock = fakeClock();
    const start = clock.time;
    svc = service(clock, () => throttled(429, '30'));
    const d = dir();
    const file = d.file('to.txt', `${numbers(5).join('\n')}\n`);
    const journal = `${d.dir}/run.jsonl`;
    const result = await run(
      ['send', '--from', FROM, '--to-file', file, '--body', 'Hi', '--async', '--concurrency', '2', '--max-stall', '120', '--journal', journal, '-o', 'ndjson'],
      clock,
    );
    expect(result.code).not.toBe(0);
    expect(clock.time - start).toBeGreaterThanOrEqual(120_000);
    expect(clock.time - start).toBeLessThan(200_000);
    expect(result.stderr).toMatch(/nothing was accepted for 120 s/);
    const finals = journalLines(journal).filter((l) => l.outcome === 'rejected');
    expect(finals.length).toBeGreaterThanOrEqual(1);
    expect(journalLines(journal).some((l) => l.outcome === 'accepted' || l.outcome === 'unknown')).toBe(false);
    // Nothing more is launched after giving up: those never tried stay unsent, for --resume.
    const tried = new Set(svc.posts.map((p) => p.to));
    expect(tried.size).toBeLessThan(5);
    const journaled = new Set(journalLines(journal).flatMap((l) => l.to ?? []));
    expect([...journaled].every((to) => tried.has(to))).toBe(true);
    // The retries counted are those sent again, not the throttled ones given up on.
    const retried = svc.posts.length - tried.size;
    expect(result.stderr).toContain(`${retried} throttle ${retried === 1 ? 'retry' : 'retries'}`);
  });
});

describe('pace', () => {
  it('--rate caps the send, and the number\'s rateLimit caps it tighter', async () => {
    const clock = fakeClock();
    svc = service(clock, queued, { status: 200, body: { number: FROM, settings: { rateLimit: 2 } } });
    const d = dir();
    const file = d.file('to.txt', `${numbers(21).join('\n')}\n`);
    const start = clock.time;
    const result = await run(['send', '--from', FROM, '--to-file', file, '--body', 'Hi', '--async', '--rate', '10', '-o', 'ndjson'], clock);
    expect(result.code).toBe(0);
    expect(svc.numberReads).toBe(1);
    // One token of burst, then 2 a second, each request as its token comes (never a batch of
    // --concurrency that waited for its last token): the 21st leaves 10 s after the first.
    expect(svc.posts.map((p) => p.at - start)).toEqual(Array.from({ length: 21 }, (_, i) => i * 500));
  });

  it('--rate alone, when the number has no rateLimit', async () => {
    const clock = fakeClock();
    svc = service(clock, queued);
    const d = dir();
    // 10 tokens of burst (half a second), then 20 a second: the 50th leaves 2 s after the first.
    const file = d.file('to.txt', `${numbers(50).join('\n')}\n`);
    const start = clock.time;
    expect((await run(['send', '--from', FROM, '--to-file', file, '--body', 'Hi', '--async', '--rate', '20', '-o', 'ndjson'], clock)).code).toBe(0);
    expect(svc.posts.at(-1)!.at - start).toBe(2000);
    // In any span of t seconds, at most the burst and 20 a second.
    const at = svc.posts.map((p) => p.at - start);
    for (let i = 0; i < at.length; i++) {
      for (let j = i; j < at.length; j++) expect(j - i + 1).toBeLessThanOrEqual(10 + (20 * (at[j]! - at[i]!)) / 1000);
    }
  });
});

describe('--window', () => {
  it('no request leaves outside the window; the run says when it goes on', async () => {
    // 07:00 UTC; the window is 08:00-08:30 UTC, and each answer takes the clock 4 minutes on.
    const clock = fakeClock(Date.parse('2026-03-02T07:00:00Z'));
    svc = service(clock, (to) => {
      clock.time += 4 * 60_000;
      return queued(to);
    });
    const d = dir();
    const file = d.file('to.txt', `${numbers(20).join('\n')}\n`);
    const journal = `${d.dir}/run.jsonl`;
    const result = await run(
      ['send', '--from', FROM, '--to-file', file, '--body', 'Hi', '--async', '--concurrency', '1', '--window', '08:00-08:30', '--tz', 'UTC', '--journal', journal, '-o', 'ndjson'],
      clock,
    );
    expect(result.code).toBe(0);
    expect(svc.posts).toHaveLength(20);
    for (const post of svc.posts) {
      const minutes = (post.at % 86_400_000) / 60_000;
      expect(minutes >= 480 && minutes < 510).toBe(true);
    }
    expect(result.stderr).toContain('outside the send window 08:00-08:30 (UTC): waiting until 2026-03-02 08:00 UTC');
    expect(result.stderr).toContain('waiting until 2026-03-03 08:00 UTC');
    // As the journal format in docs/sending.md shows it: the hours, a space, the zone.
    const pauses = journalLines(journal).filter((l) => l.type === 'pause');
    expect(pauses.length).toBeGreaterThan(0);
    expect(pauses[0]).toMatchObject({ type: 'pause', reason: 'window', window: '08:00-08:30 UTC', until: '2026-03-02T08:00:00.000Z' });
    const sendingDoc = readFileSync(new URL('../../../docs/sending.md', import.meta.url), 'utf8');
    expect(sendingDoc).toContain('{"type":"pause","reason":"window","window":"09:00-20:00 America/New_York","until":"ISO"');
  });

  it('interrupted during the pause, then resumed inside the window: each recipient sent once', async () => {
    const start = Date.parse('2026-03-02T08:00:00Z');
    const controller = new AbortController();
    // A clock whose long waits (the window's) are where the run is stopped.
    const clock = fakeClock(start);
    const sleep = clock.sleep;
    clock.sleep = async (ms, signal) => {
      if (ms > 3_600_000) {
        controller.abort();
        throw new Error('aborted');
      }
      return sleep(ms, signal);
    };
    svc = service(clock, (to) => {
      clock.time += 7 * 60_000;
      return queued(to);
    });
    const d = dir();
    const recipients = numbers(12);
    const file = d.file('to.txt', `${recipients.join('\n')}\n`);
    const journal = `${d.dir}/run.jsonl`;
    const args = ['send', '--from', FROM, '--to-file', file, '--body', 'Hi', '--async', '--concurrency', '1', '--window', '08:00-08:30', '--tz', 'UTC', '--journal', journal, '-o', 'ndjson'];
    const first = await run(args, clock, { signal: controller.signal });
    expect(first.code).toBe(130);
    const sentFirst = svc.posts.length;
    expect(sentFirst).toBeGreaterThan(0);
    expect(sentFirst).toBeLessThan(12);

    const later = fakeClock(Date.parse('2026-03-03T08:00:00Z'));
    await svc.close();
    svc = service(later, (to) => queued(to));
    const second = await run([...args, '--resume'], later);
    expect(second.code).toBe(0);
    expect(svc.posts).toHaveLength(12 - sentFirst);
    const everyone = journalLines(journal).filter((l) => l.outcome === 'accepted').flatMap((l) => l.to!);
    expect(everyone.sort()).toEqual([...recipients].sort());
  });

  it('the dry run says whether the window is open now, and when that changes', async () => {
    const clock = fakeClock(Date.parse('2026-03-02T07:00:00Z'));
    svc = service(clock, queued);
    const d = dir();
    const file = d.file('to.txt', `${numbers(3).join('\n')}\n`);
    const args = ['send', '--from', FROM, '--to-file', file, '--body', 'Hi', '--window', '21:00-08:00', '--tz', 'America/New_York', '--dry-run'];
    // 07:00 UTC is 02:00 in New York (EST): inside a window that wraps past midnight.
    const open = await run(args, clock);
    expect(open.code).toBe(0);
    expect(open.stdout).toContain('window      21:00-08:00 (America/New_York): open now, until 2026-03-02 08:00 America/New_York');
    const openJson = JSON.parse((await run([...args, '--json'], clock)).stdout) as { window: unknown };
    expect(openJson.window).toEqual({ window: '21:00-08:00', timeZone: 'America/New_York', open: true, closesAt: '2026-03-02T13:00:00.000Z' });
    // 18:00 UTC is 13:00 in New York: closed until 21:00 there.
    clock.time = Date.parse('2026-03-02T18:00:00Z');
    const closed = await run(args, clock);
    expect(closed.stdout).toContain('window      21:00-08:00 (America/New_York): closed now; a send would wait until 2026-03-02 21:00 America/New_York');
    const closedJson = JSON.parse((await run([...args, '--json'], clock)).stdout) as { window: unknown };
    expect(closedJson.window).toEqual({ window: '21:00-08:00', timeZone: 'America/New_York', open: false, opensAt: '2026-03-03T02:00:00.000Z' });
    expect(svc.posts).toHaveLength(0);
  });

  it('names the zone as the user gave it (--tz EST, not Intl\'s America/Panama)', async () => {
    const clock = fakeClock(Date.parse('2026-07-01T12:00:00Z'));
    svc = service(clock, queued);
    const d = dir();
    const file = d.file('to.txt', `${numbers(3).join('\n')}\n`);
    const args = ['send', '--from', FROM, '--to-file', file, '--body', 'Hi', '--window', '09:00-17:00', '--tz', 'EST', '--dry-run'];
    // 12:00 UTC is 07:00 EST (UTC-5 all year): closed until 09:00 EST, 14:00 UTC.
    const table = await run(args, clock);
    expect(table.stdout).toContain('window      09:00-17:00 (EST): closed now; a send would wait until 2026-07-01 09:00 EST');
    expect(table.stdout).not.toContain('Panama');
    const json = JSON.parse((await run([...args, '--json'], clock)).stdout) as { window: unknown };
    expect(json.window).toEqual({ window: '09:00-17:00', timeZone: 'EST', open: false, opensAt: '2026-07-01T14:00:00.000Z' });
    expect(svc.posts).toHaveLength(0);
  });

  it('refuses a bad window or zone before anything is sent', async () => {
    const clock = fakeClock();
    svc = service(clock, queued);
    const d = dir();
    const file = d.file('to.txt', `${numbers(2).join('\n')}\n`);
    const bad = await run(['send', '--from', FROM, '--to-file', file, '--body', 'Hi', '--window', '9-17', '--tz', 'UTC'], clock);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--window "9-17" is not HH:MM-HH:MM');
    const zone = await run(['send', '--from', FROM, '--to-file', file, '--body', 'Hi', '--window', '09:00-17:00', '--tz', 'Nowhere/Else'], clock);
    expect(zone.code).toBe(2);
    expect(zone.stderr).toContain('--tz "Nowhere/Else"');
    expect(svc.posts).toHaveLength(0);
  });
});

describe('--exclude-file and --shard', () => {
  it('never sends to an excluded number, whatever its formatting, and counts them in the dry run', async () => {
    const clock = fakeClock();
    svc = service(clock, queued);
    const d = dir();
    const recipients = numbers(30, 14155551000);
    const file = d.file('to.csv', `phone,name\n${recipients.map((n, i) => `${n},P${i}`).join('\n')}\n`);
    const formatted = ['+1 (415) 555-1003', '+1-415-555-1004', '"+1 415 555 1005"', '+1.415.555.1006', ' +14155551007 '];
    const exclude = d.file('optout.csv', `Number,reason\r\n${formatted.map((n) => `${n},asked`).join('\r\n')}\r\n`);
    const dry = await run(['send', '--from', FROM, '--to-file', file, '--body', 'Hi {{name}}', '--exclude-file', exclude, '--dry-run', '--json'], clock);
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ recipients: 25, requests: 25, excluded: 5 });
    const result = await run(['send', '--from', FROM, '--to-file', file, '--body', 'Hi {{name}}', '--async', '--exclude-file', exclude, '-o', 'ndjson'], clock);
    expect(result.code).toBe(0);
    expect(svc.posts).toHaveLength(25);
    const sent = new Set(svc.posts.map((p) => p.to));
    for (const n of ['+14155551003', '+14155551004', '+14155551005', '+14155551006', '+14155551007']) expect(sent.has(n)).toBe(false);
    expect(result.stderr).toContain('5 excluded (--exclude-file)');
  });

  it('applies to --to recipients too: an excluded number is never sent, and is counted in the dry run and the summary', async () => {
    const clock = fakeClock();
    svc = service(clock, queued);
    const d = dir();
    const exclude = d.file('optout.txt', '+1 (415) 555-1002\n');
    const args = ['send', '--from', FROM, '--to', '+14155551001', '+14155551002', '+14155551003', '--body', 'Hi', '--exclude-file', exclude];
    const dry = await run([...args, '--dry-run', '--json'], clock);
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ requests: 1, recipients: 2, excluded: 1 });
    const result = await run([...args, '--json'], clock);
    expect(result.code, result.stderr).toBe(0);
    expect(svc.posts.map((p) => p.recipients)).toEqual([['+14155551001', '+14155551003']]);
    expect((JSON.parse(result.stdout) as { to: string[] }[]).map((e) => e.to)).toEqual([['+14155551001', '+14155551003']]);
    expect(result.stderr).toContain('1 excluded (--exclude-file)');
  });

  it('sends nothing, not even the media, when every --to recipient is excluded, and says so', async () => {
    const clock = fakeClock();
    // No answer for a media upload: an upload would fail the run.
    svc = service(clock, queued);
    const d = dir();
    const exclude = d.file('optout.csv', 'phone\n+14155551002\n+14155551001\n');
    const image = d.file('map.png', PNG_BYTES);
    const args = ['send', '--from', FROM, '--to', '+14155551001,+14155551002', '--body', 'Hi', '--media-file', image, '--tenant', '3f2504e0-4f89-11d3-9a0c-0305e82c3301', '--exclude-file', exclude];
    const dry = await run([...args, '--dry-run', '--json'], clock);
    expect(JSON.parse(dry.stdout)).toMatchObject({ requests: 0, recipients: 0, excluded: 2 });
    const result = await run([...args, '--json'], clock);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([]);
    expect(result.stderr).toContain(`Nothing sent: all 2 recipients are on the --exclude-file list (${exclude}).`);
    expect(svc.posts).toHaveLength(0);
  });

  it('refuses an exclude file with a bad line, naming file and line, before anything is sent', async () => {
    const clock = fakeClock();
    svc = service(clock, queued);
    const d = dir();
    const file = d.file('to.txt', `${numbers(2).join('\n')}\n`);
    const exclude = d.file('optout.txt', '+14155551001\nnot a number\n');
    const result = await run(['send', '--from', FROM, '--to-file', file, '--body', 'Hi', '--exclude-file', exclude], clock);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${exclude}:2: "not a number" is not an E.164 number`);
    expect(svc.posts).toHaveLength(0);
  });

  it('reads --exclude-file - from standard input, and refuses a second input from it (exit 2, before anything is read)', async () => {
    const clock = fakeClock();
    svc = service(clock, queued);
    const d = dir();
    const file = d.file('to.txt', `${numbers(3, 14155551000).join('\n')}\n`);
    const piped = await run(['send', '--from', FROM, '--to', '+14155551000,+14155551001', '--body', 'Hi', '--exclude-file', '-', '--json'], clock, { stdin: '+1 415 555 1001\n' });
    expect(piped.code, piped.stderr).toBe(0);
    expect(svc.posts.map((p) => p.recipients)).toEqual([['+14155551000']]);

    const both = await run(['send', '--from', FROM, '--to-file', '-', '--body', 'Hi', '--exclude-file', '-'], clock, { stdin: '+14155551001\n' });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--to-file - and --exclude-file - both read standard input, which can be read only once: give one of them as a file');
    const withBody = await run(['send', '--from', FROM, '--to-file', file, '--body-file', '/dev/stdin', '--exclude-file', '-'], clock, { stdin: 'Hi\n' });
    expect(withBody.code).toBe(2);
    expect(withBody.stderr).toContain('--body-file /dev/stdin and --exclude-file - both read standard input');
    // The body on standard input (no --body) and the exclude list too: the list would be read empty.
    const implicit = await run(['send', '--from', FROM, '--to-file', file, '--exclude-file', '-'], clock, { stdin: '+14155551001\n' });
    expect(implicit.code).toBe(2);
    expect(implicit.stderr).toContain('The exclude list (--exclude-file -) and the body cannot both come from standard input: give --body or --body-file');
    expect(svc.posts).toHaveLength(1);
  });

  it('--resume refuses a missing or different --exclude-file, and takes the same numbers written otherwise', async () => {
    const clock = fakeClock();
    // The first run's requests to two recipients are rejected: the resumed run sends them again.
    const rejectedOnce = new Set(['+14155552002', '+14155552007']);
    svc = service(clock, (to, attempt) => (attempt === 1 && rejectedOnce.has(to) ? { status: 400, body: { message: 'try later', title: 'Bad' } } : queued(to)));
    const d = dir();
    const recipients = numbers(10, 14155552000);
    const file = d.file('to.txt', `${recipients.join('\n')}\n`);
    const exclude = d.file('optout.txt', '+14155552003\n+14155552005\n');
    const journal = `${d.dir}/run.jsonl`;
    const base = ['send', '--from', FROM, '--to-file', file, '--body', 'Hi', '--async', '--journal', journal, '-o', 'ndjson', '--yes'];
    const first = await run([...base, '--exclude-file', exclude], clock);
    expect(first.code, first.stderr).toBe(6); // some recipients failed
    expect(svc.posts).toHaveLength(8);

    const without = await run([...base, '--resume'], clock);
    expect(without.code).toBe(2);
    expect(without.stderr).toContain(`${journal} was written with an --exclude-file: 2 numbers left out, and this run gives no --exclude-file`);
    const other = await run([...base, '--resume', '--exclude-file', d.file('other.txt', '+14155552003\n')], clock);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(`--exclude-file ${d.dir}/other.txt lacks 1 of the 2 numbers the run left out (+14155552005): that one would be sent to`);
    expect(svc.posts).toHaveLength(8);

    const same = await run([...base, '--resume', '--exclude-file', d.file('same.csv', 'number\n+1 (415) 555-2005\n+1-415-555-2003\n')], clock);
    expect(same.code, same.stderr).toBe(0);
    expect(svc.posts.slice(8).map((p) => p.to).sort()).toEqual([...rejectedOnce].sort());
    expect(svc.posts.some((p) => p.to === '+14155552003' || p.to === '+14155552005')).toBe(false);
  });

  it('--resume takes a list that has grown: the numbers added are never sent, and a later list that drops them is refused', async () => {
    const clock = fakeClock();
    // The first run: 02 and 07 rejected; the answer to 04 is lost (its outcome unknown).
    const rejectedOnce = new Set(['+14155552002', '+14155552007']);
    svc = service(clock, (to, attempt) => (attempt === 1 && rejectedOnce.has(to) ? { status: 400, body: { message: 'try later', title: 'Bad' } } : queued(to)));
    const d = dir();
    const file = d.file('to.txt', `${numbers(10, 14155552000).join('\n')}\n`);
    const original = d.file('optout.txt', '+14155552003\n+14155552005\n');
    const journal = `${d.dir}/run.jsonl`;
    const base = ['send', '--from', FROM, '--to-file', file, '--body', 'Hi', '--async', '--journal', journal, '-o', 'ndjson', '--yes'];
    expect((await run([...base, '--exclude-file', original], clock)).code).toBe(6);
    expect(svc.posts).toHaveLength(8);
    dropResultsFor(journal, ['+14155552004']);

    // 04 (unknown) and 07 (rejected) opted out since: added to the list, they are left out, and
    // the unknown one needs no --unknown choice any more.
    const grown = d.file('optout-grown.csv', 'phone\n+1 415 555 2003\n+14155552005\n+14155552004\n+14155552007\n');
    const dry = await run([...base, '--resume', '--exclude-file', grown, '--dry-run', '--json'], clock);
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ recipients: 1, excluded: 4, skipped: 5 });
    const resumed = await run([...base, '--resume', '--exclude-file', grown], clock);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(svc.posts.slice(8).map((p) => p.to)).toEqual(['+14155552002']);
    expect(resumed.stderr).toContain(
      `Resuming from ${journal}: 5 recipients already accepted are skipped; 1 rejected earlier is sent again; 2 rejected or of unknown outcome earlier are on --exclude-file ${grown} now, and not sent.`,
    );
    expect(resumed.stderr).toContain('1 accepted, 5 already accepted (skipped, as the journal says), 4 excluded (--exclude-file)');

    // The list the run started with now lacks two numbers a resumed run left out: refused.
    const shrunk = await run([...base, '--resume', '--exclude-file', original, '--unknown', 'resend'], clock);
    expect(shrunk.code).toBe(2);
    expect(shrunk.stderr).toContain(`--exclude-file ${original} lacks 2 of the 4 numbers the run left out (+14155552004, +14155552007): those would be sent to`);
    const none = await run([...base, '--resume', '--unknown', 'resend'], clock);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('4 numbers left out, and this run gives no --exclude-file');
    expect(svc.posts).toHaveLength(9);

    // The report counts those opted out since as excluded, never as owed, given the grown list.
    svc.agent
      .get(MOCK_ORIGIN)
      .intercept({ method: 'GET', path: (path) => path.startsWith('/api/v1/messages/') })
      .reply((options) => ({ statusCode: 200, data: JSON.stringify({ messageId: options.path.split('/').pop(), status: 'delivered', queuedAt: '2026-01-01T00:00:00Z', deliveredAt: '2026-01-01T00:00:01Z' }), responseOptions: { headers: { 'content-type': 'application/json' } } }))
      .persist();
    const report = await run(['send', 'report', '--journal', journal, '--to-file', file, '--exclude-file', grown, '--json'], clock);
    expect(report.code, report.stderr).toBe(0);
    const document = JSON.parse(report.stdout) as { total: Record<string, number>; owed: unknown[] };
    expect(document.total).toEqual({ recipients: 10, accepted: 6, rejected: 0, unknown: 0, notYetSent: 0, excluded: 4, optedOut: 0, zoneUnknown: 0 });
    expect(document.owed).toEqual([]);
    // Without the list, it says that some it names may be on it now.
    const unsure = await run(['send', 'report', '--journal', journal, '--json'], clock);
    expect(unsure.stderr).toContain('its --exclude-file grew when the run was resumed');
    // The list the run started with is not the one it keeps to now.
    const old = await run(['send', 'report', '--journal', journal, '--to-file', file, '--exclude-file', original, '--json'], clock);
    expect(old.code).toBe(2);
    expect(old.stderr).toContain('was last sent with');
  });

  it('the journal itself records a list a resume grew: without the record beside it, --resume still keeps to that list', async () => {
    const clock = fakeClock();
    // 02 is rejected twice, then accepted; 07 is rejected once, then opts out.
    svc = service(clock, (to, attempt) => ((to === '+14155552002' && attempt <= 2) || (to === '+14155552007' && attempt === 1) ? { status: 400, body: { message: 'try later' } } : queued(to)));
    const d = dir();
    const file = d.file('to.txt', `${numbers(10, 14155552000).join('\n')}\n`);
    const journal = `${d.dir}/run.jsonl`;
    const base = ['send', '--from', FROM, '--to-file', file, '--body', 'Hi', '--async', '--journal', journal, '-o', 'ndjson', '--yes'];
    // Started without a list; resumed with one that names 07.
    const first = await run(base, clock);
    expect(first.code, first.stderr).toBe(6);
    const optout = d.file('optout.txt', '+14155552007\n');
    // Only 02 is sent, and rejected again: every request failed, exit 1.
    expect((await run([...base, '--resume', '--exclude-file', optout], clock)).code).toBe(1);
    const resumeRecord = journalLines(journal).filter((l) => l.type === 'resume').at(-1) as { exclude?: { numbers: number }; own?: { recipients: number; excluded: number } };
    expect(resumeRecord.exclude).toMatchObject({ numbers: 1 });
    expect(resumeRecord.own).toEqual({ recipients: 9, excluded: 1 });
    // The journal moved, or restored from a backup, without its JOURNAL.exclude.
    rmSync(`${journal}.exclude`);
    const posts = svc.posts.length;
    const none = await run([...base, '--resume'], clock);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('1 number left out, and this run gives no --exclude-file');
    const other = await run([...base, '--resume', '--exclude-file', d.file('other.txt', '+14155552005\n')], clock);
    expect(other.code).toBe(2);
    expect(svc.posts).toHaveLength(posts);
    // The same list goes on: 02 is sent again, 07 never.
    const same = await run([...base, '--resume', '--exclude-file', optout], clock);
    expect(same.code, same.stderr).toBe(0);
    expect(svc.posts.slice(posts).map((p) => p.to)).toEqual(['+14155552002']);
    expect(svc.posts.filter((p) => p.to === '+14155552007')).toHaveLength(1);
  });

  it('--resume of a journal that keeps only its list\'s digest takes the same numbers, and says why it refuses others', async () => {
    const clock = fakeClock();
    svc = service(clock, (to, attempt) => (attempt === 1 && to === '+14155552002' ? { status: 400, body: { message: 'try later' } } : queued(to)));
    const d = dir();
    const file = d.file('to.txt', `${numbers(6, 14155552000).join('\n')}\n`);
    const original = d.file('optout.txt', '+14155552003\n');
    const journal = `${d.dir}/run.jsonl`;
    const base = ['send', '--from', FROM, '--to-file', file, '--body', 'Hi', '--async', '--journal', journal, '-o', 'ndjson', '--yes'];
    expect((await run([...base, '--exclude-file', original], clock)).code).toBe(6);
    // As an earlier svc wrote it: no record of the list beside the journal.
    rmSync(`${journal}.exclude`);
    const grown = await run([...base, '--resume', '--exclude-file', d.file('grown.txt', '+14155552003\n+14155552004\n')], clock);
    expect(grown.code).toBe(2);
    expect(grown.stderr).toContain(`and the journal keeps only their digest (${journal}.exclude, which would list them, is missing: an earlier svc did not write one, or the journal was moved without it)`);
    expect(svc.posts).toHaveLength(5);
    const same = await run([...base, '--resume', '--exclude-file', d.file('same.txt', '+1 415 555 2003\n')], clock);
    expect(same.code, same.stderr).toBe(0);
    expect(svc.posts.slice(5).map((p) => p.to)).toEqual(['+14155552002']);
    // Taken with the same numbers, the list is recorded beside the journal from then on.
    expect(readFileSync(`${journal}.exclude`, 'utf8').split('\n').slice(1)).toEqual(['+14155552003', '']);
  });

  it('progress counts out of the shard\'s own recipients, less the excluded, with the skipped apart', async () => {
    const clock = fakeClock();
    svc = service(clock, queued);
    const d = dir();
    const recipients = numbers(60, 14155553000);
    const file = d.file('to.txt', `${recipients.join('\n')}\n`);
    const exclude = d.file('optout.txt', `${recipients.slice(0, 10).join('\n')}\n`);
    const args = ['send', '--from', FROM, '--to-file', file, '--body', 'Hi', '--async', '--shard', '1/2', '--exclude-file', exclude, '--yes'];
    const dry = await run([...args, '--dry-run', '--json'], clock);
    const own = (JSON.parse(dry.stdout) as { recipients: number }).recipients;
    const result = await run([...args, '--rate', '1', '-o', 'ndjson'], clock);
    expect(result.code, result.stderr).toBe(0);
    expect(svc.posts).toHaveLength(own);
    const lines = result.stderr.split('\n').filter((line) => line.startsWith('svc send: '));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      const [, sent, total] = /^svc send: (\d+)\/(\d+) sent/.exec(line)!;
      expect(Number(total)).toBe(own);
      expect(Number(sent)).toBeLessThanOrEqual(own);
    }
    expect(lines.some((line) => / skipped, /.test(line))).toBe(true);
  });

  it('four shards send to everyone exactly once, each journal records its shard, and --resume checks it', async () => {
    const clock = fakeClock();
    svc = service(clock, queued);
    const d = dir();
    const recipients = numbers(200);
    const file = d.file('to.txt', `${recipients.join('\n')}\n`);
    for (let k = 1; k <= 4; k++) {
      const result = await run(['send', '--from', FROM, '--to-file', file, '--body', 'Hi', '--async', '--shard', `${k}/4`, '--journal', `${d.dir}/shard-${k}.jsonl`, '-o', 'ndjson', '--yes'], clock);
      expect(result.code).toBe(0);
      expect(journalLines(`${d.dir}/shard-${k}.jsonl`)[0]!.shard).toEqual({ k, n: 4 });
    }
    const sent = svc.posts.map((p) => p.to);
    expect(sent).toHaveLength(200);
    expect(new Set(sent).size).toBe(200);
    const wrong = await run(['send', '--from', FROM, '--to-file', file, '--body', 'Hi', '--async', '--shard', '2/4', '--journal', `${d.dir}/shard-1.jsonl`, '--resume'], clock);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('shard 1/4');
    expect(svc.posts).toHaveLength(200);
  });
});

describe('a single --to send', () => {
  it('waits out a throttle and sends again, saying so', async () => {
    const clock = fakeClock();
    svc = service(clock, (to, attempt) => (attempt === 1 ? throttled(429, '3') : queued(to)));
    const result = await run(['send', '--from', FROM, '--to', '+15557650001', '--body', 'Hi', '--json'], clock);
    expect(result.code, result.stderr).toBe(0);
    expect(svc.posts.map((p) => p.to)).toEqual(['+15557650001', '+15557650001']);
    expect(result.stderr).toContain('throttled by the service (429): waiting 3 s');
    expect(clock.sleeps).toContain(3000);
    // The from-number is read only for a bulk send.
    expect(svc.numberReads).toBe(0);
  });
});
