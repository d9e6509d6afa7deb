// Reading the event store: queries over the indexes (index-entries.ts), one record by id, the
// newest records, and the ids a restarted listener remembers. A record stored twice (a sender's
// retry kept by two processes) is listed once, as its first copy.

import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ANY, ENTRY_BYTES, entryNames, hash32, loadSegmentIndex, normalizeNumber, rebuildSegmentIndex, saveIndex, typeKey, type SegmentIndex } from './index-entries.js';
import { parseRecord, type StoredKind, type StoredRecord } from './record.js';
import { isCompacted, listSegments, readRange, segmentWriterPid } from './segments.js';

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
export function hashFilter(hashes: ReadonlySet<number>): Uint8Array {
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
      const record = parseRecord(line);
      if (!entryNames(segment, entries[k]!, record)) throw new StaleIndex(s);
      if (first.has(record.id)) consider(record.id, { time: segment.f64[entries[k]! * 5]!, segment: s, entry: entries[k]! });
    });
  }
  return picked.filter((p) => {
    const place = first.get(p.record.id)!;
    return place.segment === p.segment && place.entry === p.entry;
  });
}

/** Thrown while reading when an entry does not name the record at its place: segment `segment`'s index is wrong. */
class StaleIndex extends Error {
  constructor(readonly segment: number) {
    super('the index does not match the data');
  }
}

/** Whether a process that may still append to a segment is running (compaction's segments have none). */
function writerAlive(name: string): boolean {
  if (isCompacted(name)) return false;
  const pid = segmentWriterPid(name);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface ReaderOptions {
  /**
   * Told once per segment when its index did not match its data (and the data was read instead),
   * and once per segment about lines that are not records. Nothing is lost either way.
   */
  notice?: (message: string) => void;
}

export class EventStoreReader {
  private segments: SegmentIndex[] | undefined;
  private readonly told = new Set<string>();

  constructor(
    readonly dir: string,
    private readonly options: ReaderOptions = {},
  ) {}

  /** Every segment's index (loaded once per reader). */
  load(): SegmentIndex[] {
    this.segments ??= listSegments(this.dir)
      .map((name) => loadSegmentIndex(this.dir, name))
      .filter((segment): segment is SegmentIndex => segment !== undefined)
      .map((segment) => this.checked(segment));
    return this.segments;
  }

  /** Says what a segment's index or data showed, and keeps an index made from the data for the next reader. */
  private checked(segment: SegmentIndex): SegmentIndex {
    if (segment.rebuilt && !this.told.has(`rebuilt:${segment.name}`)) {
      this.told.add(`rebuilt:${segment.name}`);
      const kept = !writerAlive(segment.name);
      if (kept) saveIndex(segment);
      this.options.notice?.(
        `the index of ${segment.path} did not match its data (was the file edited?); its records were read from the data itself${kept ? ' and the index written anew' : ''}: nothing is lost`,
      );
    }
    if (segment.unreadable.length > 0 && !this.told.has(`unreadable:${segment.name}`)) {
      this.told.add(`unreadable:${segment.name}`);
      const shown = segment.unreadable.slice(0, 5).map((line) => `${segment.path}:${line}`);
      const more = segment.unreadable.length > shown.length ? ` and ${segment.unreadable.length - shown.length} more` : '';
      const lines = segment.unreadable.length === 1 ? 'line is' : 'lines are';
      this.options.notice?.(`${segment.unreadable.length} ${lines} not an event record, left out of what is listed (the file keeps them): ${shown.join(', ')}${more}`);
    }
    return segment;
  }

  /**
   * Runs a read; when it finds an entry that does not name the record at its place (an edit that
   * kept the file's length, which the checks at load cannot see), reads that segment from its data
   * and runs the read again.
   */
  verified<T>(read: () => T): T {
    for (;;) {
      try {
        return read();
      } catch (error) {
        if (!(error instanceof StaleIndex)) throw error;
        const segments = this.load();
        const stale = segments[error.segment]!;
        segments[error.segment] = this.checked({ ...rebuildSegmentIndex(stale), rebuilt: true });
      }
    }
  }

  get total(): number {
    return this.load().reduce((sum, segment) => sum + segment.count, 0);
  }

  /** The records that match, oldest first. */
  query(query: StoreQuery): StoredRecord[] {
    return this.verified(() => this.queryOnce(query));
  }

  private queryOnce(query: StoreQuery): StoredRecord[] {
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
        if (!entryNames(segment, entries[k]!, record)) throw new StaleIndex(s);
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
    return this.verified(() => this.getOnce(id));
  }

  private getOnce(id: string): StoredRecord | undefined {
    const idHash = hash32(id);
    let found: Placed | undefined;
    this.load().forEach((segment, s) => {
      const entries: number[] = [];
      for (let i = 0; i < segment.count; i++) if (segment.u32[i * 10 + 8] === idHash) entries.push(i);
      if (entries.length === 0) return;
      readLines(segment, entries).forEach((line, k) => {
        const record = parseRecord(line);
        if (!entryNames(segment, entries[k]!, record)) throw new StaleIndex(s);
        if (record.id !== id) return;
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

/**
 * The `count` newest records of the given kinds, oldest first; a later copy of a record (see
 * firstCopies) is not one of them.
 */
export function latestRecords(reader: EventStoreReader, count: number, kinds: readonly StoredKind[] = ['event']): StoredRecord[] {
  if (count <= 0) return [];
  return reader.verified(() => latestRecordsOnce(reader, count, kinds));
}

function latestRecordsOnce(reader: EventStoreReader, count: number, kinds: readonly StoredKind[]): StoredRecord[] {
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
      if (!entryNames(segments[candidate.segment]!, candidate.entry, record)) throw new StaleIndex(candidate.segment);
      if (kinds.includes(record.kind)) placed.push({ record, ...candidate });
    }
    const firsts = firstCopies(segments, placed);
    if (firsts.length === placed.length) return firsts.map((p) => p.record);
    const kept = new Set(firsts);
    for (const p of placed) if (!kept.has(p)) later.add(p.segment * 0x1_0000_0000 + p.entry);
  }
}
