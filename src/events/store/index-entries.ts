// The index beside each segment (`.idx`, 40 bytes a record: time, offset, length and hashes of the
// type, two numbers, the message id and the record id). A query reads the indexes (40 MB at
// 1,000,000 records), keeps the entries whose hashes match, and parses only those lines, then
// checks them exactly (a hash may collide; the check never lets a wrong record through). The data
// file is the truth: the index is written after it, and a reader indexes whatever lies past the
// index's end (a writer killed between the two writes) itself.

import { closeSync, fstatSync, openSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseRecord, type IncomingEvent, type StoredRecord } from './record.js';
import { DATA_SUFFIX, INDEX_SUFFIX, readRange } from './segments.js';

export const ENTRY_BYTES = 40;

/** A hash that stands for "more numbers than the index holds": the line is always checked. */
export const ANY = 0xffffffff;
const NONE = 0;

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

export function typeKey(type: string): string {
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

export interface EntryFields {
  time: number;
  typeHash: number;
  number1: number;
  number2: number;
  messageHash: number;
  idHash: number;
}

export function entryFields(record: StoredRecord): EntryFields {
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

export function writeEntry(view: DataView, at: number, offset: number, length: number, fields: EntryFields): void {
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

export function eventFields(event: IncomingEvent): EntryFields {
  const { from, to } = event;
  const count = (from === undefined ? 0 : 1) + (to === undefined ? 0 : to.length);
  const first = from ?? to?.[0];
  const second = count > 2 ? null : from === undefined ? to?.[1] : to?.[0];
  return fieldsOf(event.time, event.type, first, second, event.messageId, event.id);
}

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
  /** The index file did not match the data, and these entries were made from the data itself. */
  rebuilt: boolean;
  /** Lines of the data file (from 1) that are not records: left out of the entries, named to the user. */
  unreadable: number[];
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

/**
 * A segment's index, checked against its data file. The data is the truth: an index that does not
 * match it (a line deleted or changed by hand with sed, a power cut that kept index entries for
 * lines the data lost) is not used; the entries are made from the data instead (`rebuilt`), and
 * lines that are not records are named (`unreadable`) rather than skipped in silence.
 */
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
    // The index first, then the data's size: a writer appends the line before its entry, so every
    // entry read here has its line within the size read after it.
    let indexBytes: Buffer;
    try {
      indexBytes = readFileSync(path.slice(0, -DATA_SUFFIX.length) + INDEX_SUFFIX);
    } catch {
      indexBytes = Buffer.alloc(0);
    }
    const dataSize = fstatSync(fd).size;
    const count = Math.floor(indexBytes.length / ENTRY_BYTES);
    const view = new DataView(indexBytes.buffer, indexBytes.byteOffset, count * ENTRY_BYTES);
    const covered = coveredBytes(fd, view, count, dataSize);
    if (covered === undefined) return indexFromData(fd, dir, name, dataSize);
    return completed(fd, dir, name, view, count, covered, dataSize);
  } finally {
    closeSync(fd);
  }
}

/** Entries checked at load besides the last one: enough to catch an edit, few enough to cost nothing. */
const SPOT_CHECKS = 15;

/**
 * The bytes of the data file the index covers, or undefined when the index does not match the
 * data. A writer writes its segment's lines back to back from offset 0 and an entry for each, so
 * the entries must tile the file from 0 and end within it; the last entry and a few spread over
 * the file are read to check that each is a whole line holding the record the entry names.
 */
function coveredBytes(fd: number, view: DataView, count: number, dataSize: number): number | undefined {
  let expected = 0;
  for (let i = 0; i < count; i++) {
    if (view.getUint32(i * ENTRY_BYTES + 8, true) !== expected) return undefined;
    expected += view.getUint32(i * ENTRY_BYTES + 12, true) + 1;
  }
  if (expected > dataSize) return undefined;
  if (count === 0) return 0;
  const step = Math.max(1, Math.floor(count / SPOT_CHECKS));
  for (let i = count - 1; i >= 0; i -= step) if (!entryMatchesLine(fd, view, i)) return undefined;
  return expected;
}

function entryMatchesLine(fd: number, view: DataView, i: number): boolean {
  const offset = view.getUint32(i * ENTRY_BYTES + 8, true);
  const length = view.getUint32(i * ENTRY_BYTES + 12, true);
  const bytes = readRange(fd, offset, length + 1);
  if (bytes.length !== length + 1 || bytes[length] !== 10) return false;
  const record = parseRecord(bytes.toString('utf8', 0, length));
  return record !== undefined && hash32(record.id) === view.getUint32(i * ENTRY_BYTES + 32, true);
}

/** One entry for each record line of `bytes` (from `base` in the file); other complete lines are unreadable. */
function indexLines(bytes: Buffer, base: number, firstLine: number): { entries: { offset: number; length: number; fields: EntryFields }[]; unreadable: number[] } {
  const entries: { offset: number; length: number; fields: EntryFields }[] = [];
  const unreadable: number[] = [];
  let start = 0;
  let line = firstLine;
  // A last line without its newline is a write cut short: never acknowledged, so not a problem.
  for (let nl = bytes.indexOf(10, start); nl !== -1; nl = bytes.indexOf(10, start), line++) {
    const record = parseRecord(bytes.toString('utf8', start, nl));
    if (record !== undefined) entries.push({ offset: base + start, length: nl - start, fields: entryFields(record) });
    else if (nl > start) unreadable.push(line);
    start = nl + 1;
  }
  return { entries, unreadable };
}

/** The index made from the data alone, for a segment whose index file does not match it. */
function indexFromData(fd: number, dir: string, name: string, dataSize: number): SegmentIndex {
  const empty = new DataView(new ArrayBuffer(0));
  return { ...completed(fd, dir, name, empty, 0, 0, dataSize), rebuilt: true };
}

/** The index's entries, plus those of the lines past `covered` (a writer killed between its two writes). */
function completed(fd: number, dir: string, name: string, view: DataView, count: number, covered: number, dataSize: number): SegmentIndex {
  let unreadable: number[] = [];
  if (covered < dataSize) {
    const tail = indexLines(readRange(fd, covered, dataSize - covered), covered, count + 1);
    unreadable = tail.unreadable;
    const merged = Buffer.alloc((count + tail.entries.length) * ENTRY_BYTES);
    merged.set(new Uint8Array(view.buffer, view.byteOffset, count * ENTRY_BYTES), 0);
    const mergedView = new DataView(merged.buffer, merged.byteOffset, merged.byteLength);
    tail.entries.forEach((entry, i) => writeEntry(mergedView, (count + i) * ENTRY_BYTES, entry.offset, entry.length, entry.fields));
    view = mergedView;
    count += tail.entries.length;
  }
  const { f64, u32 } = typedEntries(view, count);
  let minTime = Infinity;
  let maxTime = -Infinity;
  for (let i = 0; i < count; i++) {
    const t = f64[i * 5]!;
    if (t < minTime) minTime = t;
    if (t > maxTime) maxTime = t;
  }
  return { name, path: join(dir, name), view, f64, u32, count, minTime, maxTime, dataSize, rebuilt: false, unreadable };
}

/** Whether the entry names the record read from its place: false when the index no longer matches the data. */
export function entryNames(segment: SegmentIndex, entry: number, record: StoredRecord | undefined): record is StoredRecord {
  return record !== undefined && hash32(record.id) === segment.u32[entry * 10 + 8];
}

/**
 * The segment's index from its data alone, for one whose index was found wrong while reading
 * (an edit that kept the file's length). Also used to write the index file anew: see
 * saveIndex.
 */
export function rebuildSegmentIndex(segment: SegmentIndex): SegmentIndex {
  const dir = dirname(segment.path);
  const fd = openSync(segment.path, 'r');
  try {
    return indexFromData(fd, dir, segment.name, fstatSync(fd).size);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes a rebuilt index in place of the wrong one (a temporary file renamed over it), so that the
 * next reader neither rebuilds nor warns again. Only for a segment no live process appends to: a
 * writer's open index file must stay the one it writes.
 */
export function saveIndex(segment: SegmentIndex): void {
  const path = segment.path.slice(0, -DATA_SUFFIX.length) + INDEX_SUFFIX;
  const temporary = `${path}.${process.pid}.tmp`;
  const bytes = new Uint8Array(segment.view.buffer, segment.view.byteOffset, segment.count * ENTRY_BYTES);
  try {
    writeFileSync(temporary, bytes, { mode: 0o600 });
    renameSync(temporary, path);
  } catch {
    // Housekeeping: the index made from the data serves this run either way.
    try {
      unlinkSync(temporary);
    } catch {
      /* never written */
    }
  }
}
