import { mkdirSync } from 'node:fs';
import { CliError, ExitCode } from '../errors.js';
import { writeFileAtomic } from '../domain/files/atomic-write.js';
import { lockFileWaiting, LockHeldError } from '../domain/files/lock.js';
import { cannotWrite } from '../input/file-errors.js';
import { readRawStore, readStore, requireProfileName, storePath, storeReadProblem, type Profile, type ProfileStore, type ReadStoreOptions } from './store.js';

// Changing the profile store. Each change reads the file afresh, changes it and writes it back
// while holding the store's lock (`config.json.lock`), so eight `svc auth login --profile pN` at
// once keep all eight profiles: without the lock, each would write back what it read before the
// others wrote. The file is replaced whole or not at all (src/domain/files/atomic-write.ts): on a
// full disk the change fails, naming the file, and every profile stored before is kept.

/**
 * How long a change waits for another svc to finish its own (a few milliseconds each, even eight
 * at once on a loaded machine); past that the holder is named.
 */
const STORE_LOCK_WAIT_MS = 15_000;

/** The layout earlier versions wrote through the `conf` package: JSON indented with tabs. */
function serialize(data: Record<string, unknown>): string {
  return JSON.stringify(data, undefined, '\t');
}

function lockProblem(path: string, error: LockHeldError): CliError {
  const holder = error.holder;
  const who = holder === undefined ? `its lock file ${error.lockPath} cannot be read` : `process ${holder.pid}${holder.command ? ` (${holder.command})` : ''}${error.remote ? ` on ${holder.host}` : ''} holds it`;
  return new CliError(`The profile store ${path} is being changed by another svc: ${who}`, ExitCode.Failure, {
    hints: [`Nothing was changed. Run the command again once it is done; if no svc is running, remove ${error.lockPath}.`],
  });
}

export interface OpenStoreOptions extends ReadStoreOptions {
  /** How long a change waits for the lock (default STORE_LOCK_WAIT_MS). */
  lockWaitMs?: number;
}

/** The store's directory made, and its lock taken (waiting for another svc's change to end). */
async function lockStore(dir: string, path: string, options: OpenStoreOptions): Promise<{ release(): void }> {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw cannotWrite('the profile store', path, error);
  }
  try {
    return await lockFileWaiting(path, { waitMs: options.lockWaitMs ?? STORE_LOCK_WAIT_MS, command: 'svc (profile store)' });
  } catch (error) {
    if (error instanceof LockHeldError) throw lockProblem(path, error);
    throw cannotWrite('the profile store', path, error);
  }
}

/** Applies `change` to the store as it is now, under its lock, and writes the result whole. */
async function updateStore<T>(dir: string, options: OpenStoreOptions, change: (data: Record<string, unknown>) => T): Promise<T> {
  const path = storePath(dir);
  const lock = await lockStore(dir, path, options);
  try {
    let data: Record<string, unknown>;
    try {
      data = readRawStore(dir, options);
    } catch (error) {
      throw storeReadProblem(dir, error);
    }
    const result = change(data);
    try {
      await writeFileAtomic(path, serialize(data), { mode: 0o600 });
    } catch (error) {
      throw cannotWrite('the profile store', path, error, ['Nothing was changed: the profiles stored before are kept.']);
    }
    return result;
  } finally {
    lock.release();
  }
}

/** The profiles object of the raw store, made if missing (a plain object: names are checked). */
function profilesOf(data: Record<string, unknown>): Record<string, unknown> {
  const current = data['profiles'];
  if (typeof current === 'object' && current !== null && !Array.isArray(current)) return current as Record<string, unknown>;
  const made: Record<string, unknown> = {};
  data['profiles'] = made;
  return made;
}

export async function openProfileStore(dir: string, options: OpenStoreOptions = {}): Promise<ProfileStore> {
  const update = <T>(change: (data: Record<string, unknown>) => T): Promise<T> => updateStore(dir, options, change);
  return {
    path: storePath(dir),
    data: () => {
      try {
        return readStore(dir, options);
      } catch (error) {
        throw storeReadProblem(dir, error);
      }
    },
    async setProfile(name, profile) {
      requireProfileName(name, 'Profile name');
      const clean: Profile = { baseUrl: profile.baseUrl, username: profile.username };
      if (profile.passwordIn === 'keychain') clean.passwordIn = 'keychain';
      else clean.password = profile.password ?? '';
      if (profile.tenant) clean.tenant = profile.tenant;
      await update((data) => {
        profilesOf(data)[name] = clean;
      });
    },
    async removeProfile(name) {
      return update((data) => {
        const profiles = profilesOf(data);
        if (!Object.hasOwn(profiles, name)) return false;
        delete profiles[name];
        if (data['activeProfile'] === name) delete data['activeProfile'];
        return true;
      });
    },
    async setActive(name) {
      await update((data) => {
        if (name === undefined) delete data['activeProfile'];
        else data['activeProfile'] = name;
      });
    },
  };
}
