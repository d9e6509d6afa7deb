import type { FileHandle } from 'node:fs/promises';
import { cannotRead, notAFile, tooLarge } from './file-errors.js';
import { decodeText } from './text.js';

// Reading a file named on the command line, whole: opened once, checked to be a regular file
// within its size limit, read through that one handle. Each failure is a usage error (exit 2)
// naming the file and why (src/input/file-errors.ts); text is decoded strictly (src/input/text.ts).
// node:fs/promises is loaded by the first read, not with this module: commands that import these
// helpers but read no file (`svc tenant list`) would pay for it at every start.

/**
 * The largest text input read whole (a JSON or CSV of tenants, numbers or a request body):
 * 64 MiB, far past any real one, so that a wrong file (a disk image) is refused, not loaded.
 */
export const MAX_TEXT_FILE_BYTES = 64 * 1024 * 1024;

export interface ReadInputOptions {
  /** Refused past this size, before reading (default MAX_TEXT_FILE_BYTES). */
  maxBytes?: number;
  /** Judges the size before the file is read (a command's own limit or emptiness rule); throws to refuse. */
  checkSize?: (size: number) => void;
}

function kindOf(stats: { isDirectory(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isSocket(): boolean; isFIFO(): boolean }): string | undefined {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSocket()) return 'a socket';
  return undefined;
}

/** A user's input file as bytes. `what` names it in messages: "--file", "--media-file". */
export async function readInputFile(path: string, what: string, options: ReadInputOptions = {}): Promise<Buffer> {
  const maxBytes = options.maxBytes ?? MAX_TEXT_FILE_BYTES;
  const { open } = await import('node:fs/promises');
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    throw cannotRead(what, path, error);
  }
  try {
    const stats = await handle.stat();
    const kind = kindOf(stats);
    if (kind !== undefined) throw notAFile(what, path, kind);
    if (stats.isFile()) {
      options.checkSize?.(stats.size);
      if (stats.size > maxBytes) throw tooLarge(what, path, maxBytes);
    }
    // A FIFO or process substitution has no size: read it within the limit.
    const chunks: Buffer[] = [];
    let total = 0;
    const buffer = Buffer.allocUnsafe(64 * 1024);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > maxBytes) throw tooLarge(what, path, maxBytes);
      chunks.push(Buffer.from(buffer.subarray(0, bytesRead)));
    }
    const bytes = Buffer.concat(chunks, total);
    if (!stats.isFile()) options.checkSize?.(bytes.length);
    return bytes;
  } catch (error) {
    throw cannotRead(what, path, error);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** A user's text file, decoded strictly (UTF-8, or UTF-16 with a byte-order mark), the mark dropped. */
export async function readTextFile(path: string, what: string, options: ReadInputOptions = {}): Promise<string> {
  return decodeText(await readInputFile(path, what, options), path);
}
