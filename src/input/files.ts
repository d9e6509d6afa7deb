import { UsageError } from '../errors.js';

// Reading a file named on the command line. Each failure is a usage error (exit 2) naming the
// file and what is wrong with it. node:fs/promises is loaded by the first read, not with this
// module: commands that import these helpers but read no file (`svc tenant list`) would pay for
// it and the modules it loads (readline among them) at every start.

export async function readTextFile(path: string, what = 'file'): Promise<string> {
  try {
    const { readFile } = await import('node:fs/promises');
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
    const { stat } = await import('node:fs/promises');
    const info = await stat(path);
    if (!info.isFile()) throw new UsageError(`${path}: not a file`);
    return info.size;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`Cannot read ${what} ${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : String(code ?? error)}`);
  }
}
