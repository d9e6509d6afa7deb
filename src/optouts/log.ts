// The opt-out list on disk: `optouts.ndjson` in the event store's directory, an append-only log of
// changes (someone opted out of a number, or back in), one JSON line each, sealed with a CRC-32 of
// its text. The list is what the log adds up to (src/optouts/list.ts).
//
// Many processes write it at once (a listener per port, `svc optouts add` by hand, an import)
// without a lock: the file is opened with O_APPEND, and each append is one write() of whole lines,
// which the kernel places at the end of the file in one piece for a regular file; a change is
// acknowledged only after fdatasync, so it survives kill -9 and a power cut. A line cut short by a
// writer killed inside its write() fails its checksum and is skipped (it was never acknowledged);
// the next writer starts on a new line, so a torn tail never swallows the next change.

import { closeSync, fdatasyncSync, fstatSync, fsyncSync, mkdirSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';

export const OPTOUTS_FILE = 'optouts.ndjson';

/** Stands for every sending number (STOPALL, a number's `allText`, or added without --number). */
export const EVERY_NUMBER = '*';

/** Why a change was made. */
export type ChangeCause = 'keyword' | 'hand' | 'import';

export interface ConsentChange {
  /** `out`: opted out; `in`: opted back in (the opt-out lifted). */
  op: 'out' | 'in';
  /** The person: the number that asked. */
  number: string;
  /** The sending number it is about, or EVERY_NUMBER. */
  from: string;
  /** ISO 8601. */
  at: string;
  cause: ChangeCause;
  /** The keyword that was matched (cause `keyword`). */
  keyword?: string | undefined;
  /** The id of the stored event whose message held the keyword. */
  event?: string | undefined;
  /** The tenant of the message (an EVERY_NUMBER change by keyword is about its numbers). */
  tenant?: string | undefined;
  /** Free text: --reason, the reason column of an import. */
  reason?: string | undefined;
  /** Who made it: `webhook listen on HOST`, or `USER@HOST`. */
  by: string;
}

const CRC_KEY = ',"crc":"';
/** Free text is cut to this length, so that every line stays far below a page (one write, one piece). */
export const MAX_TEXT = 500;

function cut(text: string | undefined): string | undefined {
  return text === undefined ? undefined : text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text;
}

/** The line for a change: its JSON with the checksum of that JSON as a last member. */
export function sealChange(change: ConsentChange): string {
  const text = JSON.stringify({
    op: change.op,
    number: change.number,
    from: change.from,
    at: change.at,
    cause: change.cause,
    keyword: cut(change.keyword),
    event: cut(change.event),
    tenant: cut(change.tenant),
    reason: cut(change.reason),
    by: cut(change.by),
  });
  return `${text.slice(0, -1)}${CRC_KEY}${crc32(text).toString(16).padStart(8, '0')}"}\n`;
}

function isChange(value: unknown): value is ConsentChange {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    (v['op'] === 'out' || v['op'] === 'in') &&
    typeof v['number'] === 'string' &&
    typeof v['from'] === 'string' &&
    typeof v['at'] === 'string' &&
    (v['cause'] === 'keyword' || v['cause'] === 'hand' || v['cause'] === 'import') &&
    typeof v['by'] === 'string'
  );
}

/** The change a line holds, or undefined when the line is damaged (cut short, altered). */
export function openChange(line: string): ConsentChange | undefined {
  const keyAt = line.lastIndexOf(CRC_KEY);
  if (keyAt < 0 || !line.endsWith('"}')) return undefined;
  const text = `${line.slice(0, keyAt)}}`;
  const stated = line.slice(keyAt + CRC_KEY.length, -2);
  if (stated !== crc32(text).toString(16).padStart(8, '0')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isChange(value)) return undefined;
  const change: ConsentChange = { op: value.op, number: value.number, from: value.from, at: value.at, cause: value.cause, by: value.by };
  for (const key of ['keyword', 'event', 'tenant', 'reason'] as const) {
    if (typeof value[key] === 'string') change[key] = value[key];
  }
  return change;
}

export interface ReadLog {
  changes: ConsentChange[];
  /** Lines that failed their checksum or did not parse (a torn write, a hand edit). */
  damaged: number[];
}

export function optOutsPath(dir: string): string {
  return join(dir, OPTOUTS_FILE);
}

/** Every change in the log, in order; an absent log is an empty one. */
export function readOptOutLog(dir: string): ReadLog {
  let text: string;
  try {
    text = readFileSync(optOutsPath(dir), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { changes: [], damaged: [] };
    throw error;
  }
  const changes: ConsentChange[] = [];
  const damaged: number[] = [];
  let start = 0;
  let line = 1;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    if (end > start) {
      const change = openChange(text.slice(start, end));
      if (change !== undefined) changes.push(change);
      else damaged.push(line);
    }
    start = end + 1;
    line++;
  }
  return { changes, damaged };
}

/**
 * Appends changes and returns once they are on the disk. One write() for all of them (lines of a
 * call are never interleaved with another writer's), then fdatasync.
 */
export function appendOptOutChanges(dir: string, changes: readonly ConsentChange[]): void {
  if (changes.length === 0) return;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = optOutsPath(dir);
  let created = false;
  let fd: number;
  try {
    fd = openSync(path, 'ax+', 0o600);
    created = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    fd = openSync(path, 'a+', 0o600);
  }
  try {
    let text = changes.map(sealChange).join('');
    if (!created && endsTorn(fd)) text = `\n${text}`;
    const bytes = Buffer.from(text, 'utf8');
    let written = 0;
    // A regular file takes the whole buffer in one write(); the loop only guards a short write.
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
  // A new file's name must be on the disk too, or a crash could lose the file with its lines.
  if (created) syncDirectory(dir);
}

/** True when the file's last byte is not a line feed (a writer was killed inside its write). */
function endsTorn(fd: number): boolean {
  const size = fstatSync(fd).size;
  if (size === 0) return false;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] !== 0x0a;
}

function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Some systems (Windows) cannot open a directory; the file's own sync is what they offer.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
