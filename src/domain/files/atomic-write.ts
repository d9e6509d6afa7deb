import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';

// A file replaced whole or not at all: the new content goes to a temporary file in the same
// directory (so that the rename stays on one file system), every byte is written by a loop that
// checks how many the system took, the file is fsync'd, renamed over the old one, and the
// directory is fsync'd so that the rename itself survives a power cut. Any failure (a full disk,
// a file size limit, a quota, a read-only file system) removes the temporary file and leaves the
// old file as it was; the error is the system's own (code and all), for the caller to word with
// the file's name (src/input/file-errors.ts).
//
// A write that takes fewer bytes than offered is not an error by itself (a file size limit makes
// the write that crosses it short, and only the next one fails with EFBIG): the loop writes the
// rest, and the system then says what is wrong. Writing the remainder is what a partial write
// needs; treating the short count as success is what loses data.

/** The temporary name beside `path`: hidden, and unique to this process and call. */
function temporaryName(path: string): string {
  return join(dirname(path), `.${basename(path)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
}

function shortWriteError(): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error('EIO: the system took no bytes of a write, write');
  error.code = 'EIO';
  return error;
}

/** Writes all of `bytes` at the descriptor's position, however many calls that takes. */
export function writeAllSync(fd: number, bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) {
    const written = writeSync(fd, bytes, offset, bytes.length - offset);
    if (written <= 0) throw shortWriteError();
    offset += written;
  }
}

/** Writes all of `bytes` at the handle's position, however many calls that takes. */
export async function writeAll(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset, null);
    if (bytesWritten <= 0) throw shortWriteError();
    offset += bytesWritten;
  }
}

/** fsync of a directory, so that a rename in it is on the disk; a platform that cannot is left be. */
export function syncDirectorySync(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch (error) {
    // Windows cannot open a directory, and some file systems refuse to sync one: nothing to do there.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'EACCES') throw error;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export async function syncDirectory(dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'EACCES') throw error;
  } finally {
    await handle?.close();
  }
}

export interface AtomicWriteOptions {
  /** The new file's mode (default 0600: what svc writes is the user's alone). */
  mode?: number;
}

function toBytes(data: string | Uint8Array): Uint8Array {
  return typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
}

/** Replaces `path` with `data`, whole or not at all (see above). */
export function writeFileAtomicSync(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  const temporary = temporaryName(path);
  const fd = openSync(temporary, 'wx', options.mode ?? 0o600);
  let renamed = false;
  try {
    try {
      writeAllSync(fd, toBytes(data));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
    renamed = true;
  } finally {
    if (!renamed) {
      try {
        unlinkSync(temporary);
      } catch {
        // Already gone; the original error is the one to report.
      }
    }
  }
  syncDirectorySync(dirname(path));
}

/**
 * Replaces `path` with what `fill` writes (or with `data`), whole or not at all. `fill` gets a
 * `write` that writes every byte it is given, for content too large to build in memory at once.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array | ((write: (chunk: string | Uint8Array) => Promise<void>) => Promise<void>),
  options: AtomicWriteOptions = {},
): Promise<void> {
  const temporary = temporaryName(path);
  const handle = await open(temporary, 'wx', options.mode ?? 0o600);
  let renamed = false;
  try {
    try {
      if (typeof data === 'function') await data((chunk) => writeAll(handle, toBytes(chunk)));
      else await writeAll(handle, toBytes(data));
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
    renamed = true;
  } finally {
    if (!renamed) await unlink(temporary).catch(() => undefined);
  }
  await syncDirectory(dirname(path));
}
