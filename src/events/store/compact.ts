// Compaction and pruning of the event store. Every `svc send` and every listener run writes
// segments of its own, so a store used for months holds many small files; compaction merges the
// small closed ones into one, and pruning drops old records. Both replace segments the same
// crash-safe way:
//   1. the new segment is written under a temporary name (`tmp-...`) and fsync'd;
//   2. a `<new>.replaces` file naming the old segments is written and fsync'd;
//   3. the new segment is renamed into place (index first, then data) and the directory synced;
//   4. the old segments are deleted, then the `.replaces` file.
// A reader leaves out every segment a present new segment replaces (listSegments), so a crash
// after step 3 duplicates nothing, and before it the old segments are still the truth, so
// nothing is lost. The next compaction finishes or undoes what a crash left. One compaction at a
// time per store (a lock file naming its process); a segment a live process may still append to
// (its newest) is never touched.

import { closeSync, fsyncSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DATA_SUFFIX, INDEX_SUFFIX, REPLACES_SUFFIX, isCompacted, listSegments, readRange, replacedBy, segmentWriterPid, writeFully } from './segments.js';
import { ENTRY_BYTES, loadSegmentIndex, type SegmentIndex } from './index-entries.js';
import { parseRecord } from './record.js';

/** Segments with fewer records than this are small. */
export const SMALL_SEGMENT_RECORDS = 5_000;
/** A store compacts its small segments once it has more than this many. */
export const MAX_SMALL_SEGMENTS = 16;
/** Records per compacted segment at most. */
const COMPACTED_RECORDS = 50_000;
const LOCK = 'compact.lock';

function alive(pid: number): boolean {
  // Segments written in one pass (writeSegment, compaction) carry pid 0: no process appends to them.
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The segments no live process may still append to: all but each live writer's newest. */
function closedSegments(names: readonly string[]): { closed: Set<string>; busy: Set<string> } {
  const newestOfPid = new Map<number, string>();
  for (const name of names) newestOfPid.set(segmentWriterPid(name), name);
  const busy = new Set<string>();
  for (const [pid, name] of newestOfPid) if (alive(pid)) busy.add(name);
  return { closed: new Set(names.filter((name) => !busy.has(name))), busy };
}

/** The entries a segment's index file holds (0 without one). */
function indexEntries(dir: string, name: string): number {
  try {
    return Math.floor(statSync(join(dir, name.slice(0, -DATA_SUFFIX.length) + INDEX_SUFFIX)).size / ENTRY_BYTES);
  } catch {
    return 0;
  }
}

function syncDir(dir: string): void {
  let fd = -1;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    /* not every platform syncs a directory */
  } finally {
    if (fd >= 0) closeSync(fd);
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    /* gone already */
  }
}

function removeSegment(dir: string, name: string): void {
  unlinkQuietly(join(dir, name));
  unlinkQuietly(join(dir, name.slice(0, -DATA_SUFFIX.length) + INDEX_SUFFIX));
}

/** Runs `work` holding the store's compaction lock; returns undefined when another process holds it. */
function withLock<T>(dir: string, work: () => T): T | undefined {
  const path = join(dir, LOCK);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, String(process.pid), { flag: 'wx', mode: 0o600 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(readFileSafe(path));
      if (alive(holder) || attempt > 0) return undefined;
      // Left by a process that died: take it over.
      unlinkQuietly(path);
      continue;
    }
    try {
      return work();
    } finally {
      unlinkQuietly(path);
    }
  }
  return undefined;
}

function readFileSafe(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** Finishes what an interrupted compaction left: old segments of a renamed one go, an unfinished one goes. */
export function recoverCompaction(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  const present = new Set(names);
  for (const name of names) {
    if (name.endsWith(REPLACES_SUFFIX)) {
      const base = name.slice(0, -REPLACES_SUFFIX.length);
      if (present.has(base + DATA_SUFFIX)) {
        for (const old of replacedBy(dir, name)) removeSegment(dir, old);
      } else {
        // Cut short before the rename: the old segments are still the truth.
        unlinkQuietly(join(dir, base + INDEX_SUFFIX));
      }
      unlinkQuietly(join(dir, name));
    } else if (name.startsWith('tmp-')) {
      unlinkQuietly(join(dir, name));
    }
  }
}

/** Hooks for tests: called between the steps, to stop there as a crash would. */
export interface CompactionSteps {
  afterTemporary?(): void;
  afterReplaces?(): void;
  afterRename?(): void;
}

/**
 * Replaces `old` (data file names) with one new segment holding the entries `keep` chooses, in
 * the crash-safe steps described at the top. Lines and index entries are copied as they are, but
 * for the later copies of a record stored twice (two listeners on one store, see firstCopies in
 * store.ts): of the entries kept, only the copy stored first (by time, then segment, then place)
 * of each id is written.
 */
function replaceSegments(dir: string, old: readonly SegmentIndex[], keep: (segment: SegmentIndex, entry: number) => boolean, steps: CompactionSteps = {}): number {
  const read = readChosen(old, keep);
  const { lines, entries } = firstCopiesOnly(old, read);
  const base = entries.length > 0 ? writeReplacement(dir, old, lines, entries, steps) : undefined;
  for (const segment of old) removeSegment(dir, segment.name);
  if (base !== undefined) unlinkQuietly(join(dir, base + REPLACES_SUFFIX));
  syncDir(dir);
  return entries.length;
}

/** An entry `keep` chose: its segment (by position in `old`), place, time and id hash. */
interface ChosenEntry {
  segment: number;
  entry: number;
  time: number;
  idHash: number;
}

interface ChosenEntries {
  /** The data file of each segment, whole. */
  data: Buffer[];
  chosen: ChosenEntry[];
  /** How many chosen entries carry each id hash. */
  idHashCount: Map<number, number>;
}

/** The old segments' data, and the entries `keep` chooses, in order. */
function readChosen(old: readonly SegmentIndex[], keep: (segment: SegmentIndex, entry: number) => boolean): ChosenEntries {
  const data: Buffer[] = [];
  const chosen: ChosenEntry[] = [];
  const idHashCount = new Map<number, number>();
  old.forEach((segment, s) => {
    const fd = openSync(segment.path, 'r');
    try {
      data.push(readRange(fd, 0, segment.dataSize));
    } finally {
      closeSync(fd);
    }
    for (let i = 0; i < segment.count; i++) {
      if (!keep(segment, i)) continue;
      const idHash = segment.u32[i * 10 + 8]!;
      chosen.push({ segment: s, entry: i, time: segment.f64[i * 5]!, idHash });
      idHashCount.set(idHash, (idHashCount.get(idHash) ?? 0) + 1);
    }
  });
  return { data, chosen, idHashCount };
}

/** The line of entry `i` of old segment `s`, with its line break. */
function lineAt(old: readonly SegmentIndex[], data: readonly Buffer[], s: number, i: number): Buffer {
  const at = i * ENTRY_BYTES;
  const from = old[s]!.view.getUint32(at + 8, true);
  return data[s]!.subarray(from, from + old[s]!.view.getUint32(at + 12, true) + 1);
}

/**
 * The lines and index entries of the new segment: every chosen entry, but of a record stored
 * twice only the copy stored first. Only entries whose id hash is chosen more than once are
 * parsed, to compare their ids exactly.
 */
function firstCopiesOnly(old: readonly SegmentIndex[], { data, chosen, idHashCount }: ChosenEntries): { lines: Buffer[]; entries: Buffer[] } {
  const firstOf = new Map<string, ChosenEntry>();
  const idOf = new Map<number, string>();
  for (const c of chosen) {
    if (idHashCount.get(c.idHash)! < 2) continue;
    const id = parseRecord(lineAt(old, data, c.segment, c.entry).toString('utf8').trimEnd())?.id;
    if (id === undefined) continue;
    idOf.set(c.segment * 0x1_0000_0000 + c.entry, id);
    const known = firstOf.get(id);
    const before = known === undefined || c.time < known.time || (c.time === known.time && (c.segment < known.segment || (c.segment === known.segment && c.entry < known.entry)));
    if (before) firstOf.set(id, c);
  }
  const lines: Buffer[] = [];
  const entries: Buffer[] = [];
  let offset = 0;
  for (const c of chosen) {
    const id = idOf.get(c.segment * 0x1_0000_0000 + c.entry);
    if (id !== undefined && firstOf.get(id) !== c) continue;
    const segment = old[c.segment]!;
    const line = lineAt(old, data, c.segment, c.entry);
    lines.push(line);
    // The entry as it was, but for where its line now starts.
    const entry = Buffer.from(new Uint8Array(segment.view.buffer, segment.view.byteOffset + c.entry * ENTRY_BYTES, ENTRY_BYTES));
    entry.writeUInt32LE(offset, 8);
    entries.push(entry);
    offset += line.length;
  }
  return { lines, entries };
}

/** A file that must not exist yet, written whole and synced. */
function writeNewFile(path: string, bytes: Buffer): void {
  const fd = openSync(path, 'wx', 0o600);
  try {
    writeFully(fd, bytes);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * The new segment, in the crash-safe steps: temporary data and index, the record of what it
 * replaces, then both renamed into place. Its base name, for the caller to clear the record.
 */
function writeReplacement(dir: string, old: readonly SegmentIndex[], lines: Buffer[], entries: Buffer[], steps: CompactionSteps): string {
  // Named after the oldest segment it replaces, so that it sorts where they were.
  const time = old[0]!.name.split('-')[1] ?? String(Date.now()).padStart(14, '0');
  const base = `seg-${time}-0-c${process.pid.toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  const tmpData = join(dir, `tmp-${base}${DATA_SUFFIX}`);
  const tmpIndex = join(dir, `tmp-${base}${INDEX_SUFFIX}`);
  writeNewFile(tmpData, Buffer.concat(lines));
  writeNewFile(tmpIndex, Buffer.concat(entries));
  steps.afterTemporary?.();
  writeNewFile(join(dir, base + REPLACES_SUFFIX), Buffer.from(JSON.stringify(old.map((segment) => segment.name))));
  syncDir(dir);
  steps.afterReplaces?.();
  renameSync(tmpIndex, join(dir, base + INDEX_SUFFIX));
  renameSync(tmpData, join(dir, base + DATA_SUFFIX));
  syncDir(dir);
  steps.afterRename?.();
  return base;
}

export interface CompactResult {
  /** Segments merged away. */
  merged: number;
  /** Segments written in their place. */
  written: number;
}

/**
 * Merges the small closed segments into as few as possible, when there are more than `threshold`
 * of them (0: whenever there are two or more). Another process compacting the same store at the
 * same time makes this one do nothing.
 */
export function compactStore(dir: string, options: { threshold?: number; steps?: CompactionSteps } = {}): CompactResult {
  const result: CompactResult = { merged: 0, written: 0 };
  const threshold = options.threshold ?? MAX_SMALL_SEGMENTS;
  return (
    withLock(dir, () => {
      recoverCompaction(dir);
      const names = listSegments(dir);
      const { closed } = closedSegments(names);
      // Sized by their index files first (cheap), so that a store of large segments costs a stat each.
      const candidates = names.filter((name) => closed.has(name) && indexEntries(dir, name) < SMALL_SEGMENT_RECORDS);
      if (candidates.length < 2 || candidates.length <= threshold) return result;
      const small: SegmentIndex[] = [];
      for (const name of candidates) {
        const segment = loadSegmentIndex(dir, name);
        // A segment holding lines that are not records is left as it is: rewriting keeps records only.
        if (segment !== undefined && segment.count < SMALL_SEGMENT_RECORDS && segment.unreadable.length === 0) small.push(segment);
      }
      for (const group of recordRuns(small)) {
        if (group.length < 2) continue;
        replaceSegments(dir, group, () => true, options.steps);
        result.merged += group.length;
        result.written += 1;
      }
      return result;
    }) ?? result
  );
}

/** Compacts when needed; a store that cannot be compacted now is left as it is (it still reads right). */
export function compactQuietly(dir: string): void {
  try {
    compactStore(dir);
  } catch {
    /* compaction is housekeeping: never a failed command */
  }
}

export interface PruneResult {
  /** Records deleted. */
  pruned: number;
  /** Records kept (at or after the time, or in a segment a live writer still appends to). */
  kept: number;
  /** Old records left because a running listener or send is still writing their segment, or the segment holds lines that are not records. */
  busy: number;
  /** Segments left whole because they hold lines that are not records (see `unreadable`). */
  untouched: string[];
}

/**
 * Deletes the records older than `before`: segments wholly older go, segments that straddle it are
 * replaced (with the small segments, compacted on the way) by one holding the rest, the
 * crash-safe way. A segment that a live process is still appending to (its newest) is left alone
 * and counted as busy.
 */
export async function pruneStore(dir: string, before: number, steps?: CompactionSteps): Promise<PruneResult> {
  const result: PruneResult = { pruned: 0, kept: 0, busy: 0, untouched: [] };
  const done = withLock(dir, () => {
    recoverCompaction(dir);
    const names = listSegments(dir);
    const { busy } = closedSegments(names);
    const rewrite: SegmentIndex[] = [];
    const oldIn = new Map<string, number>();
    for (const name of names) {
      const segment = loadSegmentIndex(dir, name);
      if (segment === undefined) continue;
      let old = 0;
      for (let i = 0; i < segment.count; i++) if (segment.view.getFloat64(i * ENTRY_BYTES, true) < before) old++;
      if (busy.has(name) || segment.unreadable.length > 0) {
        // A live writer's segment, or one holding lines that are not records (edited by hand):
        // deleting or rewriting it would lose what it holds.
        if (segment.unreadable.length > 0) result.untouched.push(segment.path);
        result.busy += old;
        result.kept += segment.count;
        continue;
      }
      result.pruned += old;
      result.kept += segment.count - old;
      oldIn.set(name, old);
      if (old === segment.count) removeSegment(dir, name);
      else if (old > 0 || (segment.count < SMALL_SEGMENT_RECORDS && !isCompacted(name))) rewrite.push(segment);
    }
    // One new segment (or a few, past the size) for everything rewritten; a lone segment with
    // nothing old in it stays as it is.
    for (const group of recordRuns(rewrite)) {
      const untouched = group.length === 1 && oldIn.get(group[0]!.name) === 0;
      if (untouched) continue;
      const recent = group.reduce((sum, segment) => sum + segment.count - (oldIn.get(segment.name) ?? 0), 0);
      const written = replaceSegments(dir, group, (segment, i) => segment.view.getFloat64(i * ENTRY_BYTES, true) >= before, steps);
      // Later copies of a record (see replaceSegments) are not kept: the record is, once.
      result.kept -= recent - written;
    }
    return true;
  });
  if (done === undefined) throw new Error(`another process is compacting or pruning the event store ${dir}; try again once it is done`);
  return result;
}

/** The segments in order, in runs of at most COMPACTED_RECORDS records (a segment larger than that alone): one new segment a run. */
function recordRuns(segments: readonly SegmentIndex[]): SegmentIndex[][] {
  const runs: SegmentIndex[][] = [];
  let run: SegmentIndex[] = [];
  let records = 0;
  for (const segment of segments) {
    if (run.length > 0 && records + segment.count > COMPACTED_RECORDS) {
      runs.push(run);
      run = [];
      records = 0;
    }
    run.push(segment);
    records += segment.count;
  }
  if (run.length > 0) runs.push(run);
  return runs;
}
