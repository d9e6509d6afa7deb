import { closeSync, fchmodSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CliError, ExitCode, UsageError } from '../errors.js';
import { decodeText } from '../input/text.js';
import { cannotRead } from '../input/file-errors.js';
import { errorCode } from '../domain/files/reasons.js';

// The profile store: one JSON file, `config.json` (tab-indented, the layout the `conf` package
// wrote, which earlier versions used, so either reads the other's). Reading is a plain parse;
// writing (src/config/store-write.ts) is a read-modify-write under the store's lock, replaced
// whole or not at all.
//
// The file may hold passwords in clear (--insecure-storage, the sandbox's public account), so its
// mode is checked on every read, as ssh checks a private key's:
// - writable by group or others: refused. Someone else could have changed a base URL to send the
//   password (from the file or the keychain) to their own server; making the file private again
//   would not undo that, so the user looks at it first.
// - readable by group or others while it holds a password: made private (0600) at once, with a
//   warning naming the file, because the password may have been read and should be changed.
//   Refusing would also close the leak, but leave every command failing until the user runs
//   chmod, for a fix that has only one right answer.

export interface Profile {
  baseUrl: string;
  username: string;
  /** In clear in this 0600 file: profiles from before the keychain, or --insecure-storage. */
  password?: string | undefined;
  /** Where the password lives when it is not in this file. */
  passwordIn?: 'keychain' | undefined;
  tenant?: string | undefined;
}

/**
 * Profile names are plain names: they become keys of the store's JSON object, and a name such as
 * `__proto__` would be taken by JavaScript for the object's prototype and silently stored nowhere.
 */
const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function profileNameProblem(name: string): string | undefined {
  if (PROFILE_NAME.test(name)) return undefined;
  return `"${name}" is not a profile name: use letters, digits, ".", "_" and "-" (at most 64, starting with a letter or digit)`;
}

/** A usage error (exit 2) for a name that is not a plain profile name; `where` says where it came from. */
export function requireProfileName(name: string, where: string): string {
  const problem = profileNameProblem(name);
  if (problem !== undefined) throw new UsageError(`${where}: ${problem}`);
  return name;
}

export interface StoreData {
  activeProfile?: string;
  profiles?: Record<string, Profile>;
}

export const CONFIG_FILE_NAME = 'config.json';

/** SVC_CONFIG_DIR, else the platform's user config directory for `svc`. */
export function configDir(env: Readonly<Record<string, string | undefined>>): string {
  const explicit = env['SVC_CONFIG_DIR'];
  if (explicit) return explicit;
  const home = env['HOME'] || env['USERPROFILE'] || homedir();
  if (process.platform === 'win32') {
    return join(env['APPDATA'] || join(home, 'AppData', 'Roaming'), 'svc', 'Config');
  }
  if (process.platform === 'darwin') return join(home, 'Library', 'Preferences', 'svc');
  return join(env['XDG_CONFIG_HOME'] || join(home, '.config'), 'svc');
}

function isProfile(value: unknown): value is Profile {
  if (typeof value !== 'object' || value === null) return false;
  const p = value as Record<string, unknown>;
  return (
    typeof p['baseUrl'] === 'string' &&
    typeof p['username'] === 'string' &&
    (typeof p['password'] === 'string' || p['passwordIn'] === 'keychain') &&
    (p['tenant'] === undefined || typeof p['tenant'] === 'string')
  );
}

export function storePath(dir: string): string {
  return join(dir, CONFIG_FILE_NAME);
}

export interface ReadStoreOptions {
  /** Told when a store readable by others was made private (0600); without it, nothing is changed. */
  onRepair?: (message: string) => void;
}

/** The store's JSON object as written (unknown keys kept, for a rewrite to carry them); {} when missing or empty. */
export function readRawStore(dir: string, options: ReadStoreOptions = {}): Record<string, unknown> {
  const path = storePath(dir);
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  try {
    const { mode } = fstatSync(fd);
    refuseShared(path, mode);
    const data = parseStore(decodeText(readFileSync(fd), path));
    if ((mode & 0o044) !== 0 && holdsPassword(data)) repairReadable(path, fd, mode, options);
    return data;
  } finally {
    closeSync(fd);
  }
}

function parseStore(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('it does not hold a JSON object');
  return parsed as Record<string, unknown>;
}

function holdsPassword(data: Record<string, unknown>): boolean {
  const profiles = data['profiles'];
  if (typeof profiles !== 'object' || profiles === null) return false;
  return Object.values(profiles).some((profile) => typeof profile === 'object' && profile !== null && typeof (profile as Record<string, unknown>)['password'] === 'string' && (profile as Record<string, unknown>)['password'] !== '');
}

function octal(mode: number): string {
  return `0${(mode & 0o777).toString(8)}`;
}

/** A store others can write is not used (see above). */
function refuseShared(path: string, mode: number): void {
  // Windows has no such modes (its ACLs are the profile directory's).
  if (process.platform === 'win32' || (mode & 0o022) === 0) return;
  throw new CliError(`The profile store ${path} can be changed by other users (mode ${octal(mode)}): it is not used`, ExitCode.Usage, {
    hints: [
      'Someone could have pointed a profile at another server to collect its password. Check the base URLs in it,',
      `then make it yours alone: chmod 600 ${path}`,
    ],
  });
}

/** A store holding a password that others can read is made private, with a warning (see above). */
function repairReadable(path: string, fd: number, mode: number, options: ReadStoreOptions): void {
  if (process.platform === 'win32' || options.onRepair === undefined) return;
  fchmodSync(fd, 0o600);
  options.onRepair(
    `the profile store ${path} holds a password and was readable by other users (mode ${octal(mode)}); it is now 0600. ` +
      'Change the passwords stored in it if others could have read it.',
  );
}

/** Why the store cannot be used, as the error to show: a file error by the file rule, else what is wrong in it. */
export function storeReadProblem(dir: string, error: unknown): CliError {
  if (error instanceof CliError) return error;
  const hints = ['Fix or remove the file, or set SVC_CONFIG_DIR to another directory (or SVC_BASE_URL, SVC_USERNAME and SVC_PASSWORD).'];
  if (errorCode(error) !== undefined) return new UsageError(cannotRead('the profile store', storePath(dir), error).message, hints);
  return new UsageError(`The profile store ${storePath(dir)} cannot be used: ${error instanceof Error ? error.message : String(error)}`, hints);
}

/** Reads the store. A missing file is an empty store; a broken one says so (thrown). */
export function readStore(dir: string, options: ReadStoreOptions = {}): StoreData {
  const data = readRawStore(dir, options);
  // No prototype: a profile named "constructor" must not find Object's own.
  const profiles: Record<string, Profile> = Object.create(null) as Record<string, Profile>;
  const rawProfiles = data['profiles'];
  if (typeof rawProfiles === 'object' && rawProfiles !== null) {
    for (const [name, value] of Object.entries(rawProfiles)) {
      if (isProfile(value) && profileNameProblem(name) === undefined) profiles[name] = value;
    }
  }
  const active = data['activeProfile'];
  return typeof active === 'string' ? { activeProfile: active, profiles } : { profiles };
}

/** The writable store (src/config/store-write.ts). Each change is its own locked read-modify-write. */
export interface ProfileStore {
  readonly path: string;
  data(): StoreData;
  setProfile(name: string, profile: Profile): Promise<void>;
  removeProfile(name: string): Promise<boolean>;
  setActive(name: string | undefined): Promise<void>;
}
