// Reading a journal that a send may be writing at that moment (`send report`, `thread --journal`
// and the dry run of `send --resume` take no lock, so that they never hold up a running send).
//
// What makes that possible: a send only ever changes the end of its journal. Each record is one
// write ending in its line break (or a batch of whole records in one write); a crash can leave a
// last line cut short; a resuming send cuts the file back to the end of its last whole record and
// appends. So the bytes up to the end of a record that was whole when it was read never change.
// (The one exception: a new run starting over a journal that records no request yet empties it
// first. A look below notices that, because the last record read is no longer there.)
//
// What goes wrong without care: a reader that read the old cut-short line and then reads on at
// its position after the file was cut back and appended to joins the old bytes to the middle of
// a new record. That line fails its checksum, and is usually followed by sound records: it looks
// like damage in the middle of the journal, and it is not.
//
// So when a line fails, the reader does not trust what it streamed: it takes a second look at the
// file from where that line begins, with a positioned read on a new handle. What that look finds
// is decided in parser.ts; this file only reads.

import { open, type FileHandle } from 'node:fs/promises';
import { checksumHolds } from './format.js';

/** How much a reading asks for at a time. */
export const CHUNK_BYTES = 256 * 1024;
/** What a second look reads at first beyond the last record; doubled while a line is longer. */
const LOOK_BYTES = 64 * 1024;

/** A journal read forward from a position, a chunk at a time, on one handle. */
export class JournalFile {
  private constructor(
    private readonly handle: FileHandle,
    /** Where the next chunk begins. */
    private position: number,
  ) {}

  /** The file opened for reading from `position`, or undefined when there is no such file. */
  static async open(path: string, position = 0): Promise<JournalFile | undefined> {
    try {
      return new JournalFile(await open(path, 'r'), position);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  /** The next bytes of the file, or undefined at its end. */
  async next(): Promise<Buffer | undefined> {
    const chunk = await readAt(this.handle, this.position, CHUNK_BYTES);
    if (chunk.length === 0) return undefined;
    this.position += chunk.length;
    return chunk;
  }

  /** Up to `length` bytes at `position` (fewer only at the end of the file); the position of `next` is kept. */
  read(position: number, length: number): Promise<Buffer> {
    return readAt(this.handle, position, length);
  }

  /** Goes on reading from `position`. */
  seek(position: number): void {
    this.position = position;
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}

async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled === length ? buffer : buffer.subarray(0, filled);
}

/** What a second look at the line beginning at some offset found there. */
export type Look =
  /** The line is whole and its checksum holds: `file` goes on after `data`, which begins with it. */
  | { kind: 'sound'; file: JournalFile; data: Buffer }
  /** The file ends before the line's line break. */
  | { kind: 'cut'; line: Buffer }
  /** The line is whole and its checksum fails; `soundAfter`: a whole line whose checksum holds follows it. */
  | { kind: 'damaged'; line: Buffer; soundAfter: boolean }
  /** The record read before the line is no longer there: the journal was started over (or removed). */
  | { kind: 'replaced' };

/**
 * A second look at the line beginning at `offset`, on a new handle. `previous` is the line read
 * just before it (without its line break), checked to be still in its place; none for line 1.
 * Reads that line, growing while it is long, and, only when it is damaged, on until a sound line
 * or the end (keeping one line at a time).
 */
export async function lookAt(path: string, offset: number, previous: Buffer | undefined): Promise<Look> {
  const file = await JournalFile.open(path);
  if (file === undefined) return { kind: 'replaced' };
  let handedOver = false;
  try {
    const from = previous === undefined ? offset : offset - previous.length - 1;
    const at = offset - from;
    for (let size = at + LOOK_BYTES; ; size *= 2) {
      const window = await file.read(from, size);
      if (previous !== undefined && !holdsAt(window, previous)) return { kind: 'replaced' };
      const end = window.indexOf(0x0a, at);
      if (end === -1) {
        if (window.length < size) return { kind: 'cut', line: Buffer.from(window.subarray(at)) };
        continue;
      }
      const line = window.subarray(at, end);
      if (checksumHolds(line)) {
        file.seek(from + window.length);
        handedOver = true;
        return { kind: 'sound', file, data: window.subarray(at) };
      }
      return { kind: 'damaged', line: Buffer.from(line), soundAfter: await soundLineFrom(file, from + end + 1) };
    }
  } finally {
    if (!handedOver) await file.close();
  }
}

/** True when `window` begins with `line` and its line break. */
function holdsAt(window: Buffer, line: Buffer): boolean {
  return window.length > line.length && window[line.length] === 0x0a && window.subarray(0, line.length).equals(line);
}

/** True when a whole line whose checksum holds begins at or after `position`. */
async function soundLineFrom(file: JournalFile, position: number): Promise<boolean> {
  file.seek(position);
  let rest: Buffer | undefined;
  for (let chunk = await file.next(); chunk !== undefined; chunk = await file.next()) {
    const data = rest === undefined ? chunk : Buffer.concat([rest, chunk]);
    let start = 0;
    for (let end = data.indexOf(0x0a); end !== -1; end = data.indexOf(0x0a, start)) {
      if (checksumHolds(data.subarray(start, end))) return true;
      start = end + 1;
    }
    rest = data.subarray(start);
  }
  return false;
}
