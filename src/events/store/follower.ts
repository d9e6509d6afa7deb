// Following the event store (`svc events tail --follow`): the records writers append after it started.

import { closeSync, fstatSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { hash32, type SegmentIndex } from './index-entries.js';
import { hashFilter, EventStoreReader } from './reader.js';
import { parseRecord, type StoredRecord } from './record.js';
import { isCompacted, listSegments, readRange } from './segments.js';

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
   * for at most 24 h from its first attempt (docs/decisions.md#webhook-retries), so a second copy comes within that of
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
