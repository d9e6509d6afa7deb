import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import stringWidth from 'string-width';
import { eventRecord, sentRecord } from '../../src/events/records.js';
import { writeSegment } from '../../src/events/store/writer.js';
import { fakeClock, runCli } from '../helpers/cli.js';
import { createMockApi, MOCK_ENV } from '../helpers/mock-api.js';

// Tables fit the terminal at 40, 60, 80 and 120 columns: the least important columns are left
// out (and named on stderr), then free text is cut; numbers, ids, statuses and times never are.
// Widths are display widths (CJK and emoji two columns), and a cluster is never split.

const TENANT = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
const FAMILY = '👨‍👩‍👧‍👦';
const numbers = [
  { phoneNumber: '+14155550101', status: 'Active', provisionType: 'SMS', provisionClass: 'P2P', friendlyName: `日本のお店 ${FAMILY} 家族経営`, tenantId: TENANT, activatedAt: '2026-03-01T09:00:00.000Z' },
  { phoneNumber: '+14155550102', status: 'Active', provisionType: 'SMSMMS', provisionClass: 'A2P', friendlyName: 'Front desk', tenantId: TENANT, activatedAt: '2026-03-02T10:30:00.000Z' },
];

async function numberList(columns: number): Promise<{ stdout: string; stderr: string }> {
  const mock = createMockApi();
  mock.expect('GET', 'phone-numbers/active', { status: 200, body: { items: numbers, page: 1, limit: 20, total: numbers.length } });
  // Five minutes after the first number was activated: its time reads as "5 min ago".
  const clock = fakeClock(Date.parse('2026-03-01T09:05:00.000Z'));
  const result = await runCli(['number', 'list'], { env: { ...MOCK_ENV, NO_COLOR: '1' }, dispatcher: mock.agent, tty: { stdout: true, stderr: true }, columns, clock });
  expect(result.code, result.stderr).toBe(0);
  return result;
}

const lines = (text: string): string[] => text.trimEnd().split('\n');

describe('svc number list fits the terminal', () => {
  it.each([40, 60, 80, 120])('at %i columns: no line wider, every number and status whole', async (columns) => {
    const { stdout, stderr } = await numberList(columns);
    for (const line of [...lines(stdout), ...lines(stderr)]) expect(stringWidth(line), line).toBeLessThanOrEqual(columns);
    for (const n of numbers) expect(stdout).toMatch(new RegExp(`^\\${n.phoneNumber} +Active`, 'm'));
    // A family emoji is shown whole or not at all.
    expect(stdout.replace(new RegExp(FAMILY, 'g'), '')).not.toMatch(/[\u200d\u{1f466}-\u{1f469}]/u);
    const header = lines(stdout)[0]!;
    if (columns >= 120) {
      expect(header.split(/ {2,}/)).toEqual(['NUMBER', 'STATUS', 'TYPE', 'CLASS', 'NAME', 'TENANT', 'ACTIVATED']);
      expect(stdout).toContain(TENANT);
      // On a terminal a time is told relative to now; piped it stays as the service sent it.
      expect(stdout).toMatch(/^\+14155550101 .* 5 min ago$/m);
      expect(stdout).toMatch(/^\+14155550102 .* in 1 d$/m);
      expect(stderr).toBe('');
    } else {
      // What is left out is named, the least important first to go.
      expect(stderr).toMatch(/Left out to fit the terminal: [^(]*ACTIVATED/);
      expect(header).not.toContain('ACTIVATED');
      // An id is shown whole or not at all.
      expect(stdout).not.toMatch(/3f2504e0[^\s]*…/);
    }
    if (columns === 40) expect(header.split(/ {2,}/)).toEqual(['NUMBER', 'STATUS', 'TYPE', 'CLASS']);
  });
});

describe('a column empty in every row', () => {
  const unnamed = numbers.map((n) => ({ ...n, friendlyName: '' }));
  async function list(args: string[], tty: boolean): Promise<string> {
    const mock = createMockApi();
    mock.expect('GET', 'phone-numbers/active', { status: 200, body: { items: unnamed, page: 1, limit: 20, total: unnamed.length } });
    const result = await runCli(['number', 'list', ...args], { env: { ...MOCK_ENV, NO_COLOR: '1' }, dispatcher: mock.agent, tty: { stdout: tty, stderr: tty }, columns: 120 });
    expect(result.code, result.stderr).toBe(0);
    return result.stdout;
  }

  it('is not shown on a terminal, though the table would fit', async () => {
    const header = lines(await list([], true))[0]!;
    expect(header).toMatch(/^NUMBER +STATUS +TYPE +CLASS +TENANT +ACTIVATED$/);
  });

  it('is shown when --fields names it, and piped rows keep every column', async () => {
    expect(lines(await list(['--fields', 'phoneNumber,friendlyName'], true))[0]).toMatch(/^PHONENUMBER +FRIENDLYNAME$/);
    const piped = lines(await list([], false));
    expect(piped[0]!.split('\t')).toHaveLength(piped[1]!.split('\t').length);
    expect(piped[1]!.split('\t')).toContain('');
  });
});

describe('svc thread with CJK and emoji', () => {
  const work = mkdtempSync(join(tmpdir(), 'svc-thread-width-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  const store = join(work, 'events');
  const at = Date.parse('2026-03-01T09:00:00Z');
  const ours = '+15557770100';
  const theirs = '+14155551001';
  const long = `ご予約ありがとうございます。${FAMILY}${FAMILY}${FAMILY} 本日の席は窓側です。🇯🇵🇯🇵 Grüße, see you at ten o'clock sharp ${FAMILY}`;
  writeSegment(store, [
    sentRecord({ messageId: 'm1', from: ours, to: theirs, body: long, at: new Date(at) }),
    eventRecord({ id: 'd2', type: 'MessageReceived', receivedAt: new Date(at + 60_000), from: theirs, to: [ours], headers: {}, raw: JSON.stringify({ from: theirs, tos: [ours], message: long }) }),
  ]);

  it.each([40, 60, 80, 120])('at %i columns: no line wider, and no family emoji split', async (columns) => {
    const result = await runCli(['thread', theirs, '--store', store], { env: { NO_COLOR: '1' }, tty: { stdout: true }, columns });
    expect(result.code, result.stderr).toBe(0);
    const shown = lines(result.stdout);
    for (const line of shown) expect(stringWidth(line), line).toBeLessThanOrEqual(columns);
    // Both messages are there whole, cluster by cluster, once the wrapping is undone.
    const joined = shown.join('');
    expect(joined.split(FAMILY).length - 1).toBe(8);
    expect(joined.split('🇯🇵').length - 1).toBe(4);
    for (const line of shown) expect(line.replace(new RegExp(FAMILY, 'g'), '')).not.toMatch(/[\u200d\u{1f466}-\u{1f469}]/u);
  });
});
