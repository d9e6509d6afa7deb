import { readFile, stat } from 'node:fs/promises';
import { UsageError } from '../errors.js';

// Reading a file named on the command line. Each failure is a usage error (exit 2) naming the
// file and what is wrong with it.

export async function readTextFile(path: string, what = 'file'): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : code === 'EACCES' ? 'permission denied' : String(code ?? error);
    throw new UsageError(`Cannot read ${what} ${path}: ${reason}`);
  }
}

/** The size of a regular file, or a usage error naming the file and what is wrong with it. */
export async function fileSize(path: string, what = 'file'): Promise<number> {
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new UsageError(`${path}: not a file`);
    return info.size;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`Cannot read ${what} ${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : String(code ?? error)}`);
  }
}
