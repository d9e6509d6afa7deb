// How times and durations are shown to people. On a terminal a moment is told relative to now
// ("2 min ago", "in 3 h"), which is what a person reading a table wants to know; piped output and
// --json keep the exact ISO 8601 text the service sent, which is what a script can compare. Every
// human view asks `shownTime` (tables, object views, send and watch output), so one rule holds.

import type { Output } from './format.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Past this, a count of days says less than the date itself. */
const RELATIVE_LIMIT = 30 * DAY;

/**
 * An ISO 8601 date-time (a date, `T`, a time, and a zone or none) as the service writes them.
 * Anything else (a bare number, a word, a date alone) is not taken for a moment.
 */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/** Milliseconds since the epoch for an ISO 8601 date-time text, or undefined when it is not one. */
export function parseMoment(text: string): number | undefined {
  if (!ISO_DATE_TIME.test(text.trim())) return undefined;
  const ms = Date.parse(text.trim());
  return Number.isFinite(ms) ? ms : undefined;
}

function unitsOf(ms: number): string {
  if (ms < MINUTE) return `${Math.floor(ms / SECOND)} s`;
  if (ms < HOUR) return `${Math.floor(ms / MINUTE)} min`;
  if (ms < DAY) return `${Math.floor(ms / HOUR)} h`;
  return `${Math.floor(ms / DAY)} d`;
}

/**
 * `moment` relative to `now`: "just now" within a second, "12 s ago", "2 min ago", "3 h ago",
 * "4 d ago", "in 3 h"; beyond 30 days the date and time in UTC ("2025-01-02 03:04 UTC").
 * Counts are whole units, rounded down, so that "1 min ago" is never said of 40 s.
 */
export function relativeTime(moment: number, now: number): string {
  const distance = Math.abs(now - moment);
  if (distance < SECOND) return 'just now';
  if (distance >= RELATIVE_LIMIT) return `${new Date(moment).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return moment <= now ? `${unitsOf(distance)} ago` : `in ${unitsOf(distance)}`;
}

/** Whether this output shows times for a person (a table on a terminal) rather than a program. */
export function showsRelativeTimes(out: Output): boolean {
  return out.format === 'table' && out.io.stdoutIsTTY && out.clock !== undefined;
}

/**
 * A value that may be a moment, as this output shows it: relative on a terminal, the text as it
 * came otherwise. Values that are not ISO date-times are returned as they are.
 */
export function shownTime(out: Output, value: string): string {
  if (!showsRelativeTimes(out)) return value;
  const moment = parseMoment(value);
  return moment === undefined ? value : relativeTime(moment, out.clock!.now());
}

/**
 * A duration for a running count ("0 s", "42 s", "1 min 05 s", "2 h 03 min"), in whole seconds so
 * that a display ticking once a second moves by one.
 */
export function formatElapsed(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / SECOND));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${String(seconds % 60).padStart(2, '0')} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}
