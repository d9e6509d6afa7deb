import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../errors.js';

// The profile store. Reading is a plain JSON parse of the file (every command that talks to the
// API needs it, and loading `conf` costs more start-up time than the whole request); writing goes
// through `conf`, which writes atomically with mode 0600. Both agree on the path because conf is
// always given the directory computed here.

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

/** Reads the store without loading conf. A missing file is an empty store; a broken one says so. */
export function readStore(dir: string): StoreData {
  let text: string;
  try {
    text = readFileSync(join(dir, CONFIG_FILE_NAME), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  if (text.trim() === '') return {};
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null) return {};
  const data = parsed as Record<string, unknown>;
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

/** The writable store, backed by conf (loaded on first use). */
export interface ProfileStore {
  readonly path: string;
  data(): StoreData;
  setProfile(name: string, profile: Profile): void;
  removeProfile(name: string): boolean;
  setActive(name: string | undefined): void;
}

/** A store file that cannot be read or written is the user's to fix: say which file, never crash. */
function storeProblem(dir: string, error: unknown): UsageError {
  if (error instanceof UsageError) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new UsageError(`The profile store ${join(dir, CONFIG_FILE_NAME)} cannot be used: ${reason}`, [
    'Fix or remove the file, or set SVC_CONFIG_DIR to another directory.',
  ]);
}

/**
 * conf's atomic writes pull in when-exit, which on import hooks SIGINT to run its clean-ups and
 * then sends SIGINT to the process again. The CLI handles Ctrl-C itself (the command is aborted
 * and ends normally, when when-exit's 'exit' hook still runs) and would take that second signal
 * for a second Ctrl-C and exit at once, skipping the command's own clean-up; so the SIGINT hook
 * that the import added is removed.
 */
async function loadConf(): Promise<typeof import('conf').default> {
  const before = process.listeners('SIGINT');
  const { default: Conf } = await import('conf');
  for (const listener of process.listeners('SIGINT')) {
    if (!before.includes(listener)) process.off('SIGINT', listener);
  }
  return Conf;
}

export async function openProfileStore(dir: string): Promise<ProfileStore> {
  const Conf = await loadConf();
  let conf: InstanceType<typeof Conf<StoreData>>;
  try {
    conf = new Conf<StoreData>({
      projectName: 'svc',
      projectSuffix: '',
      cwd: dir,
      configName: 'config',
      configFileMode: 0o600,
      clearInvalidConfig: false,
    });
  } catch (error) {
    throw storeProblem(dir, error);
  }
  const read = (): StoreData => {
    try {
      return readStore(dir);
    } catch (error) {
      throw storeProblem(dir, error);
    }
  };
  const write = <T>(change: () => T): T => {
    try {
      return change();
    } catch (error) {
      throw storeProblem(dir, error);
    }
  };
  return {
    path: conf.path,
    data: read,
    setProfile(name, profile) {
      requireProfileName(name, 'Profile name');
      const profiles = { ...(read().profiles ?? {}) };
      const clean: Profile = { baseUrl: profile.baseUrl, username: profile.username };
      if (profile.passwordIn === 'keychain') clean.passwordIn = 'keychain';
      else clean.password = profile.password ?? '';
      if (profile.tenant) clean.tenant = profile.tenant;
      profiles[name] = clean;
      write(() => conf.set('profiles', profiles));
    },
    removeProfile(name) {
      const profiles = { ...(read().profiles ?? {}) };
      if (!Object.hasOwn(profiles, name)) return false;
      delete profiles[name];
      write(() => conf.set('profiles', profiles));
      if (read().activeProfile === name) write(() => conf.delete('activeProfile'));
      return true;
    },
    setActive(name) {
      write(() => (name === undefined ? conf.delete('activeProfile') : conf.set('activeProfile', name)));
    },
  };
}
