import { describe, expect, it } from 'vitest';
import { parseWindow, WindowSchedule } from '../../../src/send/pace/window.js';
import { UsageError } from '../../../src/errors.js';

const at = (iso: string): number => Date.parse(iso);
const schedule = (window: string, tz: string): WindowSchedule => new WindowSchedule(parseWindow(window, tz));

describe('parseWindow', () => {
  it('reads HH:MM-HH:MM with an IANA zone, and 24:00 as the end of the day', () => {
    expect(parseWindow('9:00-20:30', 'Europe/Berlin')).toEqual({ start: 540, end: 1230, text: '09:00-20:30', timeZone: 'Europe/Berlin', intlTimeZone: 'Europe/Berlin' });
    expect(parseWindow('21:00-24:00', 'UTC').end).toBe(1440);
  });

  it('shows the zone as given (EST, not Intl\'s America/Panama), and computes with Intl\'s', () => {
    const est = parseWindow('09:00-17:00', 'EST');
    expect(est.timeZone).toBe('EST');
    expect(est.intlTimeZone).toBe(new Intl.DateTimeFormat('en-US', { timeZone: 'EST' }).resolvedOptions().timeZone);
    const s = new WindowSchedule(est);
    // EST is UTC-5 all year: 09:00 there is 14:00 UTC, in summer too.
    expect(s.isOpen(at('2026-07-01T14:30:00Z'))).toBe(true);
    expect(s.describe(at('2026-07-02T14:00:00Z'))).toBe('2026-07-02 09:00 EST');
    expect(parseWindow('09:00-17:00', ' US/Eastern ').timeZone).toBe('US/Eastern');
    // Only the letter case differs: Intl's spelling.
    expect(parseWindow('09:00-17:00', 'utc').timeZone).toBe('UTC');
    expect(parseWindow('09:00-17:00', 'europe/berlin').timeZone).toBe('Europe/Berlin');
  });

  it.each([
    ['9-20', 'Europe/Berlin', /not HH:MM-HH:MM/],
    ['09:00-25:00', 'Europe/Berlin', /not HH:MM-HH:MM/],
    ['09:60-10:00', 'Europe/Berlin', /not HH:MM-HH:MM/],
    ['24:00-08:00', 'Europe/Berlin', /not HH:MM-HH:MM/],
    ['08:00-08:00', 'Europe/Berlin', /same time/],
    ['00:00-24:00', 'Europe/Berlin', /same time/],
    ['09:00-20:00', undefined, /--tz ZONE/],
    ['09:00-20:00', 'Mars/Olympus_Mons', /"Mars\/Olympus_Mons" is not a time zone/],
  ])('refuses --window %s --tz %s with exit 2', (window, tz, message) => {
    let thrown: unknown;
    try {
      parseWindow(window, tz);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UsageError);
    expect((thrown as UsageError).exitCode).toBe(2);
    expect((thrown as Error).message).toMatch(message);
  });
});

describe('WindowSchedule', () => {
  it('opens and closes on the local wall clock', () => {
    const s = schedule('09:00-20:00', 'Europe/Berlin');
    expect(s.isOpen(at('2026-11-23T07:59:59Z'))).toBe(false); // 08:59:59 CET
    expect(s.isOpen(at('2026-11-23T08:00:00Z'))).toBe(true);
    expect(s.nextChange(at('2026-11-23T02:00:00Z'))).toBe(at('2026-11-23T08:00:00Z'));
    expect(s.nextChange(at('2026-11-23T08:00:00Z'))).toBe(at('2026-11-23T19:00:00Z'));
    expect(s.describe(at('2026-11-23T08:00:00Z'))).toBe('2026-11-23 09:00 Europe/Berlin');
  });

  it('wraps past midnight', () => {
    const s = schedule('21:00-08:00', 'America/New_York');
    expect(s.isOpen(at('2026-11-23T03:00:00Z'))).toBe(true); // 22:00 EST
    expect(s.isOpen(at('2026-11-23T13:30:00Z'))).toBe(false); // 08:30 EST
    expect(s.nextChange(at('2026-11-23T03:00:00Z'))).toBe(at('2026-11-23T13:00:00Z'));
    expect(s.nextOpening(at('2026-11-23T13:30:00Z'))).toBe(at('2026-11-24T02:00:00Z'));
  });

  it('opens at the jump when the opening hour does not exist (spring forward)', () => {
    // New York, 2026-03-08: 02:00 EST jumps to 03:00 EDT at 07:00Z.
    const s = schedule('02:30-04:00', 'America/New_York');
    expect(s.nextOpening(at('2026-03-08T06:00:00Z'))).toBe(at('2026-03-08T07:00:00Z'));
    expect(s.nextChange(at('2026-03-08T07:00:00Z'))).toBe(at('2026-03-08T08:00:00Z')); // 04:00 EDT
  });

  it('stays shut on a night when the whole window falls in the skipped hour', () => {
    const s = schedule('02:10-02:40', 'America/New_York');
    expect(s.nextOpening(at('2026-03-08T06:00:00Z'))).toBe(at('2026-03-09T06:10:00Z')); // 02:10 EDT next day
  });

  it('follows the wall clock back when the clocks fall back', () => {
    // New York, 2026-11-01: 02:00 EDT falls back to 01:00 EST at 06:00Z.
    const s = schedule('01:30-05:00', 'America/New_York');
    expect(s.nextOpening(at('2026-11-01T04:00:00Z'))).toBe(at('2026-11-01T05:30:00Z')); // 01:30 EDT
    expect(s.nextChange(at('2026-11-01T05:30:00Z'))).toBe(at('2026-11-01T06:00:00Z')); // back to 01:00 EST
    expect(s.nextChange(at('2026-11-01T06:00:00Z'))).toBe(at('2026-11-01T06:30:00Z')); // 01:30 EST
    expect(s.nextChange(at('2026-11-01T06:30:00Z'))).toBe(at('2026-11-01T10:00:00Z')); // 05:00 EST
  });

  it('finds the exact next change in zones with odd offsets and rules, all year round', () => {
    // Deterministic pseudo-random instants (an LCG), windows and zones.
    let seed = 12345;
    const random = (): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    const zones = ['Australia/Lord_Howe', 'Asia/Kathmandu', 'America/St_Johns', 'Europe/London', 'Pacific/Chatham', 'America/Santiago'];
    const windows = ['00:30-01:15', '21:00-08:00', '09:00-20:00', '01:59-02:01', '23:45-00:15'];
    for (let i = 0; i < 60; i++) {
      const s = schedule(windows[i % windows.length]!, zones[i % zones.length]!);
      const t = at('2026-01-01T00:00:00Z') + Math.floor(random() * 365 * 86_400_000);
      const open = s.isOpen(t);
      const change = s.nextChange(t);
      expect(change).toBeGreaterThan(t);
      expect(s.isOpen(change)).toBe(!open);
      expect(s.isOpen(change - 1)).toBe(open);
      for (let k = 0; k < 20; k++) expect(s.isOpen(t + Math.floor(random() * (change - t)))).toBe(open);
    }
  });
});
