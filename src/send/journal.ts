// The bulk send journal (`svc send --journal FILE`, decisions.md "CLI behaviour"): one JSON
// line per request, written as each answer arrives, so that `--resume` can skip whoever was
// accepted and a run killed at any moment (Ctrl-C, SIGKILL) never sends anyone twice.
//
// Durability: each line goes to the kernel in one write(2) on a file opened for appending, before
// `record` returns, so a SIGKILL can only lose a line whose answer was never counted; no user-space
// buffer is ever left to flush. fsync (every `fsyncEvery` lines and on close) additionally bounds
// what a power cut or kernel crash can lose. A write cut short leaves a torn last line: the reader
// skips and reports it, and the writer starts a new line before appending after one.
// fsync runs on the thread pool, one at a time, because a synchronous one blocks the event loop
// for milliseconds and would hold back every request in flight.

import { closeSync, createReadStream, fstatSync, fsync, openSync, readSync, writeSync } from 'node:fs';
import { TextDecoder } from 'node:util';
import { PhoneNumberMap } from './phone-number-map.js';

export type JournalOutcome = 'accepted' | 'rejected' | 'unknown';

export const JOURNAL_OUTCOMES: readonly JournalOutcome[] = ['accepted', 'rejected', 'unknown'];

export interface JournalError {
  message: string;
  status?: number | null;
  title?: string;
  errorCode?: string;
}

/**
 * One request and its fate. `accepted`: the server answered with success. `rejected`: it answered
 * with an error, so nothing was sent. `unknown`: no answer after the request went out (timeout,
 * connection reset), so the server may have sent it.
 */
export interface JournalEntry {
  to: string[];
  outcome: JournalOutcome;
  messageId?: string;
  status?: string;
  error?: JournalError;
  /** ISO 8601 time the answer (or its absence) was recorded. */
  at: string;
}

export type JournalRecord = Omit<JournalEntry, 'at'> & { at?: string };

export interface JournalWriterOptions {
  /** Start an fsync after this many lines (0: only on close). Default 100. */
  fsyncEvery?: number;
  /** Source of `at` when the record has none. */
  clock?: () => Date;
}

export class JournalWriter {
  readonly path: string;
  private fd: number | null;
  private readonly fsyncEvery: number;
  private readonly clock: () => Date;
  private sinceSync = 0;
  /** The fsync running on the thread pool, if any: at most one at a time. */
  private syncing: Promise<void> | null = null;
  private syncError: unknown = null;

  private constructor(path: string, fd: number, options: JournalWriterOptions) {
    this.path = path;
    this.fd = fd;
    this.fsyncEvery = options.fsyncEvery ?? 100;
    this.clock = options.clock ?? (() => new Date());
  }

  /**
   * Opens (creating, mode 0600: it lists phone numbers) the journal for appending. If the last
   * run was killed mid-line, a line break is written first so the next entry stands on its own.
   */
  static open(path: string, options: JournalWriterOptions = {}): JournalWriter {
    const fd = openSync(path, 'a', 0o600);
    try {
      const size = fstatSync(fd).size;
      if (size > 0 && lastByteOf(path, size) !== 0x0a) writeFully(fd, Buffer.from('\n'));
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    return new JournalWriter(path, fd, options);
  }

  /**
   * Appends one line and returns the entry as written. The line is in the file (the kernel's
   * page cache) on return, which is what surviving SIGKILL needs; fsync runs in the background
   * every `fsyncEvery` lines so that the event loop never waits for the disk.
   */
  record(record: JournalRecord): JournalEntry {
    if (this.fd === null) throw new Error(`journal ${this.path} is closed`);
    if (this.syncError !== null) throw this.syncError;
    const entry: JournalEntry = { ...record, at: record.at ?? this.clock().toISOString() };
    writeLine(this.fd, `${JSON.stringify(entry)}\n`);
    if (this.fsyncEvery > 0 && ++this.sinceSync >= this.fsyncEvery && this.syncing === null) {
      this.sinceSync = 0;
      this.syncing = this.fsyncNow().finally(() => {
        this.syncing = null;
      });
    }
    return entry;
  }

  /** A throttled answer: not an outcome (the request was not processed and is sent again). */
  throttled(record: JournalRecord): void {
    if (this.fd === null) throw new Error(`journal ${this.path} is closed`);
    writeLine(this.fd, `${JSON.stringify({ ...record, outcome: 'throttled', at: record.at ?? this.clock().toISOString() })}\n`);
  }

  /** A line about the run itself (a pause for the send window); not about any recipient. */
  note(note: { type: string } & Record<string, unknown>): void {
    if (this.fd === null) throw new Error(`journal ${this.path} is closed`);
    writeLine(this.fd, `${JSON.stringify({ ...note, at: this.clock().toISOString() })}\n`);
  }

  /** Resolves when every line written so far is on the disk. */
  async sync(): Promise<void> {
    while (this.syncing !== null) await this.syncing;
    if (this.fd !== null) {
      this.sinceSync = 0;
      this.syncing = this.fsyncNow().finally(() => {
        this.syncing = null;
      });
      await this.syncing;
    }
    if (this.syncError !== null) throw this.syncError;
  }

  /** Waits for the disk, then closes. Further `record` calls throw. */
  async close(): Promise<void> {
    while (this.syncing !== null) await this.syncing;
    if (this.fd === null) return;
    const fd = this.fd;
    this.fd = null;
    try {
      await fsyncAsync(fd);
    } finally {
      closeSync(fd);
    }
    if (this.syncError !== null) throw this.syncError;
  }

  private async fsyncNow(): Promise<void> {
    if (this.fd === null) return;
    try {
      await fsyncAsync(this.fd);
    } catch (error) {
      this.syncError ??= error;
    }
  }
}

function fsyncAsync(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fsync(fd, (error) => (error ? reject(error) : resolve())));
}

/** One write call for the whole line; the loop only matters if the kernel takes part of it. */
function writeFully(fd: number, bytes: Buffer): void {
  let offset = 0;
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
}

/** One write call for the whole line in the usual case; the rest of a short write follows. */
function writeLine(fd: number, line: string): void {
  const written = writeSync(fd, line);
  const length = Buffer.byteLength(line);
  if (written < length) writeFully(fd, Buffer.from(line).subarray(written));
}

function lastByteOf(path: string, size: number): number {
  const fd = openSync(path, 'r');
  try {
    const byte = Buffer.alloc(1);
    readSync(fd, byte, 0, 1, size - 1);
    return byte[0]!;
  } finally {
    closeSync(fd);
  }
}

/** Recipients known to have been accepted: `--resume` skips them. */
export interface AcceptedRecipients {
  has(to: string): boolean;
  readonly size: number;
}

export interface TornLine {
  line: number;
  /** The start of the line as found (at most 80 characters). */
  text: string;
}

export interface JournalSummary {
  /** False when there is no journal yet (a first run with --resume). */
  exists: boolean;
  /** Well-formed lines read. */
  entries: number;
  accepted: AcceptedRecipients;
  /** Distinct recipients whose every request was rejected: resumed, and never sent before. */
  rejected: number;
  /** Distinct recipients never accepted with at least one unknown outcome: resumed, maybe twice. */
  unknown: number;
  /** Lines that are not a journal entry (a write cut short), at most 100 kept. */
  tornLines: TornLine[];
  tornLineCount: number;
  /** The --shard the journal was written for (its header), if any. */
  shard: { k: number; n: number } | undefined;
}

const ACCEPTED = 1;
const REJECTED = 2;
const UNKNOWN = 4;
const OUTCOME_BITS: Readonly<Record<JournalOutcome, number>> = { accepted: ACCEPTED, rejected: REJECTED, unknown: UNKNOWN };
const MAX_TORN_KEPT = 100;

/**
 * Reads a journal line by line (streamed; memory grows only with the distinct recipients).
 * A recipient accepted by any request counts as accepted, whatever came before or after.
 */
export async function readJournal(path: string): Promise<JournalSummary> {
  const outcomes = new PhoneNumberMap();
  const summary: JournalSummary = {
    exists: true,
    entries: 0,
    accepted: { has: () => false, size: 0 },
    rejected: 0,
    unknown: 0,
    tornLines: [],
    tornLineCount: 0,
    shard: undefined,
  };

  const onLine = (text: string, line: number): void => {
    if (text.trim() === '') return;
    // Throttled answers and notes about the run (a window pause) change no recipient's outcome.
    if (text.startsWith('{"type":"header"')) {
      const shard: unknown = (JSON.parse(text) as { shard?: unknown }).shard;
      if (typeof shard === 'object' && shard !== null) summary.shard = shard as { k: number; n: number };
      return;
    }
    if (text.includes('"outcome":"throttled"') || text.startsWith('{"type":')) return;
    const entry = parseEntry(text);
    if (entry === undefined) {
      summary.tornLineCount++;
      if (summary.tornLines.length < MAX_TORN_KEPT) summary.tornLines.push({ line, text: text.slice(0, 80) });
      return;
    }
    summary.entries++;
    const bit = OUTCOME_BITS[entry.outcome];
    for (const to of entry.to) outcomes.set(to, (outcomes.get(to) ?? 0) | bit);
  };

  const stream = createReadStream(path, { highWaterMark: 64 * 1024 });
  const decoder = new TextDecoder('utf-8');
  let partial = '';
  let line = 1;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const text = partial + decoder.decode(chunk, { stream: true });
      let start = 0;
      let newline = text.indexOf('\n');
      while (newline !== -1) {
        onLine(text.slice(start, newline), line++);
        start = newline + 1;
        newline = text.indexOf('\n', start);
      }
      partial = text.slice(start);
    }
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') {
      return { ...summary, exists: false };
    }
    throw error;
  } finally {
    stream.destroy();
  }
  partial += decoder.decode();
  if (partial !== '') onLine(partial, line);

  let accepted = 0;
  outcomes.forEachValue((bits) => {
    if (bits & ACCEPTED) accepted++;
    else if (bits & UNKNOWN) summary.unknown++;
    else summary.rejected++;
  });
  summary.accepted = {
    has: (to) => ((outcomes.get(to) ?? 0) & ACCEPTED) !== 0,
    size: accepted,
  };
  return summary;
}

function parseEntry(text: string): Pick<JournalEntry, 'to' | 'outcome'> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const to: unknown = Reflect.get(value, 'to');
  const outcome: unknown = Reflect.get(value, 'outcome');
  if (!Array.isArray(to) || !to.every((item): item is string => typeof item === 'string')) return undefined;
  if (typeof outcome !== 'string' || !(JOURNAL_OUTCOMES as readonly string[]).includes(outcome)) return undefined;
  return { to, outcome: outcome as JournalOutcome };
}
