import { AuthError, UsageError } from '../errors.js';
import { isHttpsOrLoopbackUrl, isLoopbackHost } from '../domain/urls.js';
import { configDir, readStore, storeReadProblem, type Profile, type StoreData } from './store.js';

// Where each setting comes from, highest first: command-line flag, environment, profile.

export type Source = 'flag' | 'env' | 'profile' | 'default';

export interface SettingsFlags {
  profile?: string | undefined;
  baseUrl?: string | undefined;
  tenant?: string | undefined;
}

export interface ResolvedSettings {
  profileName: string;
  /** The profile as stored, when there is one by that name. */
  profile: Profile | undefined;
  baseUrl: string | undefined;
  baseUrlSource: Source;
  username: string | undefined;
  usernameSource: Source;
  password: string | undefined;
  passwordSource: Source;
  tenant: string | undefined;
  tenantSource: Source;
  configDir: string;
}

/** `onRepair` hears of a store made private on the way (see src/config/store.ts). */
export function resolveSettings(flags: SettingsFlags, env: Readonly<Record<string, string | undefined>>, onRepair?: (message: string) => void): ResolvedSettings {
  const dir = configDir(env);
  const needStore = !(env['SVC_BASE_URL'] || flags.baseUrl) || !env['SVC_USERNAME'] || !env['SVC_PASSWORD'] || !(flags.tenant || env['SVC_TENANT']);
  let store: StoreData = {};
  if (needStore) {
    try {
      store = readStore(dir, onRepair === undefined ? {} : { onRepair });
    } catch (error) {
      throw storeReadProblem(dir, error);
    }
  }
  const pick = <T>(flag: T | undefined, envValue: T | undefined, profileValue: T | undefined): [T | undefined, Source] => {
    if (flag !== undefined && flag !== '') return [flag, 'flag'];
    if (envValue !== undefined && envValue !== '') return [envValue, 'env'];
    if (profileValue !== undefined && profileValue !== '') return [profileValue, 'profile'];
    return [undefined, 'default'];
  };
  const [profileName] = pick(flags.profile, env['SVC_PROFILE'], store.activeProfile);
  const name = profileName ?? 'default';
  const profile = store.profiles?.[name];
  if ((flags.profile || env['SVC_PROFILE']) && !profile && needStore && !(env['SVC_USERNAME'] && env['SVC_PASSWORD'])) {
    const known = Object.keys(store.profiles ?? {});
    throw new UsageError(`No profile named "${name}"`, [
      known.length ? `Known profiles: ${known.join(', ')}` : 'No profiles yet: run `svc auth login`.',
    ]);
  }
  const [baseUrl, baseUrlSource] = pick(flags.baseUrl, env['SVC_BASE_URL'], profile?.baseUrl);
  const [username, usernameSource] = pick(undefined, env['SVC_USERNAME'], profile?.username);
  const [password, passwordSource] = pick(undefined, env['SVC_PASSWORD'], profile?.password);
  const [tenant, tenantSource] = pick(flags.tenant, env['SVC_TENANT'], profile?.tenant);
  return {
    profileName: name,
    profile,
    baseUrl,
    baseUrlSource,
    username,
    usernameSource,
    password,
    passwordSource,
    tenant,
    tenantSource,
    configDir: dir,
  };
}

/**
 * Checks a base URL for the transport rule (https, or http to loopback only) and returns it
 * with `/api/v1` appended once.
 */
export function apiRoot(baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    // Whatever stands before an @ may be a password typed into the URL: it is not repeated.
    const shown = baseUrl.replace(/^([a-z][a-z0-9+.-]*:\/\/)?[^/@]*@/i, '$1[REDACTED]@');
    throw new UsageError(`"${shown}" is not a valid base URL`, [schemeAdvice(shown)]);
  }
  if (url.protocol === 'http:' && !isHttpsOrLoopbackUrl(url)) {
    throw new UsageError(`Refusing to send credentials over plain HTTP to ${url.host}: use https://`, [
      'http:// is accepted only for loopback hosts (localhost, 127.0.0.0/8, [::1]), such as the local sandbox.',
    ]);
  } else if (!isHttpsOrLoopbackUrl(url)) {
    // `localhost:4010` parses as the scheme "localhost:".
    throw new UsageError(`"${baseUrl}" is not an http(s) URL`, /^[a-z0-9.-]+:\d+(\/|$)/i.test(baseUrl) ? [schemeAdvice(baseUrl)] : []);
  }
  if (url.username || url.password) {
    throw new UsageError('The base URL must not carry credentials; use `svc auth login` or SVC_USERNAME/SVC_PASSWORD');
  }
  url.search = '';
  url.hash = '';
  const path = url.pathname.replace(/\/+$/, '');
  url.pathname = path.endsWith('/api/v1') ? `${path}/` : `${path}/api/v1/`;
  return url;
}

/** Credentials for a request, or an error that says which flag or variable supplies them. */
export function requireConnection(settings: ResolvedSettings): { root: URL; username: string; password: string } {
  if (!settings.baseUrl) {
    throw new UsageError('No base URL is configured', [
      'Give --base-url URL, set SVC_BASE_URL, or run `svc auth login` (try `svc auth login --sandbox` for the local sandbox).',
    ]);
  }
  const root = apiRoot(settings.baseUrl);
  if (!settings.username || !settings.password) {
    const missing = !settings.username ? 'username' : 'password';
    throw new AuthError(`No ${missing} is configured for profile "${settings.profileName}"`, {
      hints: ['Run `svc auth login`, or set SVC_USERNAME and SVC_PASSWORD (CI needs no profile file then).'],
    });
  }
  return { root, username: settings.username, password: settings.password };
}

/** A base URL typed without its scheme: the one it most likely needs. */
function schemeAdvice(value: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return 'Give an absolute URL such as https://api.example.com';
  const host = value.replace(/[/:].*$/, '');
  const scheme = isLoopbackHost(host.replace(/^\[|\]$/g, '')) ? 'http' : 'https';
  return `A base URL needs its scheme: did you mean ${scheme}://${value}?`;
}
