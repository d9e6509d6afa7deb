// The event store: what `svc webhook listen` accepted and what `svc send` sent, kept so that
// `svc events`, `svc thread` and `svc send report` can look back.
//
// Layout (chosen by measurement, bench/events.mjs): a directory of append-only NDJSON segment
// files, one JSON record a line, that `cat`, `grep` and `jq` read as they are, each with a small
// binary index beside it (`.idx`, 40 bytes a record: time, offset, length and hashes of the type,
// two numbers, the message id and the record id). A query reads the indexes (40 MB at 1,000,000 records), keeps
// the entries whose hashes match, and parses only those lines, then checks them exactly (a hash
// may collide; the check never lets a wrong record through).
//
// Every writing process writes its own segments (named by creation time and process id), so a
// listener and a `svc send` can write the same store at once without a lock. A record is
// acknowledged (the promise of `append` resolves) once its line is written to the file, which a
// killed process cannot undo (the kernel holds it), or, with `ack: 'fsync'`, once it is also
// fdatasync'd, which a power cut cannot undo either. Appends of one event-loop turn share one
// write; with fsync, every append written while a sync runs joins the next sync (group commit). The data file is the truth: the index is written after it, and a reader indexes
// whatever lies past the index's end (a writer killed between the two writes) itself. A torn last
// line (a write cut short) was never acknowledged and is skipped.

import { closeSync, fdatasync, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { jsonString, jsonStrings } from '../output/json-text.js';

export type StoredKind = 'event' | 'sent';

export interface StoredRecord {
  /** Events: the delivery id (X-Svc-Delivery), or `sha256:<hex>` of the body when none was sent. Sent: `sent:<messageId>`. */
  id: string;
  kind: StoredKind;
  /** MessageReceived, DeliveryReceipt, OrderStatus, unknown, or `sent`. */
  type: string;
  /** ISO 8601 time the event was received or the message sent. */
  at: string;
  /** The numbers the record concerns (from, to). */
  numbers: string[];
  messageId?: string;
  /** A receipt's or a sent message's status. */
  status?: string;
  from?: string;
  to?: string[];
  /**
   * An event: whether its X-Svc-Signature was checked (false: accepted by `webhook listen
   * --no-verify`). Absent from sent records, and from events stored before the mark was kept.
   */
  verified?: boolean;
  /** The delivery headers of an event (never Authorization). */
  headers?: Record<string, string>;
  /** An event: its body exactly as received. A sent message: its text. */
  body: string;
}

export const ENTRY_BYTES = 40;
export const DATA_SUFFIX = '.ndjson';
export const INDEX_SUFFIX = '.idx';
/** A hash that stands for "more numbers than the index holds": the line is always checked. */
const ANY = 0xffffffff;
const NONE = 0;
export const DEFAULT_SEGMENT_RECORDS = 50_000;

/** FNV-1a, 32 bits, over UTF-16 code units; never NONE or ANY so those stay markers. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h >>>= 0;
  return h === NONE || h === ANY ? 1 : h;
}

/** Numbers compare without spaces, dashes, dots and brackets: `+1 (415) 555-1001` is `+14155551001`. */
export function normalizeNumber(number: string): string {
  // The common case (`+14155551001`) without a regular expression.
  for (let i = 0; i < number.length; i++) {
    const c = number.charCodeAt(i);
    if (c !== 0x2b && (c < 0x30 || c > 0x39)) return number.replace(/[\s().-]/g, '');
  }
  return number;
}

function typeKey(type: string): string {
  return type.toLowerCase();
}

// The hash of a type, remembered: a store sees a handful of types.
const typeHashes = new Map<string, number>();
function typeHash(type: string): number {
  let hash = typeHashes.get(type);
  if (hash === undefined) {
    hash = hash32(typeKey(type));
    if (typeHashes.size < 64) typeHashes.set(type, hash);
  }
  return hash;
}

interface EntryFields {
  time: number;
  typeHash: number;
  number1: number;
  number2: number;
  messageHash: number;
  idHash: number;
}

function entryFields(record: StoredRecord): EntryFields {
  return fieldsOf(Date.parse(record.at), record.type, record.numbers[0], record.numbers.length > 2 ? null : record.numbers[1], record.messageId, record.id);
}

/** An entry's fields; `second` null when the record concerns more than two numbers. */
function fieldsOf(time: number, type: string, first: string | undefined, second: string | undefined | null, messageId: string | undefined, id: string): EntryFields {
  return {
    time,
    typeHash: typeHash(type),
    number1: first === undefined ? NONE : hash32(normalizeNumber(first)),
    number2: second === null ? ANY : second === undefined ? NONE : hash32(normalizeNumber(second)),
    messageHash: messageId === undefined ? NONE : hash32(messageId),
    idHash: hash32(id),
  };
}

function writeEntry(view: DataView, at: number, offset: number, length: number, fields: EntryFields): void {
  view.setFloat64(at, fields.time, true);
  view.setUint32(at + 8, offset, true);
  view.setUint32(at + 12, length, true);
  view.setUint32(at + 16, fields.typeHash, true);
  view.setUint32(at + 20, fields.number1, true);
  view.setUint32(at + 24, fields.number2, true);
  view.setUint32(at + 28, fields.messageHash, true);
  view.setUint32(at + 32, fields.idHash, true);
  view.setUint32(at + 36, 0, true);
}

/** Headers never kept: credentials, and what belongs to one connection. */
export const NOT_KEPT_HEADERS: ReadonlySet<string> = new Set(['authorization', 'proxy-authorization', 'cookie', 'host', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

/** The kept headers as a JSON object, in their order (what JSON.stringify of the kept ones gives). */
function jsonHeaders(headers: Readonly<Record<string, string | string[] | undefined>>, filter: boolean): string {
  let text = '{';
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (value === undefined || (filter && NOT_KEPT_HEADERS.has(name))) continue;
    const member = `${jsonString(name)}:${jsonString(typeof value === 'string' ? value : value.join(', '))}`;
    text += text.length === 1 ? member : `,${member}`;
  }
  return `${text}}`;
}

/**
 * One line: the id first, so that a reader can take it without parsing the rest. The members in
 * a fixed order, undefined ones left out: the text JSON.stringify gives for the record (a test
 * holds the two equal), built from its parts.
 */
export function recordLine(record: StoredRecord): string {
  let line = `{"id":${jsonString(record.id)},"kind":${jsonString(record.kind)},"type":${jsonString(record.type)},"at":${jsonString(record.at)},"numbers":${jsonStrings(record.numbers)}`;
  if (record.messageId !== undefined) line += `,"messageId":${jsonString(record.messageId)}`;
  if (record.status !== undefined) line += `,"status":${jsonString(record.status)}`;
  if (record.from !== undefined) line += `,"from":${jsonString(record.from)}`;
  if (record.to !== undefined) line += `,"to":${jsonStrings(record.to)}`;
  if (record.verified !== undefined) line += `,"verified":${record.verified}`;
  if (record.headers !== undefined) line += `,"headers":${jsonHeaders(record.headers, false)}`;
  return `${line},"body":${JSON.stringify(record.body)}}`;
}

/**
 * A received webhook event as the listener has it: what `eventRecord` (records.ts) makes a
 * StoredRecord of, here written straight to its line without one.
 */
export interface IncomingEvent {
  id: string;
  type: string;
  /** Milliseconds since the epoch, and the same time in ISO 8601. */
  time: number;
  at: string;
  from?: string | undefined;
  to?: readonly string[] | undefined;
  messageId?: string | undefined;
  status?: string | undefined;
  /** Whether the signature was checked (see StoredRecord.verified). */
  verified?: boolean | undefined;
  /** The request's headers as Node gives them; the ones never kept (credentials) are left out here. */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  raw: string;
}

/** The line of `recordLine(eventRecord(event))`, without building the record. */
export function eventLine(event: IncomingEvent): string {
  const { from, to } = event;
  let numbers = from === undefined ? '' : jsonString(from);
  if (to !== undefined) for (let i = 0; i < to.length; i++) numbers += numbers === '' ? jsonString(to[i]!) : `,${jsonString(to[i]!)}`;
  let line = `{"id":${jsonString(event.id)},"kind":"event","type":${jsonString(event.type)},"at":${jsonString(event.at)},"numbers":[${numbers}]`;
  if (event.messageId !== undefined) line += `,"messageId":${jsonString(event.messageId)}`;
  if (event.status !== undefined) line += `,"status":${jsonString(event.status)}`;
  if (from !== undefined) line += `,"from":${jsonString(from)}`;
  if (to !== undefined) line += `,"to":${jsonStrings(to)}`;
  if (event.verified !== undefined) line += `,"verified":${event.verified}`;
  return `${line},"headers":${jsonHeaders(event.headers, true)},"body":${JSON.stringify(event.raw)}}`;
}

function eventFields(event: IncomingEvent): EntryFields {
  const { from, to } = event;
  const count = (from === undefined ? 0 : 1) + (to === undefined ? 0 : to.length);
  const first = from ?? to?.[0];
  const second = count > 2 ? null : from === undefined ? to?.[1] : to?.[0];
  return fieldsOf(event.time, event.type, first, second, event.messageId, event.id);
}

export function parseRecord(line: string): StoredRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const r = value as Record<string, unknown>;
  if (typeof r['id'] !== 'string' || (r['kind'] !== 'event' && r['kind'] !== 'sent') || typeof r['type'] !== 'string') return undefined;
  if (typeof r['at'] !== 'string' || !Array.isArray(r['numbers']) || typeof r['body'] !== 'string') return undefined;
  return value as StoredRecord;
}

export function writeFully(fd: number, bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
}

export function fdatasyncAsync(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fdatasync(fd, (error) => (error ? reject(error) : resolve())));
}

export function ensureStoreDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

export const REPLACES_SUFFIX = '.replaces';

/**
 * The segments of a store, oldest first. A segment that compaction has replaced (named in the
 * `.replaces` file of a new segment that exists) is left out even while its file still exists: a
 * compaction cut short between writing the new segment and deleting the old ones duplicates
 * nothing.
 */
export function listSegments(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const present = new Set(names);
  const superseded = new Set<string>();
  for (const name of names) {
    if (!name.endsWith(REPLACES_SUFFIX)) continue;
    if (!present.has(name.slice(0, -REPLACES_SUFFIX.length) + DATA_SUFFIX)) continue;
    for (const old of replacedBy(dir, name)) superseded.add(old);
  }
  return names.filter((name) => name.startsWith('seg-') && name.endsWith(DATA_SUFFIX) && !superseded.has(name)).sort();
}

/** The data files a `.replaces` file names (none when it cannot be read: then nothing is left out). */
export function replacedBy(dir: string, replacesName: string): string[] {
  try {
    const value = JSON.parse(readFileSync(join(dir, replacesName), 'utf8')) as unknown;
    return Array.isArray(value) ? value.filter((name): name is string => typeof name === 'string') : [];
  } catch {
    return [];
  }
}

/** Segments written by compaction carry pid 0 and a `c` before their random part. */
export function isCompacted(name: string): boolean {
  return /^seg-\d+-0-c/.test(name);
}

/** The process id a segment's name carries (its writer). */
export function segmentWriterPid(name: string): number {
  const parts = name.slice(0, -DATA_SUFFIX.length).split('-');
  return Number(parts[2]);
}

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

// ---------------------------------------------------------------------------------------------
// Reading

/** A segment's index, completed with the entries of any lines past the index's end. */
export interface SegmentIndex {
  name: string;
  path: string;
  view: DataView;
  /** The same entries as typed arrays (10 words an entry; the time is f64[5 * i]): what a scan reads. */
  f64: Float64Array;
  u32: Uint32Array;
  count: number;
  minTime: number;
  maxTime: number;
  dataSize: number;
}

export function readRange(fd: number, offset: number, length: number): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  let read = 0;
  while (read < length) {
    const n = readSync(fd, buffer, read, length - read, offset + read);
    if (n === 0) break;
    read += n;
  }
  return buffer.subarray(0, read);
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Typed arrays over the index entries (little-endian on disk): a scan reads them several times
 * faster than through a DataView. Copied only when the bytes are not 8-byte aligned or the
 * machine is big-endian.
 */
function typedEntries(view: DataView, count: number): { f64: Float64Array; u32: Uint32Array } {
  const bytes = count * ENTRY_BYTES;
  let buffer: ArrayBufferLike = view.buffer;
  let offset = view.byteOffset;
  if (!LITTLE_ENDIAN) {
    const copy = new DataView(new ArrayBuffer(bytes));
    for (let at = 0; at < bytes; at += 8) copy.setFloat64(at, view.getFloat64(at, true));
    for (let at = 0; at < bytes; at += 4) if (at % ENTRY_BYTES >= 8) copy.setUint32(at, view.getUint32(at, true));
    buffer = copy.buffer;
    offset = 0;
  } else if (offset % 8 !== 0) {
    const copy = new Uint8Array(bytes);
    copy.set(new Uint8Array(view.buffer, offset, bytes));
    buffer = copy.buffer;
    offset = 0;
  }
  return { f64: new Float64Array(buffer, offset, bytes / 8), u32: new Uint32Array(buffer, offset, bytes / 4) };
}

export function loadSegmentIndex(dir: string, name: string): SegmentIndex | undefined {
  const path = join(dir, name);
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const dataSize = fstatSync(fd).size;
    let indexBytes: Buffer;
    try {
      indexBytes = readFileSync(path.slice(0, -DATA_SUFFIX.length) + INDEX_SUFFIX);
    } catch {
      indexBytes = Buffer.alloc(0);
    }
    let count = Math.floor(indexBytes.length / ENTRY_BYTES);
    let view = new DataView(indexBytes.buffer, indexBytes.byteOffset, count * ENTRY_BYTES);
    // Entries past the data (a power cut that kept the index but not the data) are dropped.
    while (count > 0) {
      const last = (count - 1) * ENTRY_BYTES;
      if (view.getUint32(last + 8, true) + view.getUint32(last + 12, true) + 1 <= dataSize) break;
      count--;
    }
    const covered = count === 0 ? 0 : view.getUint32((count - 1) * ENTRY_BYTES + 8, true) + view.getUint32((count - 1) * ENTRY_BYTES + 12, true) + 1;
    if (covered < dataSize) {
      // Lines the index does not cover yet: index them here (only complete, well-formed lines).
      const tail = readRange(fd, covered, dataSize - covered);
      const extra: { offset: number; length: number; fields: EntryFields }[] = [];
      let start = 0;
      for (let nl = tail.indexOf(10, start); nl !== -1; nl = tail.indexOf(10, start)) {
        const record = parseRecord(tail.toString('utf8', start, nl));
        if (record !== undefined) extra.push({ offset: covered + start, length: nl - start, fields: entryFields(record) });
        start = nl + 1;
      }
      const merged = Buffer.alloc((count + extra.length) * ENTRY_BYTES);
      merged.set(new Uint8Array(view.buffer, view.byteOffset, count * ENTRY_BYTES), 0);
      const mergedView = new DataView(merged.buffer, merged.byteOffset, merged.byteLength);
      extra.forEach((entry, i) => writeEntry(mergedView, (count + i) * ENTRY_BYTES, entry.offset, entry.length, entry.fields));
      view = mergedView;
      count += extra.length;
    }
    const { f64, u32 } = typedEntries(view, count);
    let minTime = Infinity;
    let maxTime = -Infinity;
    for (let i = 0; i < count; i++) {
      const t = f64[i * 5]!;
      if (t < minTime) minTime = t;
      if (t > maxTime) maxTime = t;
    }
    return { name, path, view, f64, u32, count, minTime, maxTime, dataSize };
  } finally {
    closeSync(fd);
  }
}

export interface StoreQuery {
  kinds?: readonly StoredKind[];
  /** Event types, case-insensitive. */
  types?: readonly string[];
  /** A number the record concerns; with `linkReceipts`, also events about messages sent to it. */
  number?: string;
  linkReceipts?: boolean;
  messageIds?: readonly string[];
  id?: string;
  /** Milliseconds since the epoch, inclusive. */
  since?: number;
  /** Milliseconds since the epoch, exclusive. */
  until?: number;
}

interface Candidate {
  segment: number;
  entry: number;
  time: number;
}

/** Reads the lines of the chosen entries of one segment: one read per line, or the whole file for many. */
function readLines(segment: SegmentIndex, entries: number[]): string[] {
  const fd = openSync(segment.path, 'r');
  try {
    const view = segment.view;
    if (entries.length > 256 && entries.length * 8 > segment.count) {
      const all = readRange(fd, 0, segment.dataSize);
      return entries.map((i) => {
        const offset = view.getUint32(i * ENTRY_BYTES + 8, true);
        return all.toString('utf8', offset, offset + view.getUint32(i * ENTRY_BYTES + 12, true));
      });
    }
    return entries.map((i) => readRange(fd, view.getUint32(i * ENTRY_BYTES + 8, true), view.getUint32(i * ENTRY_BYTES + 12, true)).toString('utf8'));
  } finally {
    closeSync(fd);
  }
}

/** A record read from its place in the store: segment `segment` (in listSegments order), entry `entry`. */
interface Placed {
  record: StoredRecord;
  time: number;
  segment: number;
  entry: number;
}

/** Whether a is stored before b: by time, then segment, then place in the segment (the order readers list in). */
function storedBefore(a: { time: number; segment: number; entry: number }, b: { time: number; segment: number; entry: number }): boolean {
  return a.time !== b.time ? a.time < b.time : a.segment !== b.segment ? a.segment < b.segment : a.entry < b.entry;
}

/**
 * A filter of 65,536 bits over the low bits of some id hashes: a scan asks it first, so that an
 * entry whose id is surely not among them costs a bit test, not a Set lookup.
 */
function hashFilter(hashes: ReadonlySet<number>): Uint8Array {
  const bits = new Uint8Array(8192);
  for (const hash of hashes) bits[(hash & 0xffff) >>> 3]! |= 1 << (hash & 7);
  return bits;
}

/**
 * Of the records picked, the first stored copy of each id. Two listeners writing one store (two
 * ports behind a balancer) each store a delivery that the sender retried to the other one: the
 * dedupe of one listener cannot see the other's. Every reader keeps the copy stored first, and so
 * looks at every entry stored no later than the newest pick whose id hash is a picked one (an
 * earlier copy may lie outside the query: before --since, or of another segment), reading only
 * those lines to compare the ids exactly.
 */
function firstCopies<T extends Placed>(segments: readonly SegmentIndex[], picked: readonly T[]): T[] {
  if (picked.length === 0) return [...picked];
  const hashes = new Set<number>();
  const pickedKeys = new Set<number>();
  let newest = -Infinity;
  for (const p of picked) {
    hashes.add(segments[p.segment]!.u32[p.entry * 10 + 8]!);
    pickedKeys.add(p.segment * 0x1_0000_0000 + p.entry);
    if (p.time > newest) newest = p.time;
  }
  const bits = hashFilter(hashes);
  // Entries with a picked id hash that were not picked: maybe copies (or a hash that collides).
  const others = new Map<number, number[]>();
  segments.forEach((segment, s) => {
    if (segment.count === 0 || segment.minTime > newest) return;
    const { f64, u32 } = segment;
    for (let i = 0; i < segment.count; i++) {
      const hash = u32[i * 10 + 8]!;
      if ((bits[(hash & 0xffff) >>> 3]! & (1 << (hash & 7))) === 0 || !hashes.has(hash)) continue;
      if (f64[i * 5]! > newest || pickedKeys.has(s * 0x1_0000_0000 + i)) continue;
      let list = others.get(s);
      if (list === undefined) others.set(s, (list = []));
      list.push(i);
    }
  });
  // The first place of each id, among the picks and the copies found.
  const first = new Map<string, { time: number; segment: number; entry: number }>();
  const consider = (id: string, place: { time: number; segment: number; entry: number }): void => {
    const known = first.get(id);
    if (known === undefined || storedBefore(place, known)) first.set(id, place);
  };
  for (const p of picked) consider(p.record.id, p);
  for (const [s, entries] of others) {
    const segment = segments[s]!;
    let lines: string[];
    try {
      lines = readLines(segment, entries);
    } catch {
      continue; // gone since its index was read (compacted away): its records live on in the new segment
    }
    lines.forEach((line, k) => {
      const id = parseRecord(line)?.id;
      if (id !== undefined && first.has(id)) consider(id, { time: segment.f64[entries[k]! * 5]!, segment: s, entry: entries[k]! });
    });
  }
  return picked.filter((p) => {
    const place = first.get(p.record.id)!;
    return place.segment === p.segment && place.entry === p.entry;
  });
}

export class EventStoreReader {
  private segments: SegmentIndex[] | undefined;

  constructor(readonly dir: string) {}

  /** Every segment's index (loaded once per reader). */
  load(): SegmentIndex[] {
    this.segments ??= listSegments(this.dir)
      .map((name) => loadSegmentIndex(this.dir, name))
      .filter((segment): segment is SegmentIndex => segment !== undefined);
    return this.segments;
  }

  get total(): number {
    return this.load().reduce((sum, segment) => sum + segment.count, 0);
  }

  /** The records that match, oldest first. */
  query(query: StoreQuery): StoredRecord[] {
    let linked: Set<string> | undefined;
    if (query.number !== undefined && query.linkReceipts === true) {
      linked = new Set(
        this.query({ kinds: ['sent'], number: query.number })
          .map((record) => record.messageId)
          .filter((id): id is string => id !== undefined),
      );
    }
    const segments = this.load();
    const typeHashes = query.types === undefined ? undefined : new Set(query.types.map((type) => hash32(typeKey(type))));
    const number = query.number === undefined ? undefined : normalizeNumber(query.number);
    const numberHash = number === undefined ? undefined : hash32(number);
    const messageHashes = new Set<number>();
    for (const id of query.messageIds ?? []) messageHashes.add(hash32(id));
    const linkedHashes = new Set<number>();
    for (const id of linked ?? []) linkedHashes.add(hash32(id));
    const wantMessages = query.messageIds !== undefined;
    const since = query.since ?? -Infinity;
    const until = query.until ?? Infinity;
    const sentHash = hash32('sent');
    const kinds = query.kinds === undefined ? undefined : new Set(query.kinds);
    const onlyEvents = kinds !== undefined && kinds.size === 1 && kinds.has('event');
    const onlySent = kinds !== undefined && kinds.size === 1 && kinds.has('sent');

    const candidates: Candidate[] = [];
    segments.forEach((segment, s) => {
      if (segment.count === 0 || segment.maxTime < since || segment.minTime >= until) return;
      const { f64, u32 } = segment;
      for (let i = 0; i < segment.count; i++) {
        const time = f64[i * 5]!;
        if (time < since || time >= until) continue;
        const w = i * 10;
        const typeHash = u32[w + 4]!;
        if (onlyEvents && typeHash === sentHash) continue;
        if (onlySent && typeHash !== sentHash) continue;
        if (typeHashes !== undefined && !typeHashes.has(typeHash)) continue;
        const messageHash = u32[w + 7]!;
        if (wantMessages && !messageHashes.has(messageHash)) continue;
        if (numberHash !== undefined) {
          const n1 = u32[w + 5]!;
          const n2 = u32[w + 6]!;
          const byNumber = n1 === numberHash || n2 === numberHash || n2 === ANY;
          if (!byNumber && !linkedHashes.has(messageHash)) continue;
        }
        candidates.push({ segment: s, entry: i, time });
      }
    });

    const bySegment = new Map<number, number[]>();
    for (const candidate of candidates) {
      let list = bySegment.get(candidate.segment);
      if (list === undefined) bySegment.set(candidate.segment, (list = []));
      list.push(candidate.entry);
    }
    const results: Placed[] = [];
    const messageIds = query.messageIds === undefined ? undefined : new Set(query.messageIds);
    const typeNames = query.types === undefined ? undefined : new Set(query.types.map(typeKey));
    for (const [s, entries] of bySegment) {
      const segment = segments[s]!;
      const lines = readLines(segment, entries);
      lines.forEach((line, k) => {
        const record = parseRecord(line);
        if (record === undefined) return;
        if (kinds !== undefined && !kinds.has(record.kind)) return;
        if (typeNames !== undefined && !typeNames.has(typeKey(record.type))) return;
        if (messageIds !== undefined && (record.messageId === undefined || !messageIds.has(record.messageId))) return;
        if (query.id !== undefined && record.id !== query.id) return;
        if (number !== undefined) {
          const concerns = record.numbers.some((n) => normalizeNumber(n) === number);
          if (!concerns && !(record.messageId !== undefined && linked?.has(record.messageId) === true)) return;
        }
        const entry = entries[k]!;
        results.push({ record, time: segment.f64[entry * 5]!, segment: s, entry });
      });
    }
    results.sort((a, b) => a.time - b.time || a.segment - b.segment || a.entry - b.entry);
    return firstCopies(segments, results).map((result) => result.record);
  }

  /** One record by its id: the copy stored first, when it was stored more than once (see firstCopies). */
  get(id: string): StoredRecord | undefined {
    const idHash = hash32(id);
    let found: Placed | undefined;
    this.load().forEach((segment, s) => {
      const entries: number[] = [];
      for (let i = 0; i < segment.count; i++) if (segment.u32[i * 10 + 8] === idHash) entries.push(i);
      if (entries.length === 0) return;
      readLines(segment, entries).forEach((line, k) => {
        const record = parseRecord(line);
        if (record === undefined || record.id !== id) return;
        const place = { record, time: segment.f64[entries[k]! * 5]!, segment: s, entry: entries[k]! };
        if (found === undefined || storedBefore(place, found)) found = place;
      });
    });
    return found?.record;
  }
}

/**
 * The ids of the newest events (at most `limit`), for a listener's dedupe window after a restart.
 * The records a send keeps (`sent:<messageId>`) are not deliveries: counting them would let a big
 * send push the delivery ids of real events out of the window.
 */
export function recentIds(dir: string, limit: number): string[] {
  const ids: string[] = [];
  const names = listSegments(dir).reverse();
  for (const name of names) {
    if (ids.length >= limit) break;
    let data: Buffer;
    try {
      data = readFileSync(join(dir, name));
    } catch {
      continue;
    }
    // Only complete lines: a torn last line was never acknowledged.
    const text = data.toString('utf8', 0, data.lastIndexOf(10) + 1);
    const found: string[] = [];
    const pattern = /^\{"id":("(?:[^"\\\n]|\\.)*")/gm;
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
      try {
        const id = JSON.parse(match[1]!) as string;
        if (!id.startsWith('sent:')) found.push(id);
      } catch {
        /* a torn line */
      }
    }
    ids.push(...found.reverse());
  }
  return ids.slice(0, limit).reverse();
}

// ---------------------------------------------------------------------------------------------
// The newest records, following, pruning

/**
 * The `count` newest records of the given kinds, oldest first; a later copy of a record (see
 * firstCopies) is not one of them.
 */
export function latestRecords(reader: EventStoreReader, count: number, kinds: readonly StoredKind[] = ['event']): StoredRecord[] {
  if (count <= 0) return [];
  const sentHash = hash32('sent');
  const wantSent = kinds.includes('sent');
  const wantEvents = kinds.includes('event');
  const segments = reader.load();
  // Later copies met on the way: left out, and the newest looked for again (copies are rare).
  const later = new Set<number>();
  for (;;) {
    // Keep the newest `count` candidates: a bounded list, sorted as it goes (count is small).
    const best: Candidate[] = [];
    segments.forEach((segment, s) => {
      for (let i = 0; i < segment.count; i++) {
        const isSent = segment.u32[i * 10 + 4] === sentHash;
        if (isSent ? !wantSent : !wantEvents) continue;
        const time = segment.f64[i * 5]!;
        if (best.length === count && time < best[0]!.time) continue;
        if (later.size > 0 && later.has(s * 0x1_0000_0000 + i)) continue;
        let at = best.length;
        while (at > 0 && best[at - 1]!.time > time) at--;
        best.splice(at, 0, { segment: s, entry: i, time });
        if (best.length > count) best.shift();
      }
    });
    const placed: Placed[] = [];
    for (const candidate of best) {
      const record = parseRecord(readLines(segments[candidate.segment]!, [candidate.entry])[0] ?? '');
      if (record !== undefined && kinds.includes(record.kind)) placed.push({ record, ...candidate });
    }
    const firsts = firstCopies(segments, placed);
    if (firsts.length === placed.length) return firsts.map((p) => p.record);
    const kept = new Set(firsts);
    for (const p of placed) if (!kept.has(p)) later.add(p.segment * 0x1_0000_0000 + p.entry);
  }
}

/** Where the lines a segment's index covers end: what a reader of that index has seen. */
function indexedEnd(segment: SegmentIndex): number {
  if (segment.count === 0) return 0;
  const last = (segment.count - 1) * 10;
  return segment.u32[last + 2]! + segment.u32[last + 3]! + 1;
}

/**
 * Reads what writers append after it started: each poll returns the complete new lines of every
 * segment (new segments from the start), oldest first, and never a record whose id it has found
 * before or that was stored before it started (a later copy, see firstCopies).
 */
/** A second copy of a delivery comes within the sender's 24 h of retries; an hour more for clocks. */
const FORGET_AFTER_MS = 25 * 3600_000;

export class StoreFollower {
  private readonly offsets = new Map<string, number>();
  /** The segments as they were when following began. */
  private readonly before: readonly SegmentIndex[];
  /**
   * The ids the polls found, with when each was stored, oldest first. A sender retries an event
   * for at most 24 h from its first attempt (decisions.md), so a second copy comes within that of
   * the first: ids stored longer ago than FORGET_AFTER_MS before the newest are forgotten, and a
   * follower running for weeks holds a day's ids, not every id it ever printed.
   */
  private readonly foundIds = new Map<string, number>();

  /**
   * `segments`: what a reader loaded (EventStoreReader.load) and showed already; following starts
   * where their indexes end, so that nothing is missed or found twice in between.
   */
  constructor(
    readonly dir: string,
    segments?: readonly SegmentIndex[],
  ) {
    this.before = segments ?? new EventStoreReader(dir).load();
    for (const segment of this.before) this.offsets.set(segment.name, indexedEnd(segment));
  }

  /** The records not found before, each id once. */
  private firstFound(records: StoredRecord[]): StoredRecord[] {
    if (records.length === 0) return records;
    const hashes = new Set(records.map((record) => hash32(record.id)));
    const bits = hashFilter(hashes);
    const storedBefore = new Set<number>();
    for (const { u32, count } of this.before) {
      for (let i = 0; i < count; i++) {
        const hash = u32[i * 10 + 8]!;
        if ((bits[(hash & 0xffff) >>> 3]! & (1 << (hash & 7))) !== 0 && hashes.has(hash)) storedBefore.add(hash);
      }
    }
    let reader: EventStoreReader | undefined;
    const first: StoredRecord[] = [];
    let newest = -Infinity;
    for (const record of records) {
      if (this.foundIds.has(record.id)) continue;
      const at = Date.parse(record.at);
      if (at > newest) newest = at;
      this.foundIds.set(record.id, Number.isNaN(at) ? Date.now() : at);
      if (storedBefore.has(hash32(record.id))) {
        // The same id hash was stored before: a copy, unless the hashes collide. The store says
        // which copy is the first (a file read then may have been compacted away since).
        reader ??= new EventStoreReader(this.dir);
        const stored = reader.get(record.id);
        if (stored !== undefined && JSON.stringify(stored) !== JSON.stringify(record)) continue;
      }
      first.push(record);
    }
    this.forget(newest - FORGET_AFTER_MS);
    return first;
  }

  /** Forgets the ids stored before `before` (they come in time order, oldest first). */
  private forget(before: number): void {
    for (const [id, at] of this.foundIds) {
      if (at >= before) return;
      this.foundIds.delete(id);
    }
  }

  /** How many ids the follower remembers (for tests). */
  get remembered(): number {
    return this.foundIds.size;
  }

  poll(): StoredRecord[] {
    const found: StoredRecord[] = [];
    for (const name of listSegments(this.dir)) {
      // A compacted segment holds records stored before, now merged: nothing new in it.
      if (!this.offsets.has(name) && isCompacted(name)) {
        this.offsets.set(name, Number.MAX_SAFE_INTEGER);
        continue;
      }
      const path = join(this.dir, name);
      const from = this.offsets.get(name) ?? 0;
      let fd: number;
      try {
        fd = openSync(path, 'r');
      } catch {
        continue;
      }
      try {
        const size = fstatSync(fd).size;
        if (size <= from) {
          this.offsets.set(name, from);
          continue;
        }
        const bytes = readRange(fd, from, size - from);
        const end = bytes.lastIndexOf(10);
        if (end === -1) continue;
        let start = 0;
        for (let nl = bytes.indexOf(10, start); nl !== -1 && nl <= end; nl = bytes.indexOf(10, start)) {
          const record = parseRecord(bytes.toString('utf8', start, nl));
          if (record !== undefined) found.push(record);
          start = nl + 1;
        }
        this.offsets.set(name, from + end + 1);
      } finally {
        closeSync(fd);
      }
    }
    return this.firstFound(found.sort((a, b) => Date.parse(a.at) - Date.parse(b.at)));
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
