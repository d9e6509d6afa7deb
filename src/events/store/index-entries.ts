// The index beside each segment (`.idx`, 40 bytes a record: time, offset, length and hashes of the
// type, two numbers, the message id and the record id). A query reads the indexes (40 MB at
// 1,000,000 records), keeps the entries whose hashes match, and parses only those lines, then
// checks them exactly (a hash may collide; the check never lets a wrong record through). The data
// file is the truth: the index is written after it, and a reader indexes whatever lies past the
// index's end (a writer killed between the two writes) itself.

import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
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
