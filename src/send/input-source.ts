// The files `svc send` reads (--to-file, --body-file, the body on standard input), each read
// exactly once from its origin and bounded in size.
//
// A regular file is opened once and read through that one descriptor, up to the size it had when
// opened: a file replaced or appended to during a long send changes nothing. A pipe, `-`,
// /dev/stdin, a FIFO or a process substitution (`<(...)`) can be read only once, so when a
// reader needs several passes (the recipients: checked whole before anything is sent, then sent)
// the first pass copies it into a private temporary file (mode 0600, unlinked as soon as it is
// created, so that nothing is left behind whatever ends the process) and later passes read that.
// Devices (/dev/zero), directories and sockets are refused, and so is input past the limit.

import { close, closeSync, createReadStream, fstatSync, mkdtempSync, open as openFile, openSync, read, rmdirSync, unlinkSync, writeSync, type Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { cannotRead, notAFile, tooLarge as tooLargeError } from '../input/file-errors.js';

/** The largest recipients file read: 1 GiB (tens of millions of numbers). */
export const MAX_RECIPIENTS_BYTES = 1024 * 1024 * 1024;

/**
 * The largest message body read from a file or standard input: 64 KiB, more than the longest
 * text an SMS can carry (255 concatenated segments of 153 GSM-7 characters, or 67 UCS-2
 * characters of up to 3 bytes in UTF-8).
 */
export const MAX_BODY_BYTES = 64 * 1024;

/** An input that cannot be read as asked: the message names it and why (a usage error). */
export class InputFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InputFileError';
  }
}

export interface InputSource {
  /** How the input is named in messages: the path, or "standard input". */
  readonly name: string;
  /** Device and inode of a file on disk, to tell whether another path names the same file. */
  readonly identity: { dev: number; ino: number } | undefined;
  /** Bytes of a file on disk (undefined for a pipe): what sizes the duplicate index at once. */
  readonly size?: number | undefined;
  /** The bytes, in chunks. The first pass reads the origin; later passes need `reread`. */
  chunks(highWaterMark?: number): AsyncIterable<Buffer>;
  close(): void;
}

export interface OpenInputOptions {
  /** What the input is, for messages: "--to-file", "--body-file". */
  flag: string;
  maxBytes: number;
  /** Read more than once: a pipe is copied to a private temporary file on the first pass. */
  reread: boolean;
  stdin: Readable;
  stdinIsTTY: boolean;
}

function tooLarge(flag: string, name: string, maxBytes: number): InputFileError {
  return new InputFileError(tooLargeError(flag, name, maxBytes).message);
}

function readError(flag: string, name: string, error: unknown): InputFileError {
  return new InputFileError(cannotRead(flag, name, error).message);
}

function kindOf(stats: Stats): string | undefined {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSocket()) return 'a socket';
  return undefined;
}

/** The process's standard input, when `stats` describes the same file (/dev/stdin, /dev/fd/0). */
function isStandardInput(stats: Stats): boolean {
  try {
    const own = fstatSync(0);
    return own.dev === stats.dev && own.ino === stats.ino;
  } catch {
    return false;
  }
}

export async function openInput(path: string, options: OpenInputOptions): Promise<InputSource> {
  const { flag, maxBytes } = options;
  if (path === '-') {
    if (options.stdinIsTTY) throw new InputFileError(`${flag} -: standard input is a terminal; pipe the input in, or give a file`);
    return streamSource('standard input', options.stdin, options);
  }
  let stats: Stats;
  try {
    stats = await stat(path);
  } catch (error) {
    throw readError(flag, path, error);
  }
  const kind = kindOf(stats);
  if (kind !== undefined) {
    // A socket or terminal that is our own standard input (a spawned process's /dev/stdin): read it as `-`.
    if (stats.isSocket() && isStandardInput(stats)) return streamSource(path, options.stdin, options);
    throw new InputFileError(notAFile(flag, path, kind).message);
  }
  let fd: number;
  try {
    // On the thread pool: for a FIFO this waits until something opens it for writing, as `cat` does.
    fd = await new Promise<number>((resolve, reject) => openFile(path, 'r', (error, opened) => (error ? reject(error) : resolve(opened))));
  } catch (error) {
    throw readError(flag, path, error);
  }
  const opened = fstatSync(fd);
  if (!opened.isFile()) {
    // A FIFO, a pipe (/dev/stdin, <(...)): one pass from the descriptor, spooled if needed.
    return streamSource(path, createReadStream('', { fd, autoClose: true }), options);
  }
  if (opened.size > maxBytes) {
    closeSync(fd);
    throw tooLarge(flag, path, maxBytes);
  }
  const size = opened.size;
  let closed = false;
  return {
    name: path,
    identity: { dev: opened.dev, ino: opened.ino },
    size,
    async *chunks(highWaterMark = 64 * 1024) {
      if (size === 0) return;
      try {
        yield* readRange(fd, size, highWaterMark);
      } catch (error) {
        throw readError(flag, path, error);
      }
    },
    close() {
      if (closed) return;
      closed = true;
      close(fd);
    },
  };
}

/** A one-pass stream, bounded; copied to a private spool on the first pass when read again. */
function streamSource(name: string, stream: Readable, options: OpenInputOptions): InputSource {
  const { flag, maxBytes } = options;
  let spool: { fd: number; size: number; complete: boolean } | undefined;
  let passes = 0;
  return {
    name,
    identity: undefined,
    async *chunks(highWaterMark = 64 * 1024) {
      passes++;
      if (passes > 1) {
        if (!options.reread || spool === undefined || !spool.complete) throw new InputFileError(`${flag} ${name} can be read only once`);
        if (spool.size === 0) return;
        yield* readRange(spool.fd, spool.size, highWaterMark);
        return;
      }
      if (options.reread) spool = { fd: openSpool(), size: 0, complete: false };
      let total = 0;
      try {
        for await (const piece of stream as AsyncIterable<Buffer | string>) {
          const chunk = typeof piece === 'string' ? Buffer.from(piece) : piece;
          total += chunk.length;
          if (total > maxBytes) throw tooLarge(flag, name, maxBytes);
          if (spool !== undefined) {
            let offset = 0;
            while (offset < chunk.length) offset += writeSync(spool.fd, chunk, offset, chunk.length - offset, spool.size + offset);
            spool.size += chunk.length;
          }
          yield chunk;
        }
      } catch (error) {
        if (error instanceof InputFileError) throw error;
        throw readError(flag, name, error);
      }
      if (spool !== undefined) spool.complete = true;
    },
    close() {
      if (spool !== undefined) {
        closeSync(spool.fd);
        spool = undefined;
      }
      if (!stream.destroyed && stream !== options.stdin) stream.destroy();
    },
  };
}

/** Bytes [0, size) of a descriptor, by positional reads: the descriptor stays open for the next pass. */
async function* readRange(fd: number, size: number, highWaterMark: number): AsyncGenerator<Buffer> {
  let position = 0;
  while (position < size) {
    const buffer = Buffer.allocUnsafe(Math.min(highWaterMark, size - position));
    const bytesRead = await new Promise<number>((resolve, reject) =>
      read(fd, buffer, 0, buffer.length, position, (error, n) => (error ? reject(error) : resolve(n))),
    );
    if (bytesRead === 0) return; // the file was cut short since it was opened
    position += bytesRead;
    yield bytesRead === buffer.length ? buffer : buffer.subarray(0, bytesRead);
  }
}

/** A private temporary file, already unlinked: it vanishes with its descriptor, however the process ends. */
function openSpool(): number {
  const dir = mkdtempSync(join(tmpdir(), 'svc-send-'));
  const path = join(dir, 'input');
  const fd = openSync(path, 'wx+', 0o600);
  try {
    unlinkSync(path);
    rmdirSync(dir);
  } catch {
    // Left for the system's temporary-file cleaning; the descriptor works either way.
  }
  return fd;
}

/** Reads a one-pass input whole, as bytes, within its limit. */
export async function readInputBytes(source: InputSource): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of source.chunks()) chunks.push(chunk);
  return Buffer.concat(chunks);
}
