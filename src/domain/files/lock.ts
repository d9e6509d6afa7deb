import { closeSync, linkSync, openSync, readFileSync, realpathSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';

// Exclusive ownership of a file while svc works on it (a send journal, the profile store, the
// sandbox's state file): a lock file beside it, `<file>.lock`, that names its holder.
//
// Taking the lock is one atomic step: the holder's record is written whole to a file of its own
// and hard-linked to the lock's name, which fails if the name exists; so a lock file is never
// seen half-written. A holder that ends releases it; one that was killed (SIGKILL, a power cut)
// leaves the file behind, and the next one to come finds it stale and takes over: the holder is
// dead when its process is gone, when its process id now belongs to a process started at another
// time (the id was reused), or when the machine has booted since. A holder on another host cannot
// be checked, so it is taken as alive and the message says which host and file.
//
// Breaking a stale lock must not break a live one taken meanwhile by a third process, so it is
// done under a second lock named after the stale holder (`<file>.lock.break-<token>`): only one
// process breaks a given stale lock, and it removes the lock file only if it still holds that
// stale holder's token. The breaking lock is itself taken by these same rules, so a breaker
// killed in its few microseconds of work is also recovered from.
//
// Within one process a lock is not re-entrant: a second taker in the same process is refused as
// any other would be (it is this process, alive).

export interface LockHolder {
  pid: number;
  host: string;
  /** The kernel's boot id (Linux), to tell a holder from before a reboot. */
  boot?: string | undefined;
  /** The process's start time in clock ticks since boot (Linux), to tell a reused process id. */
  start?: string | undefined;
  /** Unique to this taking of the lock. */
  token: string;
  /** When it was taken (ISO 8601). */
  since: string;
  /** What holds it, for the message: "svc send", "svc sandbox start". */
  command?: string | undefined;
}

/** The file is locked by a holder that is alive (or cannot be checked). */
export class LockHeldError extends Error {
  readonly code = 'ELOCKED';
  constructor(
    /** The file the lock guards. */
    readonly file: string,
    /** The lock file itself. */
    readonly lockPath: string,
    /** Who holds it; undefined when the lock file cannot be read as a holder. */
    readonly holder: LockHolder | undefined,
    /** The holder runs on another host, so whether it is alive is not known. */
    readonly remote: boolean,
  ) {
    super(`${file} is locked by ${holder === undefined ? 'an unreadable lock file' : `process ${holder.pid} on ${holder.host}`} (${lockPath})`);
    this.name = 'LockHeldError';
  }
}

export interface FileLock {
  /** The file guarded. */
  readonly file: string;
  readonly lockPath: string;
  /** Removes the lock file if it is still this holder's. Safe to call more than once. */
  release(): void;
}

export interface LockOptions {
  /** Names the holder in the message another taker sees. */
  command?: string;
}

export interface WaitingLockOptions extends LockOptions {
  /** How long to wait for a live holder to let go before giving up with LockHeldError. */
  waitMs: number;
  signal?: AbortSignal | undefined;
}

/** How deep stale breaking locks may nest (a breaker killed while breaking a killed breaker's lock...). */
const MAX_BREAK_DEPTH = 3;

function readOptional(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

let ownIdentity: { boot: string | undefined; start: string | undefined } | undefined;

/** Field 22 of /proc/<pid>/stat (start time) and field 3 (state), or undefined off Linux. */
function processStat(pid: number | 'self'): { start: string; state: string } | undefined {
  const text = readOptional(`/proc/${pid}/stat`);
  if (text === undefined) return undefined;
  // The command name (field 2) is in parentheses and may hold spaces and parentheses itself.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = rest[0];
  const start = rest[19];
  return state === undefined || start === undefined ? undefined : { start, state };
}

function identity(): { boot: string | undefined; start: string | undefined } {
  ownIdentity ??= { boot: readOptional('/proc/sys/kernel/random/boot_id'), start: processStat('self')?.start };
  return ownIdentity;
}

function newHolder(command: string | undefined): LockHolder {
  const { boot, start } = identity();
  return { pid: process.pid, host: hostname(), boot, start, token: randomBytes(8).toString('hex'), since: new Date().toISOString(), command };
}

function parseHolder(text: string | undefined): LockHolder | undefined {
  if (text === undefined || text === '') return undefined;
  try {
    const value = JSON.parse(text) as Partial<LockHolder>;
    if (typeof value.pid !== 'number' || !Number.isSafeInteger(value.pid) || value.pid <= 0) return undefined;
    if (typeof value.host !== 'string' || typeof value.token !== 'string' || !/^[0-9a-f]{1,64}$/.test(value.token)) return undefined;
    return {
      pid: value.pid,
      host: value.host,
      boot: typeof value.boot === 'string' ? value.boot : undefined,
      start: typeof value.start === 'string' ? value.start : undefined,
      token: value.token,
      since: typeof value.since === 'string' ? value.since : '',
      command: typeof value.command === 'string' ? value.command : undefined,
    };
  } catch {
    return undefined;
  }
}

/** 'dead' when the holder's process is surely gone; 'alive' when it runs; 'remote' when it cannot be told. */
export function holderState(holder: LockHolder): 'alive' | 'dead' | 'remote' {
  if (holder.host !== hostname()) return 'remote';
  const own = identity();
  if (holder.boot !== undefined && own.boot !== undefined && holder.boot !== own.boot) return 'dead';
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return 'dead';
  }
  const stat = processStat(holder.pid);
  // A zombie has ended (its parent has not yet collected it); another start time is another process.
  if (stat !== undefined && (stat.state === 'Z' || stat.state === 'X')) return 'dead';
  if (stat !== undefined && holder.start !== undefined && stat.start !== holder.start) return 'dead';
  return 'alive';
}

function isCode(error: unknown, ...codes: string[]): boolean {
  return codes.includes((error as NodeJS.ErrnoException).code ?? '');
}

/** Creates `lockPath` holding `record`, atomically; false when it exists already. */
function createLockFile(lockPath: string, record: string, token: string): boolean {
  const candidate = `${lockPath}.${token}`;
  const fd = openSync(candidate, 'wx', 0o600);
  try {
    writeFully(fd, record);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(candidate, lockPath);
    return true;
  } catch (error) {
    if (isCode(error, 'EEXIST')) return false;
    if (!isCode(error, 'EPERM', 'ENOTSUP', 'ENOSYS', 'EOPNOTSUPP', 'EXDEV')) throw error;
    // A file system without hard links: exclusive creation, then the record.
    return createDirectly(lockPath, record);
  } finally {
    try {
      unlinkSync(candidate);
    } catch {
      // Gone already.
    }
  }
}

function createDirectly(lockPath: string, record: string): boolean {
  let fd: number;
  try {
    fd = openSync(lockPath, 'wx', 0o600);
  } catch (error) {
    if (isCode(error, 'EEXIST')) return false;
    throw error;
  }
  try {
    writeFully(fd, record);
  } finally {
    closeSync(fd);
  }
  return true;
}

function writeFully(fd: number, text: string): void {
  const bytes = Buffer.from(text);
  let offset = 0;
  while (offset < bytes.length) {
    const written = writeSync(fd, bytes, offset, bytes.length - offset);
    if (written <= 0) throw Object.assign(new Error('EIO: short write, write'), { code: 'EIO' });
    offset += written;
  }
}

/**
 * One attempt: the lock taken (true), or the holder that keeps it. A stale holder is removed
 * (under its breaking lock) and the attempt made again.
 */
function attempt(file: string, lockPath: string, mine: LockHolder, depth: number): true | LockHeldError {
  const record = `${JSON.stringify(mine)}\n`;
  for (let round = 0; round < 5; round++) {
    if (createLockFile(lockPath, record, mine.token)) return true;
    const text = readOptional(lockPath);
    if (text === undefined) continue; // released between the two steps: try again
    const holder = parseHolder(text);
    if (holder === undefined) return new LockHeldError(file, lockPath, undefined, false);
    const state = holderState(holder);
    if (state !== 'dead') return new LockHeldError(file, lockPath, holder, state === 'remote');
    if (depth >= MAX_BREAK_DEPTH) return new LockHeldError(file, lockPath, holder, false);
    const breaking = `${lockPath}.break-${holder.token}`;
    const claim = attempt(lockPath, breaking, { ...mine, token: randomBytes(8).toString('hex') }, depth + 1);
    if (claim !== true) return claim.holder === undefined ? claim : new LockHeldError(file, lockPath, claim.holder, claim.remote);
    try {
      if (parseHolder(readOptional(lockPath))?.token === holder.token) unlinkSync(lockPath);
    } catch (error) {
      if (!isCode(error, 'ENOENT')) throw error;
    } finally {
      removeIfMine(breaking, undefined);
    }
  }
  // Five rounds lost to other takers: it is theirs.
  const holder = parseHolder(readOptional(lockPath));
  return new LockHeldError(file, lockPath, holder, false);
}

/** Removes the lock file if it holds `token` (any holder's when undefined: the breaking lock just taken). */
function removeIfMine(lockPath: string, token: string | undefined): void {
  try {
    if (token !== undefined && parseHolder(readOptional(lockPath))?.token !== token) return;
    unlinkSync(lockPath);
  } catch (error) {
    if (!isCode(error, 'ENOENT')) throw error;
  }
}

const held = new Set<FileLock>();
let exitHookInstalled = false;

/** A process that ends without releasing (an uncaught error, process.exit) still removes its locks. */
function releaseAllOnExit(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const lock of [...held]) lock.release();
  });
}

function grant(file: string, lockPath: string, token: string): FileLock {
  let released = false;
  const lock: FileLock = {
    file,
    lockPath,
    release() {
      if (released) return;
      released = true;
      held.delete(lock);
      try {
        removeIfMine(lockPath, token);
      } catch {
        // A lock file that cannot be removed is found stale by the next taker once we are gone.
      }
    },
  };
  held.add(lock);
  releaseAllOnExit();
  return lock;
}

/**
 * Where the lock of `file` lives: beside the file its path leads to, so that two names of one file
 * (a relative and an absolute path, a symbolic link) share one lock.
 */
export function lockPathOf(file: string): string {
  try {
    return `${realpathSync(file)}.lock`;
  } catch {
    try {
      return join(realpathSync(dirname(file)), `${basename(file)}.lock`);
    } catch {
      return `${file}.lock`;
    }
  }
}

/** Takes the lock of `file` now, or throws LockHeldError naming the holder. */
export function lockFileSync(file: string, options: LockOptions = {}): FileLock {
  const lockPath = lockPathOf(file);
  const mine = newHolder(options.command);
  const result = attempt(file, lockPath, mine, 0);
  if (result !== true) throw result;
  return grant(file, lockPath, mine.token);
}

/**
 * Takes the lock of `file`, waiting up to `waitMs` for a live holder to let go (for short
 * critical sections such as a read-modify-write of the profile store).
 */
export async function lockFileWaiting(file: string, options: WaitingLockOptions): Promise<FileLock> {
  const deadline = performance.now() + options.waitMs;
  let pause = 5;
  for (;;) {
    try {
      return lockFileSync(file, options);
    } catch (error) {
      if (!(error instanceof LockHeldError) || error.holder === undefined || error.remote || performance.now() >= deadline) throw error;
    }
    await sleep(pause, undefined, options.signal === undefined ? undefined : { signal: options.signal });
    pause = Math.min(pause * 2, 100);
  }
}
