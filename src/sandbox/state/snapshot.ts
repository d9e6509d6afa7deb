// The snapshot of `--state FILE`: the whole sandbox as one JSON document (the format of earlier
// versions, which still load), written whole or not at all by src/domain/files/atomic-write.ts.
// Its `logGeneration` names the change log that continues it (change-log.ts).

import { readFile, readdir, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { isSerializedState, type SerializedState } from './records.js';

/** The prefix of the temporary files src/domain/files/atomic-write.ts writes beside `file`. */
function tempPrefix(file: string): string {
  return `.${basename(file)}.tmp-`;
}

/** Reads the state file; null when it does not exist. A file that is not our JSON is an error. */
export async function readStateFile(file: string): Promise<SerializedState | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`state file ${file} is not valid JSON; move it away or pass another --state`);
  }
  if (!isSerializedState(parsed)) {
    throw new Error(`state file ${file} is not a sandbox state; move it away or pass another --state`);
  }
  return parsed;
}

/**
 * Removes temporary files a crashed writer left behind; they never hold the state. Called with
 * the state file's lock held, so none of them is another sandbox's snapshot being written.
 */
export async function removeStaleTempFiles(file: string): Promise<void> {
  const prefix = tempPrefix(file);
  let names: string[];
  try {
    names = await readdir(dirname(file));
  } catch {
    return;
  }
  await Promise.all(
    names.filter((n) => n.startsWith(prefix)).map((n) => unlink(join(dirname(file), n)).catch(() => {})),
  );
}
