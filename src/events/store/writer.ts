// Writing the event store. A record is acknowledged (the promise of `append` resolves) once its
// line is written to the file, which a killed process cannot undo (the kernel holds it), or, with
// `ack: 'fsync'`, once it is also fdatasync'd, which a power cut cannot undo either. Appends of one
// event-loop turn share one write; with fsync, every append written while a sync runs joins the
// next sync (group commit). The index entry is written after the line (index-entries.ts). A torn
// last line (a write cut short) was never acknowledged and readers skip it.

import { closeSync, openSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ENTRY_BYTES, entryFields, eventFields, writeEntry, type EntryFields } from './index-entries.js';
import { eventLine, recordLine, type IncomingEvent, type StoredRecord } from './record.js';
import { DATA_SUFFIX, ensureStoreDir, fdatasyncAsync, INDEX_SUFFIX, writeFully } from './segments.js';

export const DEFAULT_SEGMENT_RECORDS = 50_000;

export interface WriterOptions {
  /** Records per segment before the writer starts a new one. */
  segmentRecords?: number;
  /**
   * When an append is acknowledged (its promise resolves):
   * - `'write'` (the default): once its line is written to the file. The kernel holds it then, so
   *   it survives the process being killed (`kill -9`, a crash of Node), not a power cut or a
   *   crash of the machine; close() syncs what was written.
   * - `'fsync'`: once its line is also fdatasync'd, which survives a power cut too. One sync runs
   *   at a time; every append written while it runs joins the next one (group commit, a group as
   *   large as the traffic makes it).
   */
  ack?: 'write' | 'fsync';
  /**
   * Write every 50 ms or 1,000 records instead of once an event-loop turn: for a writer whose
   * records nobody waits on (a bulk send's sent-message records; its journal is the truth), so
   * that it pays two write(2)s a batch, not two a turn. Never for the listener, which answers
   * only once an event is written.
   */
  lazy?: boolean;
}

/** A record waiting to be written: its line is bytes [start, start + length) of the batch buffer, then a newline. */
interface Pending {
  start: number;
  length: number;
  fields: EntryFields;
  /** Called once written (ack 'write') or synced (ack 'fsync'), or with failed = true. */
  done: (failed: boolean, error?: unknown) => void;
}

/** What a record's writer is told: written (or synced), or not, with why. */
export type Written = (failed: boolean, error?: unknown) => void;

const BATCH_BYTES = 64 * 1024;
/** A lazy writer writes its records this often, or once this many wait. */
const LAZY_FLUSH_MS = 50;
const LAZY_BATCH_RECORDS = 1000;

export class EventStoreWriter {
  private dataFd = -1;
  private indexFd = -1;
  private base = '';
  private size = 0;
  private count = 0;
  private sequence = 0;
  private queue: Pending[] = [];
  /** The lines of the queued records, back to back. */
  private batch = Buffer.allocUnsafe(BATCH_BYTES);
  private batchUsed = 0;
  private scheduled = false;
  /** Written, waiting for the next fdatasync (ack 'fsync' only). */
  private unsynced: Pending[] = [];
  /** Data files written since their last sync. */
  private readonly dirty = new Set<number>();
  /** Data files of finished segments, closed once synced. */
  private readonly retired = new Set<number>();
  private syncing: Promise<void> | null = null;
  /** Something was written since the last sync (ack 'write': close() syncs it). */
  private written = false;
  private broken: unknown = null;
  private closed = false;
  private lazyTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly segmentRecords: number;
  readonly ack: 'write' | 'fsync';
  private readonly lazy: boolean;

  private constructor(
    readonly dir: string,
    options: WriterOptions,
  ) {
    this.segmentRecords = options.segmentRecords ?? DEFAULT_SEGMENT_RECORDS;
    this.ack = options.ack ?? 'write';
    this.lazy = options.lazy === true && this.ack === 'write';
  }

  /** Creates the directory (mode 0700: it holds phone numbers and message texts) and a first segment. */
  static open(dir: string, options: WriterOptions = {}): EventStoreWriter {
    ensureStoreDir(dir);
    const writer = new EventStoreWriter(dir, options);
    writer.startSegment();
    return writer;
  }

  private startSegment(): void {
    let base: string;
    for (;;) {
      base = `seg-${String(Date.now()).padStart(14, '0')}-${process.pid}-${String(this.sequence++).padStart(6, '0')}`;
      try {
        this.dataFd = openSync(join(this.dir, base + DATA_SUFFIX), 'wx', 0o600);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
    this.indexFd = openSync(join(this.dir, base + INDEX_SUFFIX), 'w', 0o600);
    this.base = base;
    this.size = 0;
    this.count = 0;
  }

  /** Closes the current segment's files, or leaves the data file to the sync that still owes it. */
  private closeSegment(): void {
    if (this.indexFd >= 0) closeSync(this.indexFd);
    if (this.dataFd >= 0) {
      if (this.dirty.has(this.dataFd)) this.retired.add(this.dataFd);
      else closeSync(this.dataFd);
    }
    this.dataFd = -1;
    this.indexFd = -1;
  }

  /** Resolves once the record is in the file (ack 'write') or on the disk (ack 'fsync'). */
  append(record: StoredRecord): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`the event store ${this.dir} is closed`));
    if (this.broken !== null) return Promise.reject(this.broken);
    return new Promise<void>((resolve, reject) => {
      this.enqueue(recordLine(record), entryFields(record), (failed, error) => (failed ? reject(error) : resolve()));
    });
  }

  /**
   * As `append`, without a promise per record (a bulk send records thousands a second):
   * `onError` hears of a record that could not be written.
   */
  add(record: StoredRecord, onError: (error: unknown) => void, line?: string): void {
    if (this.closed) return onError(new Error(`the event store ${this.dir} is closed`));
    if (this.broken !== null) return onError(this.broken);
    // `line`: recordLine(record), already made by the caller (a bulk send's sentRecordLine).
    this.enqueue(line ?? recordLine(record), entryFields(record), (failed, error) => {
      if (failed) onError(error);
    });
  }

  /**
   * A received webhook event, written as `append(eventRecord(...))` would write it but without
   * the record object and the promise: `done` is called once it is written (or synced), which is
   * when the listener may answer 2xx, or with failed = true.
   */
  addEvent(event: IncomingEvent, done: Written): void {
    if (this.closed) return done(true, new Error(`the event store ${this.dir} is closed`));
    if (this.broken !== null) return done(true, this.broken);
    this.enqueue(eventLine(event), eventFields(event), done);
  }

  /** Encodes the line into the batch buffer (one buffer a turn, not one a record) and queues it. */
  private enqueue(line: string, fields: EntryFields, done: Written): void {
    const start = this.batchUsed;
    // UTF-8 takes at most 3 bytes per UTF-16 code unit; one more for the newline.
    const room = start + line.length * 3 + 1;
    if (room > this.batch.length) {
      const grown = Buffer.allocUnsafe(Math.max(room, this.batch.length * 2));
      this.batch.copy(grown, 0, 0, start);
      this.batch = grown;
    }
    const length = this.batch.write(line, start, 'utf8');
    this.batch[start + length] = 10;
    this.batchUsed = start + length + 1;
    this.queue.push({ start, length, fields, done });
    this.schedule();
  }

  private schedule(): void {
    if (this.lazy && this.queue.length >= LAZY_BATCH_RECORDS) {
      this.flushLazyNow();
      return;
    }
    if (this.scheduled) return;
    this.scheduled = true;
    if (this.lazy) {
      this.lazyTimer = setTimeout(() => {
        this.lazyTimer = undefined;
        this.scheduled = false;
        this.flush();
      }, LAZY_FLUSH_MS);
      return;
    }
    // After the poll phase: every request whose body ended in this turn is in one write.
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flushLazyNow(): void {
    clearTimeout(this.lazyTimer);
    this.lazyTimer = undefined;
    this.scheduled = false;
    this.flush();
  }

  private fail(error: unknown, batch: Pending[]): void {
    this.broken ??= error;
    for (const pending of batch) pending.done(true, error);
    for (const pending of this.queue.splice(0)) pending.done(true, error);
    for (const pending of this.unsynced.splice(0)) pending.done(true, error);
  }

  private flush(): void {
    if (this.queue.length === 0 || this.broken !== null) return;
    const batch = this.queue;
    this.queue = [];
    // Every part is written before anyone hears of it: what `done` does (answer, append more)
    // then finds the batch buffer free again.
    let written = 0;
    let failure: { error: unknown } | null = null;
    while (written < batch.length) {
      const count = Math.min(batch.length - written, Math.max(1, this.segmentRecords - this.count));
      try {
        this.writePart(batch, written, count);
      } catch (error) {
        failure = { error };
        break;
      }
      written += count;
      this.written = true;
      if (this.ack === 'fsync') this.dirty.add(this.dataFd);
      if (this.count >= this.segmentRecords) {
        this.closeSegment();
        try {
          this.startSegment();
        } catch (error) {
          failure = { error };
          break;
        }
      }
    }
    this.batchUsed = 0;
    if (this.batch.length > 16 * BATCH_BYTES) this.batch = Buffer.allocUnsafe(BATCH_BYTES);
    if (this.ack === 'write') {
      for (let i = 0; i < written; i++) batch[i]!.done(false);
    } else {
      for (let i = 0; i < written; i++) this.unsynced.push(batch[i]!);
    }
    if (failure !== null) {
      this.fail(failure.error, batch.slice(written));
      return;
    }
    if (this.ack === 'fsync' && this.syncing === null) this.startSync();
  }

  /** One fdatasync round over every file written since the last; appends written meanwhile wait for the next. */
  private startSync(): void {
    const group = this.unsynced;
    const fds = [...this.dirty];
    this.unsynced = [];
    this.dirty.clear();
    this.written = false;
    this.syncing = Promise.all(fds.map(fdatasyncAsync)).then(
      () => {
        for (const pending of group) pending.done(false);
      },
      (error: unknown) => this.fail(error, group),
    );
    void this.syncing.finally(() => {
      // A finished segment's file closes once no write to it waits for a sync.
      for (const fd of fds) {
        if (!this.dirty.has(fd) && this.retired.delete(fd)) closeSync(fd);
      }
      this.syncing = null;
      if (this.unsynced.length > 0 && this.broken === null) this.startSync();
    });
  }

  /** Writes `count` queued records from `from` on: their lines in one write, then their index entries in one. */
  private writePart(batch: Pending[], from: number, count: number): void {
    const first = batch[from]!;
    const last = batch[from + count - 1]!;
    const data = this.batch.subarray(first.start, last.start + last.length + 1);
    const index = Buffer.alloc(count * ENTRY_BYTES);
    const view = new DataView(index.buffer, index.byteOffset, index.byteLength);
    let offset = this.size;
    for (let i = 0; i < count; i++) {
      const pending = batch[from + i]!;
      writeEntry(view, i * ENTRY_BYTES, offset, pending.length, pending.fields);
      offset += pending.length + 1;
    }
    // The data first: a reader indexes lines the index does not cover yet, never the reverse.
    writeFully(this.dataFd, data);
    writeFully(this.indexFd, index);
    this.size = offset;
    this.count += count;
  }

  /** Waits for what was appended, syncs it, then closes. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.lazyTimer !== undefined) this.flushLazyNow();
    while (this.scheduled || this.syncing !== null || this.queue.length > 0 || this.unsynced.length > 0) {
      if (this.syncing !== null) await this.syncing.catch(() => undefined);
      else await new Promise<void>((resolve) => setImmediate(resolve));
      // A finished sync starts the next one itself, in its own finally: let it run.
      await Promise.resolve();
    }
    const empty = this.count === 0;
    // Acknowledged on write: made durable once, at the end.
    if (this.written && this.dataFd >= 0) await fdatasyncAsync(this.dataFd).catch(() => undefined);
    for (const fd of this.retired) {
      await fdatasyncAsync(fd).catch(() => undefined);
      closeSync(fd);
    }
    this.retired.clear();
    this.closeSegment();
    if (empty) this.removeEmptySegment();
  }

  private removeEmptySegment(): void {
    // A writer that wrote nothing leaves nothing behind.
    try {
      unlinkSync(join(this.dir, this.base + DATA_SUFFIX));
      unlinkSync(join(this.dir, this.base + INDEX_SUFFIX));
    } catch {
      /* gone already */
    }
  }
}

/**
 * Writes records as one new segment in a single pass, without syncing: for importing, and for
 * generating large stores in tests and benchmarks. Returns the segment's file name.
 */
export function writeSegment(dir: string, records: readonly StoredRecord[], name?: string): string {
  ensureStoreDir(dir);
  const base = name ?? `seg-${String(Date.now()).padStart(14, '0')}-0-${Math.random().toString(36).slice(2, 8)}`;
  const lines = records.map((record) => Buffer.from(`${recordLine(record)}\n`, 'utf8'));
  const index = Buffer.alloc(records.length * ENTRY_BYTES);
  const view = new DataView(index.buffer, index.byteOffset, index.byteLength);
  let offset = 0;
  records.forEach((record, i) => {
    writeEntry(view, i * ENTRY_BYTES, offset, lines[i]!.length - 1, entryFields(record));
    offset += lines[i]!.length;
  });
  const dataFd = openSync(join(dir, base + DATA_SUFFIX), 'wx', 0o600);
  try {
    writeFully(dataFd, Buffer.concat(lines));
  } finally {
    closeSync(dataFd);
  }
  const indexFd = openSync(join(dir, base + INDEX_SUFFIX), 'w', 0o600);
  try {
    writeFully(indexFd, index);
  } finally {
    closeSync(indexFd);
  }
  return base + DATA_SUFFIX;
}
