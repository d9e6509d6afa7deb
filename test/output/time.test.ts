import { describe, expect, it } from 'vitest';
import { formatElapsed, parseMoment, relativeTime, shownTime } from '../../src/output/time.js';
import type { Output } from '../../src/output/format.js';
import type { IOStreams } from '../../src/output/io.js';

const NOW = Date.parse('2026-11-26T12:00:00Z');
const at = (offsetMs: number): number => NOW + offsetMs;

function output(format: Output['format'], stdoutIsTTY: boolean): Output {
  return { format, io: { stdoutIsTTY } as IOStreams, clock: { now: () => NOW } };
}

describe('relativeTime', () => {
  it('says how long ago in whole units, rounded down', () => {
    expect(relativeTime(at(-400), NOW)).toBe('just now');
    expect(relativeTime(at(-12_900), NOW)).toBe('12 s ago');
    expect(relativeTime(at(-59_999), NOW)).toBe('59 s ago');
    expect(relativeTime(at(-60_000), NOW)).toBe('1 min ago');
    expect(relativeTime(at(-2 * 60_000 - 59_000), NOW)).toBe('2 min ago');
    expect(relativeTime(at(-3 * 3_600_000), NOW)).toBe('3 h ago');
    expect(relativeTime(at(-4 * 86_400_000 - 1), NOW)).toBe('4 d ago');
  });

  it('says how soon for a moment still to come', () => {
    expect(relativeTime(at(3 * 3_600_000 + 5), NOW)).toBe('in 3 h');
    expect(relativeTime(at(90_000), NOW)).toBe('in 1 min');
  });

  it('gives the date in UTC beyond thirty days, where a count of days says less', () => {
    expect(relativeTime(Date.parse('2025-01-02T03:04:59Z'), NOW)).toBe('2025-01-02 03:04 UTC');
    expect(relativeTime(at(40 * 86_400_000), NOW)).toBe('2027-01-05 12:00 UTC');
  });
});

describe('parseMoment', () => {
  it('takes ISO 8601 date-times only', () => {
    expect(parseMoment('2026-11-26T11:58:00Z')).toBe(at(-120_000));
    expect(parseMoment('2026-11-26T13:58:00.5+02:00')).toBe(at(-119_500));
    for (const text of ['2026-11-26', '1042', 'Pending', '', 'soon', '2026-13-45T99:99:99Z']) expect(parseMoment(text)).toBeUndefined();
  });
});

describe('shownTime: one rule for every human view', () => {
  const iso = '2026-11-26T11:58:00Z';
  it('is relative in a table on a terminal', () => {
    expect(shownTime(output('table', true), iso)).toBe('2 min ago');
  });
  it('keeps the text as it came when piped, in --json and in ndjson', () => {
    expect(shownTime(output('table', false), iso)).toBe(iso);
    expect(shownTime(output('json', true), iso)).toBe(iso);
    expect(shownTime(output('ndjson', true), iso)).toBe(iso);
  });
  it('leaves what is not a moment alone', () => {
    expect(shownTime(output('table', true), 'queued')).toBe('queued');
  });
});

describe('formatElapsed', () => {
  it('counts whole seconds, then minutes and seconds, then hours and minutes', () => {
    expect(formatElapsed(0)).toBe('0 s');
    expect(formatElapsed(999)).toBe('0 s');
    expect(formatElapsed(42_700)).toBe('42 s');
    expect(formatElapsed(65_000)).toBe('1 min 05 s');
    expect(formatElapsed(2 * 3_600_000 + 3 * 60_000 + 59_000)).toBe('2 h 03 min');
  });
});
