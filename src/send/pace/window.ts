import { UsageError } from '../../errors.js';

// Send windows (`--window HH:MM-HH:MM --tz ZONE`): how senders keep to quiet hours. Inside the
// window the run sends; outside it pauses until the window opens again. A window may wrap past
// midnight (21:00-08:00 is open in the evening and the night, closed in the day).
//
// The time zone is an IANA name read through Intl, so daylight-saving changes are the zone's own.
// The next change of state is computed exactly rather than by adding 24 hours: the wall clock is
// read at `now`; the boundary it is heading for is that many wall milliseconds away; if the zone's
// offset is the same at both ends, that is the instant. If not, the offset change is found (a
// binary search to the millisecond) and the walk goes on from there: a jump over the boundary
// (02:30 does not exist on a spring-forward night) opens the window at the jump, and a window
// that falls entirely into a skipped hour stays shut that night.

const DAY = 86_400_000;
const MINUTE = 60_000;

export interface SendWindow {
  /** Minutes after local midnight the window opens. */
  start: number;
  /** Minutes after local midnight the window closes (1440 for 24:00). */
  end: number;
  /** As given, normalised: `21:00-08:00`. */
  text: string;
  /**
   * The zone as the user gave it, which is how it is shown (`EST`, not Intl's `America/Panama`);
   * in Intl's spelling only when that is the same name in other letter case (`utc` is `UTC`).
   */
  timeZone: string;
  /** The zone as Intl names it: what the wall clock is computed in. */
  intlTimeZone: string;
}

function parseTime(text: string, allowEndOfDay: boolean): number | undefined {
  const match = /^(\d{1,2}):(\d{2})$/.exec(text.trim());
  if (!match) return undefined;
  const hours = Number(match[1]);
  const minutes = Number(match[2]);
  if (minutes > 59) return undefined;
  if (hours === 24 && minutes === 0 && allowEndOfDay) return 1440;
  if (hours > 23) return undefined;
  return hours * 60 + minutes;
}

function hhmm(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

/** The zone as Intl spells it; a name Intl does not know is a usage error. */
export function checkTimeZone(value: string): string {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: value.trim() }).resolvedOptions().timeZone;
  } catch {
    throw new UsageError(`--tz "${value}" is not a time zone this system knows; give an IANA name such as Europe/Berlin or America/New_York`);
  }
}

/** The hours of a window without its zone (each recipient's own zone, with --tz-column or --tz auto). */
export type WindowHours = Pick<SendWindow, 'start' | 'end' | 'text'>;

export function parseWindowHours(value: string): WindowHours {
  const parts = value.split('-');
  const start = parts.length === 2 ? parseTime(parts[0]!, false) : undefined;
  const end = parts.length === 2 ? parseTime(parts[1]!, true) : undefined;
  if (start === undefined || end === undefined) {
    throw new UsageError(`--window "${value}" is not HH:MM-HH:MM (24-hour clock, for example 09:00-20:00, or 21:00-08:00 across midnight)`);
  }
  if (start === end % 1440) throw new UsageError(`--window "${value}" opens and closes at the same time; leave --window out to send at any hour`);
  return { start, end, text: `${hhmm(start)}-${hhmm(end)}` };
}

export function parseWindow(value: string, timeZone: string | undefined): SendWindow {
  const { start, end } = parseWindowHours(value);
  if (timeZone === undefined) {
    throw new UsageError('--window needs --tz ZONE: the time zone the hours are in (an IANA name such as America/New_York)');
  }
  const intlTimeZone = checkTimeZone(timeZone);
  return { start, end, text: `${hhmm(start)}-${hhmm(end)}`, timeZone: shownZone(timeZone, intlTimeZone), intlTimeZone };
}

/**
 * The zone to show: as given, since Intl names some zones by another (EST is America/Panama,
 * US/Eastern is America/New_York) that the user would not recognise; Intl's spelling of the
 * same name when only the letter case differs.
 */
function shownZone(given: string, intl: string): string {
  const trimmed = given.trim();
  return trimmed.toLowerCase() === intl.toLowerCase() ? intl : trimmed;
}

function mod(value: number, by: number): number {
  return ((value % by) + by) % by;
}

export class WindowSchedule {
  private readonly format: Intl.DateTimeFormat;
  private readonly startMs: number;
  private readonly endMs: number;

  constructor(readonly window: SendWindow) {
    this.format = new Intl.DateTimeFormat('en-US', {
      timeZone: window.intlTimeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      era: 'short',
    });
    this.startMs = window.start * MINUTE;
    this.endMs = (window.end % 1440) * MINUTE;
  }

  /** The wall clock at `instant`, as if it were a UTC time (milliseconds). */
  wall(instant: number): number {
    let year = 0;
    let month = 1;
    let day = 1;
    let hour = 0;
    let minute = 0;
    let second = 0;
    let bc = false;
    for (const part of this.format.formatToParts(new Date(instant))) {
      switch (part.type) {
        case 'year': year = Number(part.value); break;
        case 'month': month = Number(part.value); break;
        case 'day': day = Number(part.value); break;
        case 'hour': hour = Number(part.value); break;
        case 'minute': minute = Number(part.value); break;
        case 'second': second = Number(part.value); break;
        case 'era': bc = part.value.startsWith('B'); break;
        default: break;
      }
    }
    const utc = new Date(0);
    utc.setUTCFullYear(bc ? 1 - year : year, month - 1, day);
    utc.setUTCHours(hour, minute, second, 0);
    return utc.getTime() + mod(instant, 1000);
  }

  private offset(instant: number): number {
    return this.wall(instant) - instant;
  }

  isOpen(instant: number): boolean {
    const x = mod(this.wall(instant), DAY);
    return this.startMs < this.endMs ? x >= this.startMs && x < this.endMs : x >= this.startMs || x < this.endMs;
  }

  /** The first instant after `instant` at which the window opens or closes. */
  nextChange(instant: number): number {
    const open = this.isOpen(instant);
    let current = instant;
    for (let step = 0; step < 16; step++) {
      const x = mod(this.wall(current), DAY);
      const boundary = open ? this.endMs : this.startMs;
      const delta = mod(boundary - x, DAY) || DAY;
      const next = current + delta;
      const before = this.offset(current);
      if (this.offset(next) === before) {
        if (this.isOpen(next) !== open) return next;
        current = next;
        continue;
      }
      // The offset changed on the way: find the change, to the millisecond.
      let low = current;
      let high = next;
      while (high - low > 1) {
        const middle = low + Math.floor((high - low) / 2);
        if (this.offset(middle) === before) low = middle;
        else high = middle;
      }
      // Before the change the wall clock had not reached the boundary; at the change it jumped.
      if (this.isOpen(high) !== open) return high;
      current = high;
    }
    // Unreachable for any real zone (a change of state comes within two days); be safe anyway.
    return instant + DAY;
  }

  /** When the window next opens (`instant` itself when it is open). */
  nextOpening(instant: number): number {
    return this.isOpen(instant) ? instant : this.nextChange(instant);
  }

  /** `2026-11-24 09:00 Europe/Berlin`: the wall clock at `instant` in the window's zone (named as given). */
  describe(instant: number): string {
    const iso = new Date(this.wall(instant)).toISOString();
    return `${iso.slice(0, 10)} ${iso.slice(11, 16)} ${this.window.timeZone}`;
  }
}
