import { AuthError, CliError, ExitCode } from '../errors.js';

// Passwords in the system keychain (macOS Keychain, Windows Credential Manager, the Secret Service
// on Linux) through @napi-rs/keyring, imported only where a password is read or stored. A keychain
// that does not answer within a few seconds counts as absent: nothing falls back to clear text
// unless the user asked for it (--insecure-storage).

export interface SecretStore {
  /** What the user is told the password lives in. */
  readonly description: string;
  get(service: string, account: string): Promise<string | undefined>;
  set(service: string, account: string, secret: string): Promise<void>;
  delete(service: string, account: string): Promise<boolean>;
}

/** The keychain did not answer, or refused: the message says what it said. */
export class KeychainUnavailableError extends CliError {
  constructor(reason: string) {
    super(`No system keychain answered: ${reason}`, ExitCode.Failure);
  }
}

export const KEYCHAIN_WAIT_MS = 5_000;

/** One keychain item per service and account: the credential of this user at this base URL. */
export function keychainService(baseUrl: string): string {
  return `svc-cli:${baseUrl.replace(/\/+$/, '')}`;
}

async function bounded<T>(what: (signal: AbortSignal) => Promise<T>, waitMs: number): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new KeychainUnavailableError(`no answer within ${Math.round(waitMs / 1000)} s`));
    }, waitMs);
  });
  try {
    return await Promise.race([what(controller.signal), timeout]);
  } catch (error) {
    if (error instanceof KeychainUnavailableError) throw error;
    throw new KeychainUnavailableError(error instanceof Error ? error.message : String(error));
  } finally {
    clearTimeout(timer);
  }
}

function platformKeychain(): string {
  if (process.platform === 'darwin') return 'the macOS Keychain';
  if (process.platform === 'win32') return 'the Windows Credential Manager';
  return 'the system keychain (Secret Service)';
}

/** The system keychain; each call gives up after `waitMs`. */
export function systemSecretStore(waitMs = KEYCHAIN_WAIT_MS): SecretStore {
  const entry = async (service: string, account: string) => {
    let keyring: typeof import('@napi-rs/keyring');
    try {
      keyring = await import('@napi-rs/keyring');
    } catch (error) {
      throw new KeychainUnavailableError(`the keyring module did not load (${error instanceof Error ? error.message : String(error)})`);
    }
    return new keyring.AsyncEntry(service, account);
  };
  return {
    description: platformKeychain(),
    async get(service, account) {
      const item = await entry(service, account);
      return (await bounded((signal) => item.getPassword(signal), waitMs)) ?? undefined;
    },
    async set(service, account, secret) {
      const item = await entry(service, account);
      await bounded((signal) => item.setPassword(secret, signal), waitMs);
      // A store that says yes but keeps nothing (a locked collection, a stub) is no store.
      const back = await bounded((signal) => item.getPassword(signal), waitMs);
      if (back !== secret) throw new KeychainUnavailableError('the password did not read back after it was stored');
    },
    async delete(service, account) {
      const item = await entry(service, account);
      return bounded((signal) => item.deletePassword(signal), waitMs);
    },
  };
}

/** The password of a keychain profile, or an error that says how to get it back. */
export async function readKeychainPassword(store: SecretStore, profileName: string, baseUrl: string, username: string): Promise<string> {
  let password: string | undefined;
  try {
    password = await store.get(keychainService(baseUrl), username);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new AuthError(`The password of profile "${profileName}" is in ${store.description}, which cannot be read: ${reason}`, {
      hints: ['Unlock the keychain and try again, or set SVC_USERNAME and SVC_PASSWORD for this run.'],
    });
  }
  if (password === undefined || password === '') {
    throw new AuthError(`The keychain holds no password for ${username} at ${baseUrl} (profile "${profileName}")`, {
      hints: [`Run \`svc auth login --profile ${profileName}\` to store it again.`],
    });
  }
  return password;
}

/**
 * Whether the keychain can keep a password, asked before a login asks for anything. A read alone
 * is not enough (with no Secret Service on the bus a read answers "nothing there"), so a probe
 * item is stored, read back and removed. Returns why it cannot be used, or undefined when it can.
 */
export async function keychainProblem(store: SecretStore): Promise<string | undefined> {
  const service = keychainService('svc-cli-probe');
  try {
    await store.set(service, 'svc-cli-probe', 'probe');
    await store.delete(service, 'svc-cli-probe');
    return undefined;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return reason.replace(/^No system keychain answered: /, '');
  }
}

/**
 * Stores a password: in the keychain, or (only when the user said so) in the 0600 profile file.
 * Returns where it went.
 */
export async function storePassword(
  store: SecretStore,
  baseUrl: string,
  username: string,
  password: string,
  insecure: boolean,
): Promise<'keychain' | 'file'> {
  if (insecure) return 'file';
  try {
    await store.set(keychainService(baseUrl), username, password);
    return 'keychain';
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new CliError(`Nothing was stored: ${reason.replace(/^No system keychain answered: /, `${store.description} did not answer: `)}`, ExitCode.Failure, {
      hints: ['Start or unlock your keychain and log in again, or give --insecure-storage to keep the password in clear in the 0600 profile file.'],
    });
  }
}

/**
 * Removes a profile's keychain item, unless another profile uses the same account. A keychain
 * that does not answer leaves the item behind: the caller is told, and the profile goes anyway.
 */
export async function forgetKeychainPassword(
  store: SecretStore,
  profiles: Readonly<Record<string, { baseUrl: string; username: string; passwordIn?: 'keychain' | undefined }>>,
  name: string,
): Promise<string | undefined> {
  const profile = Object.hasOwn(profiles, name) ? profiles[name] : undefined;
  if (profile?.passwordIn !== 'keychain') return undefined;
  const shared = Object.entries(profiles).some(
    ([other, p]) => other !== name && p.passwordIn === 'keychain' && p.baseUrl === profile.baseUrl && p.username === profile.username,
  );
  if (shared) return undefined;
  try {
    await store.delete(keychainService(profile.baseUrl), profile.username);
    return undefined;
  } catch (error) {
    return `the password of ${profile.username} stays in ${store.description}: ${(error as Error).message}`;
  }
}
