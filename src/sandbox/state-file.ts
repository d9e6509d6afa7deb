// `--state FILE`: the whole sandbox as one JSON document, written atomically (temporary file in
// the same directory, fsync, rename) so that a crash leaves either the old or the new state and
// never a torn one. Writes are debounced: a burst of changes costs one write.

import { open, readFile, readdir, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { isSerializedState, type SerializedState } from './state.js';

const DEFAULT_DEBOUNCE_MS = 200;

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

/** Writes `text` to `file` atomically, the file created with mode 0600. */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  const dir = dirname(file);
  const temp = join(dir, `${tempPrefix(file)}${process.pid}-${randomBytes(4).toString('hex')}`);
  const handle = await open(temp, 'w', 0o600);
  try {
    await handle.writeFile(text, 'utf8');
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
  // The rename itself is durable only once the directory is synced; not every platform allows it.
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

export class DebouncedStateWriter {
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private dirty = false;
  private closed = false;

  constructor(
    private readonly file: string,
    private readonly render: () => string,
    private readonly onError: (error: unknown) => void,
    private readonly debounceMs = DEFAULT_DEBOUNCE_MS,
  ) {}

  markDirty(): void {
    this.dirty = true;
    if (this.closed || this.timer || this.writing) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.writeNow();
    }, this.debounceMs);
  }

  /** Writes any pending change now, waits for it, and schedules no more writes. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.writing) await this.writing;
    if (this.dirty) await this.writeNow();
  }

  private async writeNow(): Promise<void> {
    if (this.writing) return this.writing;
    this.dirty = false;
    const text = this.render();
    this.writing = writeFileAtomic(this.file, text)
      .catch((error: unknown) => {
        this.dirty = true;
        this.onError(error);
      })
      .finally(() => {
        this.writing = undefined;
        if (this.dirty && !this.timer && !this.closed) {
          this.timer = setTimeout(() => {
            this.timer = undefined;
            void this.writeNow();
          }, this.debounceMs);
        }
      });
    return this.writing;
  }
}
