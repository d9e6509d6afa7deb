// The files of the event store (layout chosen by measurement, bench/events.mjs): a directory of
// append-only NDJSON segment files, each with a binary index beside it (index-entries.ts). Every
// writing process writes its own segments, named by creation time and process id
// (`seg-<time>-<pid>-<random>`), so a listener and a `svc send` can write one store at once
// without a lock. Compaction (compact.ts) replaces segments; a `.replaces` file names the ones
// a new segment stands for.

import { fdatasync, mkdirSync, readdirSync, readFileSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export const DATA_SUFFIX = '.ndjson';
export const INDEX_SUFFIX = '.idx';

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
