import type { InputFor } from '../spec.js';
import type { authCommands } from './index.js';
import { AuthError } from '../../errors.js';
import { listTenants } from '../../api/tenants.js';
import { writeObject } from '../../output/render.js';
import type { ResolvedSettings } from '../../config/settings.js';
import type { Context } from '../../context.js';
import { SANDBOX_DEFAULT_USER } from '../../domain/sandbox-defaults.js';

const describeSource = (source: string, env: string): string =>
  source === 'env' ? ` (from ${env})` : source === 'flag' ? ' (from the command line)' : '';

export async function run(input: InputFor<typeof authCommands, 'auth status'>, ctx: Context): Promise<number> {
  const settings = ctx.settings();
  const status = {
    profile: settings.profile ? settings.profileName : null,
    baseUrl: settings.baseUrl ?? null,
    username: settings.username ?? null,
    tenant: settings.tenant ?? null,
  };
  let checked: string | undefined;
  if (input.flag('check')) {
    await listTenants(await ctx.api());
    checked = 'the service accepted these credentials';
  }
  if (ctx.globals.output !== 'table') {
    await writeObject(ctx, status);
  } else {
    await writeObject(ctx, {
      profile: status.profile ?? `(none${settings.profile === undefined && settings.profileName !== 'default' ? `: "${settings.profileName}" does not exist` : ''})`,
      baseUrl: `${status.baseUrl ?? '(not set)'}${describeSource(settings.baseUrlSource, 'SVC_BASE_URL')}`,
      username: `${status.username ?? '(not set)'}${describeSource(settings.usernameSource, 'SVC_USERNAME')}`,
      password: await passwordPlace(ctx, settings),
      tenant: `${status.tenant ?? '(none)'}${describeSource(settings.tenantSource, 'SVC_TENANT')}`,
      store: settings.configDir,
    });
  }
  if (checked) ctx.io.stderr.write(`${checked}\n`);
  const inClear = settings.passwordSource === 'profile' && settings.profile?.password !== undefined && settings.profile.passwordIn !== 'keychain';
  if (inClear && !(settings.profile?.username === SANDBOX_DEFAULT_USER.email && settings.profile.password === SANDBOX_DEFAULT_USER.password)) {
    ctx.io.stderr.write(`hint: the password is in clear in ${settings.configDir}; move it to the system keychain with \`svc auth login${settings.profileName === 'default' ? '' : ` --profile ${settings.profileName}`}\`\n`);
  }
  const inKeychain = settings.passwordSource !== 'env' && settings.profile?.passwordIn === 'keychain';
  if (!settings.username || !(settings.password || inKeychain) || !settings.baseUrl) {
    throw new AuthError('Not logged in', { hints: ['Run `svc auth login`, or set SVC_BASE_URL, SVC_USERNAME and SVC_PASSWORD.'] });
  }
  return 0;
}

/** Where the password lives, never what it is. */
async function passwordPlace(ctx: Context, settings: ResolvedSettings): Promise<string> {
  if (settings.passwordSource === 'env') return 'set (from SVC_PASSWORD)';
  if (settings.profile?.passwordIn === 'keychain') return `in ${(await ctx.secretStore()).description}`;
  if (settings.password) return `in clear in the profile file (${settings.configDir}, mode 0600)`;
  return '(not set)';
}
