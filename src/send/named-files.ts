import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { UsageError } from '../errors.js';

// Files named on a send's command line, told apart by device and inode: the journal must be none
// of the inputs, and `send report --failed-to` must not write over one.

/** A file named on the command line: the flag, the name as given, its device and inode when it exists. */
export interface NamedFile {
  flag: string;
  name: string;
  identity: { dev: number; ino: number } | undefined;
}

/**
 * The first of `files` that is the same file as `path`: the same device and inode (so links and
 * other spellings of a path are caught), or, for a file not yet made, the same resolved path.
 */
export function sameFileAmong<T extends NamedFile>(path: string, identity: { dev: number; ino: number } | undefined, files: readonly T[]): T | undefined {
  const resolved = resolve(path);
  return files.find(
    (file) => (identity !== undefined && file.identity !== undefined && file.identity.dev === identity.dev && file.identity.ino === identity.ino) || resolve(file.name) === resolved,
  );
}

/** The device and inode of `path`, or undefined when it does not exist (other errors are thrown). */
export async function fileIdentity(path: string): Promise<{ dev: number; ino: number; isFile: boolean } | undefined> {
  try {
    const stats = await stat(path);
    return { dev: stats.dev, ino: stats.ino, isFile: stats.isFile() };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * The journal must not be any input: appending to the recipients file, the body or a media file
 * would corrupt what is being sent. An existing journal must be a regular file.
 */
export async function checkJournalPath(journal: string, inputs: readonly NamedFile[]): Promise<void> {
  let journalStats;
  try {
    journalStats = await fileIdentity(journal);
  } catch (error) {
    throw new UsageError(`Cannot use --journal ${journal}: ${String((error as NodeJS.ErrnoException).code ?? error)}`);
  }
  if (journalStats === undefined) return;
  if (!journalStats.isFile) throw new UsageError(`--journal ${journal} is not a regular file`);
  const input = sameFileAmong(journal, journalStats, inputs.filter((file) => file.identity !== undefined));
  if (input !== undefined) throw new UsageError(`--journal ${journal} is the same file as ${input.flag} ${input.name}: the journal would be written into an input`);
}
