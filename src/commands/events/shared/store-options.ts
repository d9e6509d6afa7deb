import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Env } from '../../../context.js';
import { UsageError } from '../../../errors.js';
import { isIsoDateTime } from '../../../domain/validate.js';
import { defaultStoreDir } from '../../../events/paths.js';
import type { CommandInput } from '../../spec.js';

// What the commands that read or write the event store share: where it is, and how times are given.

/** A flag's value, refused (exit 2, naming the flag) when it is empty or only spaces: `what` says what belongs there. */
export function nonBlank(value: string, flag: string, what: string): string {
  if (value.trim() === '') throw new UsageError(`${flag} needs ${what}, not ${value === '' ? 'an empty string' : `a blank "${value}"`}`);
  return value;
}

/**
 * A store directory that is a file, or lies under one, is a usage error (exit 2) found before the
 * store is opened; a directory not made yet is fine (the listener makes it, readers find it empty).
 */
export function checkStoreDir(dir: string, flag: boolean): void {
  const full = resolve(dir);
  for (let path = full; ; ) {
    let isDirectory: boolean;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const parent = dirname(path);
      // Not there (or under a file): the first ancestor that is there decides.
      if ((code === 'ENOENT' || code === 'ENOTDIR') && parent !== path) {
        path = parent;
        continue;
      }
      return; // anything else (no permission) is for opening the store to report
    }
    if (isDirectory) return;
    const what = flag ? `--store ${dir}` : `the event store ${dir}`;
    throw new UsageError(`${what} is not a directory${path === full ? ' (it is a file)' : `: ${path} is a file`}`, [
      flag ? 'give --store a directory (it is made if it does not exist)' : 'set SVC_DATA_DIR to a directory, or give --store DIR',
    ]);
  }
}

/** --store DIR, --no-store (undefined), or the default under the user's data directory. */
export function storeDirFrom(input: CommandInput<'store'>, env: Env): string | undefined {
  const given = input.string('store');
  if (given !== undefined) {
    checkStoreDir(nonBlank(given, '--store', 'a directory'), true);
    return given;
  }
  if (input.has('store')) return undefined; // --no-store
  const dir = defaultStoreDir(env);
  checkStoreDir(dir, false);
  return dir;
}

/** The store a reading command uses (no --no-store there). */
export function readStoreDir(input: CommandInput<'store'>, env: Env): string {
  return storeDirFrom(input, env) ?? defaultStoreDir(env);
}

const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)$/i;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
// A date-time of ISO 8601 with a zone, or a calendar date (midnight UTC).
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2}))?$/i;

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** Why a date-time of the right form does not exist: its month, its day, or its time or zone. */
function nonexistent(text: string): string {
  const [year, month, day] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
  if (month < 1 || month > 12) return `there is no month ${month}`;
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > days) return `${MONTHS[month - 1]} ${year} has ${days} days`;
  return 'the time of day or the zone is out of range';
}

/** An ISO 8601 date-time, or a duration ago (`90s`, `15m`, `24h`, `7d`, `2w`), as milliseconds since the epoch. */
export function parseTime(text: string, flag: string, now: number): number {
  const trimmed = text.trim();
  const duration = DURATION.exec(trimmed);
  if (duration !== null) return now - Number(duration[1]) * UNIT_MS[duration[2]!.toLowerCase()]!;
  if (ISO_DATE_TIME.test(trimmed)) {
    // ISO 8601 letters in either case (2026-01-31t09:00:00z), as Date.parse takes them.
    const iso = trimmed.length === 10 ? `${trimmed}T00:00:00Z` : trimmed.replace(' ', 'T').toUpperCase();
    // Date.parse rolls a day past the month's end over (2026-02-30 would be March 2): the
    // calendar date must exist as written (the domain's one check of it).
    if (!isIsoDateTime(iso)) throw new UsageError(`${flag} must be a date that exists, not "${text}" (${nonexistent(trimmed)})`);
    const value = Date.parse(iso);
    if (Number.isFinite(value)) return value;
  }
  throw new UsageError(`${flag} must be an ISO 8601 date-time with a zone (2026-01-31T09:00:00Z) or a duration ago (24h, 7d), not "${text}"`);
}

/**
 * Text written once per callback: the events that one callback settles (a group the event store
 * wrote at once) cost one write, not one per event. The write happens before the process goes
 * back to the event loop, so a line is out before the sender can read the answer to its event.
 * `flush` writes what is pending at once (before the command ends).
 */
export function batchedWriter(write: (text: string) => void): { write(text: string): void; flush(): void } {
  let pending: string[] = [];
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    if (pending.length === 0) return;
    const text = pending.join('');
    pending = [];
    write(text);
  };
  return {
    write(text) {
      pending.push(text);
      if (!scheduled) {
        scheduled = true;
        process.nextTick(flush);
      }
    },
    flush,
  };
}
