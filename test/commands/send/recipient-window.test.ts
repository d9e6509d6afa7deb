import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/clock.js';
import { fakeClock, runCli } from '../../helpers/cli.js';
import { MOCK_ENV, MOCK_ORIGIN } from '../../helpers/mock-api.js';
import { testDir } from './helpers.js';

// Quiet hours in each recipient's own time: --window with --tz auto (zones from the number, by
// libphonenumber's data) or --tz-column. Driven by the injected clock over both US daylight-saving
// days: every message must leave inside its recipient's window, and every recipient with a zone
// must be sent; one whose zone cannot be told is held and named, never sent.

const FROM = '+15551230000';
const ZONES: Record<string, string> = {
  '+12125551001': 'America/New_York',
  '+17735551002': 'America/Chicago',
  '+13035551003': 'America/Denver',
  '+13105551004': 'America/Los_Angeles',
  '+16025551005': 'America/Phoenix',
};

interface Service {
  agent: MockAgent;
  posts: { to: string; at: number }[];
  close(): Promise<void>;
}

function service(clock: Clock): Service {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const pool = agent.get(MOCK_ORIGIN);
  const posts: Service['posts'] = [];
  pool
    .intercept({ method: 'GET', path: `/api/v1/phone-numbers/${encodeURIComponent(FROM)}` })
    .reply(200, { number: FROM, settings: {} }, { headers: { 'content-type': 'application/json' } })
    .persist();
  pool
    .intercept({ method: 'POST', path: (path) => path.startsWith('/api/v1/messages?') })
    .reply((options) => {
      const to = (JSON.parse(String(options.body)) as { to: string[] }).to[0]!;
      posts.push({ to, at: clock.now() });
      return { statusCode: 202, data: JSON.stringify({ messageId: `m-${to}`, status: 'queued' }), responseOptions: { headers: { 'content-type': 'application/json' } } };
    })
    .persist();
  return { agent, posts, close: () => agent.close() };
}

let svc: Service | undefined;
afterEach(async () => {
  await svc?.close();
  svc = undefined;
});

function run(argv: string[], clock: Clock) {
  return runCli(argv, { clock, env: MOCK_ENV, dispatcher: svc!.agent });
}

/** Minutes after local midnight of `instant` in `zone`. */
function localMinutes(instant: number, zone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', hour: '2-digit', minute: '2-digit' }).formatToParts(new Date(instant));
  const value = (type: string): number => Number(parts.find((p) => p.type === type)!.value);
  return value('hour') * 60 + value('minute');
}

function expectInsideWindows(posts: Service['posts'], zones: Record<string, string>): void {
  for (const post of posts) {
    const minutes = localMinutes(post.at, zones[post.to]!);
    expect(minutes, `${post.to} at ${new Date(post.at).toISOString()}`).toBeGreaterThanOrEqual(8 * 60);
    expect(minutes, `${post.to} at ${new Date(post.at).toISOString()}`).toBeLessThan(21 * 60);
  }
}

describe('--window with --tz auto over four US zones (and Arizona)', () => {
  it.each([
    // Spring forward: 2026-03-08, from local midnight in New York.
    ['spring forward, from midnight', '2026-03-08T05:00:00Z', { '+12125551001': '2026-03-08T12:00:00.000Z', '+17735551002': '2026-03-08T13:00:00.000Z', '+13035551003': '2026-03-08T14:00:00.000Z', '+13105551004': '2026-03-08T15:00:00.000Z', '+16025551005': '2026-03-08T15:00:00.000Z' }],
    // Fall back: 2026-11-01, the offsets one hour longer than the day before.
    ['fall back, from midnight', '2026-11-01T04:00:00Z', { '+12125551001': '2026-11-01T13:00:00.000Z', '+17735551002': '2026-11-01T14:00:00.000Z', '+13035551003': '2026-11-01T15:00:00.000Z', '+13105551004': '2026-11-01T16:00:00.000Z', '+16025551005': '2026-11-01T15:00:00.000Z' }],
    // The evening of the spring-forward day: New York has closed, the west is still open.
    ['spring forward, in the evening', '2026-03-09T01:30:00Z', { '+12125551001': '2026-03-09T12:00:00.000Z', '+17735551002': '2026-03-09T01:30:00.000Z', '+13035551003': '2026-03-09T01:30:00.000Z', '+13105551004': '2026-03-09T01:30:00.000Z', '+16025551005': '2026-03-09T01:30:00.000Z' }],
  ])('%s: each sent when its own window opens, nobody outside it', async (_name, start, expected) => {
    const clock = fakeClock(Date.parse(start));
    svc = service(clock);
    const d = testDir();
    const numbers = Object.keys(ZONES);
    const file = d.file('to.txt', `${numbers.join('\n')}\n+99912345678\n`);
    const journal = join(d.dir, 'run.jsonl');
    const result = await run(['send', '--from', FROM, '--to-file', file, '--body', 'Hi', '--async', '--window', '08:00-21:00', '--tz', 'auto', '--journal', journal, '--store', join(d.dir, 'events')], clock);
    expect(result.code, result.stderr).toBe(0);
    expectInsideWindows(svc.posts, ZONES);
    expect(Object.fromEntries(svc.posts.map((p) => [p.to, new Date(p.at).toISOString()]))).toEqual(expected);
    // The number with no zone is held back and named, never sent.
    expect(svc.posts.some((p) => p.to === '+99912345678')).toBe(false);
    expect(result.stderr).toContain('Held back, not sent: 1 recipient whose time zone cannot be told');
    expect(result.stderr).toContain('+99912345678');
    // Who waited for what is in the journal.
    const pauses = readFileSync(journal, 'utf8')
      .split('\n')
      .filter((line) => line.includes('"type":"pause"'))
      .map((line) => JSON.parse(line) as { reason: string; window: string; until: string });
    const waited = numbers.filter((n) => expected[n as keyof typeof expected] !== start.replace('Z', '.000Z'));
    expect(pauses.map((p) => p.reason)).toEqual(waited.map(() => 'recipient window'));
    for (const pause of pauses) expect(pause.window).toMatch(/^08:00-21:00 America\//);
  });

  it('the dry run says how the window is read and names whom it holds back', async () => {
    const clock = fakeClock(Date.parse('2026-03-08T05:00:00Z'));
    svc = service(clock);
    const d = testDir();
    const file = d.file('to.txt', `${Object.keys(ZONES).join('\n')}\n+99912345678\n`);
    const dry = await run(['send', '--from', FROM, '--to-file', file, '--body', 'Hi', '--window', '08:00-21:00', '--tz', 'auto', '--dry-run', '--json', '--store', join(d.dir, 'events')], clock);
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ recipients: 5, recipientWindow: { window: '08:00-21:00', zones: 'tz auto', zoneUnknown: 1, zoneUnknownNumbers: ['+99912345678'] } });
    expect(svc.posts).toHaveLength(0);
  });
});

describe('--window with --tz-column', () => {
  it('reads each zone from the file; an empty cell is held and named; a bad zone is exit 2 naming file:line', async () => {
    const clock = fakeClock(Date.parse('2026-11-01T13:30:00Z'));
    svc = service(clock);
    const d = testDir();
    const zones = { '+14155550001': 'Europe/Berlin', '+14155550002': 'Asia/Tokyo', '+14155550003': 'America/New_York' };
    const file = d.file('to.csv', `phone,TZ\n${Object.entries(zones).map(([n, z]) => `${n},${z}`).join('\n')}\n+14155550004,\n`);
    const result = await run(['send', '--from', FROM, '--to-file', file, '--body', 'Hi', '--async', '--window', '09:00-20:00', '--tz-column', 'tz', '--store', join(d.dir, 'events')], clock);
    expect(result.code, result.stderr).toBe(0);
    for (const post of svc.posts) {
      const minutes = localMinutes(post.at, zones[post.to as keyof typeof zones]);
      expect(minutes).toBeGreaterThanOrEqual(9 * 60);
      expect(minutes).toBeLessThan(20 * 60);
    }
    expect(svc.posts.map((p) => p.to).sort()).toEqual(Object.keys(zones).sort());
    expect(result.stderr).toContain('Held back, not sent: 1 recipient whose time zone cannot be told (their tz cell is empty): +14155550004');

    const bad = d.file('bad.csv', 'phone,tz\n+14155550001,Europe/Berlin\n+14155550002,Mars/Olympus\n');
    const refused = await run(['send', '--from', FROM, '--to-file', bad, '--body', 'Hi', '--window', '09:00-20:00', '--tz-column', 'tz', '--store', join(d.dir, 'events')], clock);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${bad}:3: "Mars/Olympus" in column tz is not a time zone (an IANA name such as America/Chicago)`);
    // Several: one sentence for all, then each named by file:line.
    const names = d.file('names.csv', 'phone,name\n+14155550001,Ann\n+14155550002,Bob\n');
    const wrongColumn = await run(['send', '--from', FROM, '--to-file', names, '--body', 'Hi', '--window', '09:00-20:00', '--tz-column', 'name', '--store', join(d.dir, 'events')], clock);
    expect(wrongColumn.code).toBe(2);
    expect(wrongColumn.stderr).toContain('--tz-column name: 2 cells of column name are not time zones (IANA names such as America/Chicago):');
    expect(wrongColumn.stderr).toContain(`${names}:2: "Ann"`);
    expect(wrongColumn.stderr).toContain(`${names}:3: "Bob"`);
    const missing = await run(['send', '--from', FROM, '--to-file', bad, '--body', 'Hi', '--window', '09:00-20:00', '--tz-column', 'zone', '--store', join(d.dir, 'events')], clock);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--tz-column zone: ');
    expect(missing.stderr).toContain('has no such column (its columns: phone, tz)');
    const both = await run(['send', '--from', FROM, '--to-file', bad, '--body', 'Hi', '--window', '09:00-20:00', '--tz-column', 'tz', '--tz', 'auto'], clock);
    expect(both.code).toBe(2);
    expect(svc.posts).toHaveLength(3);
  });
});
