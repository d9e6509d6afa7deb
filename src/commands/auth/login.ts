import type { InputFor } from '../spec.js';
import type { authCommands } from './index.js';
import type { Context } from '../../context.js';
import { writeJson, writeNdjson } from '../../output/render.js';
import { AuthError, CliError, ExitCode, NetworkError, UsageError } from '../../errors.js';
import { apiRoot } from '../../config/settings.js';
import { requireProfileName, type Profile, type ProfileStore } from '../../config/store.js';
import { requireGuid } from '../../input/checks.js';
import { readSecretFromStdin } from '../secret-input.js';
import { listTenants } from '../../api/tenants.js';
import { SANDBOX_DEFAULT_URL, SANDBOX_DEFAULT_USER } from '../../domain/sandbox-defaults.js';
import { canAsk } from '../../output/ask.js';
import { isLoopbackHost } from '../../domain/urls.js';
import type { Prompter } from '../../output/prompts.js';

// Logging in checks the credentials with one request and stores them. What the profile already
// holds is never asked for again: `svc auth login --tenant GUID` on a profile that has everything
// else only changes its tenant. The password goes to the system keychain; the profile file keeps
// it in clear only with --insecure-storage (and for the sandbox's fixed public account).

function checkBaseUrl(value: string): true | string {
  const bare = /^\[?([^\s/:\]]+|[0-9a-f:]+)\]?:(\d{1,5})$/i.exec(value.trim());
  if (bare) {
    // A host and port without a scheme: the sandbox prints its URL with http://, anything else
    // has to be https (see apiRoot).
    const host = value.trim().replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
    const scheme = isLoopbackHost(host) ? 'http' : 'https';
    return `"${value.trim()}" has no scheme: did you mean ${scheme}://${value.trim()}?`;
  }
  try {
    apiRoot(value);
    return true;
  } catch (error) {
    return (error as Error).message;
  }
}

type LoginInput = InputFor<typeof authCommands, 'auth login'>;

/** The profile a login writes, and what it already holds. */
interface LoginTarget {
  store: ProfileStore;
  profileName: string;
  existing: Profile | undefined;
  /** Asks on a terminal; undefined elsewhere. */
  prompter: Prompter | undefined;
  sandbox: boolean;
}

/** Credentials to check, and whether the password was typed at the prompt. */
interface Credentials {
  baseUrl: string;
  username: string;
  password: string;
  typed: boolean;
}

export async function run(input: LoginInput, ctx: Context): Promise<number> {
  const target = await loginTarget(input, ctx);
  const insecure = await settleStorage(input, ctx, target);
  const credentials = await askCredentials(input, ctx, target);
  const tenantFlag = input.string('tenant');
  const tenant = tenantFlag !== undefined ? requireGuid(tenantFlag, '--tenant') : target.existing?.tenant;
  if (input.has('verify') ? input.flag('verify') : true) credentials.password = await verifyCredentials(input, ctx, target, credentials);
  await saveProfile(input, ctx, target, credentials, tenant, insecure);
  return 0;
}

async function loginTarget(input: LoginInput, ctx: Context): Promise<LoginTarget> {
  const sandbox = input.flag('sandbox');
  // The profile may not exist yet, so the name is resolved here rather than through ctx.settings().
  const store = await ctx.profileStore();
  const data = store.data();
  const profileName = requireProfileName(
    ctx.globals.profile ?? ctx.env['SVC_PROFILE'] ?? (sandbox ? 'sandbox' : (data.activeProfile ?? 'default')),
    'Profile name',
  );
  const existing = Object.hasOwn(data.profiles ?? {}, profileName) ? data.profiles![profileName] : undefined;
  const prompter = canAsk(ctx) ? await ctx.prompter() : undefined;
  return { store, profileName, existing, prompter, sandbox };
}

/**
 * Whether the password can be kept is settled before anything is asked, so that nothing typed
 * is thrown away at the end: true when it is to go in the profile file. The sandbox's public
 * account needs no keychain. A base URL given on the command line is checked first: a usage
 * error stays a usage error.
 */
async function settleStorage(input: LoginInput, ctx: Context, target: LoginTarget): Promise<boolean> {
  const flagBaseUrl = ctx.globals.baseUrl ?? (target.sandbox ? undefined : ctx.env['SVC_BASE_URL']);
  if (flagBaseUrl !== undefined) apiRoot(flagBaseUrl);
  if (input.flag('insecureStorage')) return true;
  if (target.sandbox && input.string('username') === undefined) return false;
  const { keychainProblem } = await import('../../config/secrets.js');
  const secrets = await ctx.secretStore();
  const problem = await keychainProblem(secrets);
  if (problem === undefined) return false;
  return acceptFileStorage(ctx, target.prompter, `${secrets.description} cannot be used here: ${problem}`, target.store.path);
}

/** Base URL, username and password: from flags, the environment and the profile, else asked. */
async function askCredentials(input: LoginInput, ctx: Context, target: LoginTarget): Promise<Credentials> {
  const { sandbox, existing, prompter } = target;
  // --sandbox is a flag, so its defaults come before the environment: a shell that exports the
  // real service's SVC_BASE_URL or SVC_USERNAME must not turn a sandbox login into one there.
  let baseUrl = ctx.globals.baseUrl ?? (sandbox ? SANDBOX_DEFAULT_URL : ctx.env['SVC_BASE_URL']) ?? existing?.baseUrl;
  if (!baseUrl && prompter) baseUrl = await askBaseUrl(prompter, target);
  if (!baseUrl) throw new UsageError('No base URL given', ['Give --base-url URL or set SVC_BASE_URL.']);
  apiRoot(baseUrl);
  // Taking the local sandbox's address at the prompt is a sandbox login: its public account follows.
  const toSandbox = sandbox || (ctx.globals.baseUrl === undefined && baseUrl === SANDBOX_DEFAULT_URL);

  let username = input.string('username') ?? (sandbox ? SANDBOX_DEFAULT_USER.email : ctx.env['SVC_USERNAME']) ?? existing?.username;
  if (!username && prompter) {
    username = await prompter.input('Username (account email)', toSandbox ? { default: SANDBOX_DEFAULT_USER.email } : {});
  }
  if (!username) throw new UsageError('No username given', ['Give --username EMAIL or set SVC_USERNAME.']);

  const sameAccount = existing !== undefined && existing.baseUrl === baseUrl && existing.username === username;
  let password: string | undefined;
  if (input.flag('passwordStdin')) password = await readSecretFromStdin(ctx, '--password-stdin');
  else if (toSandbox && username === SANDBOX_DEFAULT_USER.email) password = SANDBOX_DEFAULT_USER.password;
  else password = ctx.env['SVC_PASSWORD'] || undefined;
  if (!password && sameAccount) password = await storedPassword(ctx, target.profileName, existing);
  if (!password && prompter) return { baseUrl, username, password: await prompter.password(`Password for ${username}`), typed: true };
  if (!password) {
    throw new UsageError('No password given', ['Pipe it to --password-stdin or set SVC_PASSWORD; there is no flag that takes it on the command line.']);
  }
  return { baseUrl, username, password, typed: false };
}

/**
 * The base URL, asked with a default: the service the active profile (or every profile) already
 * uses, since a second account is most often on the same service; with no profile at all, the
 * local sandbox's address, where a newcomer starts.
 */
async function askBaseUrl(prompter: Prompter, target: LoginTarget): Promise<string> {
  const data = target.store.data();
  const profiles = data.profiles ?? {};
  const active = data.activeProfile !== undefined && Object.hasOwn(profiles, data.activeProfile) ? profiles[data.activeProfile]?.baseUrl : undefined;
  const known = [...new Set(Object.values(profiles).map((p) => p.baseUrl).filter((u): u is string => typeof u === 'string' && u !== ''))];
  const used = active ?? (known.length === 1 ? known[0] : undefined);
  if (used !== undefined) return prompter.input('Base URL', { default: used, validate: checkBaseUrl });
  return prompter.input('Base URL (Enter for the local sandbox)', {
    default: SANDBOX_DEFAULT_URL,
    validate: checkBaseUrl,
  });
}

/**
 * One request with the credentials; the password that worked. On a terminal a refused password
 * (mistyped, rotated, a sandbox started with --user) is asked again, three typed tries in all;
 * one piped in or from the environment is not.
 */
async function verifyCredentials(input: LoginInput, ctx: Context, target: LoginTarget, credentials: Credentials): Promise<string> {
  const { baseUrl, username } = credentials;
  let { password } = credentials;
  const prompter = input.flag('passwordStdin') ? undefined : target.prompter;
  let tries = credentials.typed ? 1 : 0;
  for (;;) {
    const api = await ctx.api({ baseUrl, username, password });
    try {
      await listTenants(api);
      return password;
    } catch (error) {
      if (prompter !== undefined && error instanceof AuthError && error.status === 401 && tries < PASSWORD_TRIES) {
        ctx.io.stderr.write(`The service refused the password for ${username} (${error.message}).\n`);
        password = await prompter.password(`Password for ${username}`);
        tries += 1;
        continue;
      }
      throw loginFailure(error, ctx, target, baseUrl);
    }
  }
}

/** Why nothing was stored, with the way out: a sandbox that is not running, refused credentials. */
function loginFailure(error: unknown, ctx: Context, target: LoginTarget, baseUrl: string): unknown {
  if (error instanceof NetworkError && (baseUrl === SANDBOX_DEFAULT_URL || (target.sandbox && ctx.globals.baseUrl === undefined))) {
    return new CliError(`${error.message}; nothing was stored`, ExitCode.Failure, {
      hints: [
        `No sandbox answers at ${baseUrl}. Start one with \`svc sandbox start\`; if it runs on another port, it printed the login line to use: svc auth login --sandbox --base-url http://127.0.0.1:PORT`,
      ],
    });
  }
  if (error instanceof AuthError) {
    return new AuthError(`${error.message}; nothing was stored`, {
      status: error.status,
      ...(error.title ? { title: error.title } : {}),
      ...(error.errorCode ? { errorCode: error.errorCode } : {}),
    });
  }
  return error;
}

/** The password where it was settled, the profile written and made active, and what was done said. */
async function saveProfile(input: LoginInput, ctx: Context, target: LoginTarget, credentials: Credentials, tenant: string | undefined, insecure: boolean): Promise<void> {
  const { baseUrl, username, password } = credentials;
  const { store, profileName, prompter } = target;
  // The sandbox's fixed account is public (printed by `svc sandbox start`): no keychain needed.
  const publicPassword = target.sandbox && username === SANDBOX_DEFAULT_USER.email && password === SANDBOX_DEFAULT_USER.password;
  const { storePassword } = await import('../../config/secrets.js');
  let where: 'keychain' | 'file';
  try {
    where = publicPassword ? 'file' : await storePassword(await ctx.secretStore(), baseUrl, username, password, insecure);
  } catch (error) {
    // The keychain answered the first question but would not keep the password: on a terminal
    // the same choice is offered rather than losing what was typed.
    if (!(error instanceof CliError) || prompter === undefined) throw error;
    await acceptFileStorage(ctx, prompter, error.message.replace(/^Nothing was stored: /, ''), store.path);
    where = 'file';
  }
  const profile: Profile = where === 'keychain' ? { baseUrl, username, passwordIn: 'keychain', tenant } : { baseUrl, username, password, tenant };
  await store.setProfile(profileName, profile);
  await store.setActive(profileName);
  const status = { profile: profileName, baseUrl, username, tenant: tenant ?? null };
  if (ctx.globals.output === 'json') writeJson(ctx, status);
  else if (ctx.globals.output === 'ndjson') writeNdjson(ctx, status);
  const kept =
    where === 'keychain'
      ? `the password is in ${(await ctx.secretStore()).description}`
      : publicPassword
        ? "the sandbox's public password is in the profile file"
        : `the password is IN CLEAR in the profile file${input.flag('insecureStorage') ? ' (--insecure-storage)' : ''}`;
  ctx.io.stderr.write(`Logged in to ${baseUrl} as ${username}; profile "${profileName}" is active (${store.path}; ${kept}).\n`);
}

const PASSWORD_TRIES = 3;

/**
 * No keychain: on a terminal, say so and ask whether the 0600 profile file may keep the password
 * (default no); elsewhere, refuse before anything is read. True when the file may keep it.
 */
async function acceptFileStorage(ctx: Context, prompter: Prompter | undefined, why: string, file: string): Promise<true> {
  const hint = 'Start or unlock your keychain and log in again, or give --insecure-storage to keep the password in clear in the 0600 profile file.';
  if (prompter === undefined) throw new CliError(`Nothing was asked or stored: ${why}`, ExitCode.Failure, { hints: [hint] });
  ctx.io.stderr.write(`${why}.\n`);
  const yes = await prompter.confirm(`Keep the password in clear in ${file} (readable by you only)?`, false);
  if (!yes) throw new CliError('Nothing was stored: no keychain, and the profile file was declined', ExitCode.Failure, { hints: [hint] });
  return true;
}

/** The password the profile already has, from the keychain or its file. */
async function storedPassword(ctx: Context, name: string, profile: Profile): Promise<string | undefined> {
  if (profile.password) return profile.password;
  if (profile.passwordIn !== 'keychain') return undefined;
  const { keychainService } = await import('../../config/secrets.js');
  const secrets = await ctx.secretStore();
  try {
    return await secrets.get(keychainService(profile.baseUrl), profile.username);
  } catch (error) {
    ctx.warn(`the stored password of profile "${name}" cannot be read from ${secrets.description}: ${(error as Error).message}`);
    return undefined;
  }
}
