// The snapshot of `--state FILE`: the whole sandbox as one JSON document (the format of earlier
// versions, which still load), written atomically (temporary file, fsync, rename, directory fsync).
// Its `logGeneration` names the change log that continues it (change-log.ts).

import { open, readFile, readdir, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { isSerializedState, type SerializedState } from './records.js';

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

/** Writes `text` (or the pieces `write` produces) to `file` atomically, mode 0600. */
export async function writeFileAtomic(file: string, text: string | ((handle: FileHandle) => Promise<void>)): Promise<void> {
  const dir = dirname(file);
  const temp = join(dir, `${tempPrefix(file)}${process.pid}-${randomBytes(4).toString('hex')}`);
  const handle = await open(temp, 'w', 0o600);
  try {
    if (typeof text === 'string') await handle.writeFile(text, 'utf8');
    else await text(handle);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await unlink(temp).catch(() => {});
    throw error;
  }
  await handle.close();
  try {
    await rename(temp, file);
  } catch (error) {
    await unlink(temp).catch(() => {});
    throw error;
  }
  await syncDirectory(dir);
}

export async function syncDirectory(dir: string): Promise<void> {
  // A rename or a new file is durable only once the directory is synced; not every platform allows it.
  try {
    const dirHandle = await open(dir, 'r');
    try {
      await dirHandle.sync();
    } finally {
      await dirHandle.close();
    }
  } catch {
    /* best effort */
  }
}

/** Removes temporary files a crashed writer left behind; they never hold the state. */
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
