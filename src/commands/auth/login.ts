import type { CommandInput } from '../spec.js';
import type { Context } from '../../context.js';
import { AuthError, UsageError } from '../../errors.js';
import { apiRoot } from '../../config/settings.js';
import { readSecretFromStdin, requireGuid } from '../shared/input.js';
import { listTenants } from '../../api/tenants.js';
import { SANDBOX_DEFAULT_URL, SANDBOX_DEFAULT_USER } from '../../domain/sandbox-defaults.js';

export async function run(input: CommandInput, ctx: Context): Promise<number> {
  const sandbox = input.flag('sandbox');
  // The profile may not exist yet, so the name is resolved here rather than through ctx.settings().
  const store = await ctx.profileStore();
  const data = store.data();
  const profileName = ctx.globals.profile ?? ctx.env['SVC_PROFILE'] ?? (sandbox ? 'sandbox' : (data.activeProfile ?? 'default'));
  const existing = data.profiles?.[profileName];
  const prompter = ctx.io.canPrompt ? await ctx.prompter() : undefined;

  // --sandbox is a flag, so its defaults come before the environment: a shell that exports the
  // real service's SVC_BASE_URL or SVC_USERNAME must not turn a sandbox login into one there.
  let baseUrl = ctx.globals.baseUrl ?? (sandbox ? SANDBOX_DEFAULT_URL : ctx.env['SVC_BASE_URL']);
  if (!baseUrl && prompter) {
    baseUrl = await prompter.input('Base URL of the service', {
      ...(existing?.baseUrl ? { default: existing.baseUrl } : {}),
      validate: (value) => {
        try {
          apiRoot(value);
          return true;
        } catch (error) {
          return (error as Error).message;
        }
      },
    });
  }
  baseUrl ??= existing?.baseUrl;
  if (!baseUrl) throw new UsageError('No base URL given', ['Give --base-url URL or set SVC_BASE_URL.']);
  apiRoot(baseUrl);

  let username = input.string('username') ?? (sandbox ? SANDBOX_DEFAULT_USER.email : ctx.env['SVC_USERNAME']);
  if (!username && prompter) username = await prompter.input('Username (account email)', existing?.username ? { default: existing.username } : {});
  username ??= existing?.username;
  if (!username) throw new UsageError('No username given', ['Give --username EMAIL or set SVC_USERNAME.']);

  let password: string | undefined;
  if (input.flag('passwordStdin')) password = await readSecretFromStdin(ctx, '--password-stdin');
  else if (sandbox && username === SANDBOX_DEFAULT_USER.email) password = SANDBOX_DEFAULT_USER.password;
  else password = ctx.env['SVC_PASSWORD'] || undefined;
  if (!password && prompter) password = await prompter.password(`Password for ${username}`);
  if (!password) {
    throw new UsageError('No password given', ['Pipe it to --password-stdin or set SVC_PASSWORD; there is no flag that takes it on the command line.']);
  }

  const tenantFlag = input.string('tenant');
  const tenant = tenantFlag !== undefined ? requireGuid(tenantFlag, '--tenant') : existing?.tenant;

  if (input.has('verify') ? input.flag('verify') : true) {
    const api = await ctx.api({ baseUrl, username, password });
    try {
      await listTenants(api);
    } catch (error) {
      if (error instanceof AuthError) {
        throw new AuthError(`${error.message}; nothing was stored`, {
          status: error.status,
          ...(error.title ? { title: error.title } : {}),
          ...(error.errorCode ? { errorCode: error.errorCode } : {}),
        });
      }
      throw error;
    }
  }

  store.setProfile(profileName, { baseUrl, username, password, tenant });
  store.setActive(profileName);
  const status = { profile: profileName, baseUrl, username, tenant: tenant ?? null };
  if (ctx.globals.output === 'json') ctx.io.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
  else if (ctx.globals.output === 'ndjson') ctx.io.stdout.write(`${JSON.stringify(status)}\n`);
  ctx.io.stderr.write(`Logged in to ${baseUrl} as ${username}; profile "${profileName}" is active (${store.path}).\n`);
  return 0;
}
