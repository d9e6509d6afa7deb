import type { CommandInput } from '../spec.js';
import type { Context } from '../../context.js';
import { AuthError } from '../../errors.js';
import { requireConnection } from '../../config/settings.js';
import { listTenants } from '../../api/tenants.js';
import { writeObject } from '../../output/render.js';

const describeSource = (source: string, env: string): string =>
  source === 'env' ? ` (from ${env})` : source === 'flag' ? ' (from the command line)' : '';

export async function run(input: CommandInput, ctx: Context): Promise<number> {
  const settings = ctx.settings();
  const status = {
    profile: settings.profile ? settings.profileName : null,
    baseUrl: settings.baseUrl ?? null,
    username: settings.username ?? null,
    tenant: settings.tenant ?? null,
  };
  let checked: string | undefined;
  if (input.flag('check')) {
    requireConnection(settings);
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
      password: settings.password ? `set${describeSource(settings.passwordSource, 'SVC_PASSWORD')}` : '(not set)',
      tenant: `${status.tenant ?? '(none)'}${describeSource(settings.tenantSource, 'SVC_TENANT')}`,
      store: settings.configDir,
    });
  }
  if (checked) ctx.io.stderr.write(`${checked}\n`);
  if (!settings.username || !settings.password || !settings.baseUrl) {
    throw new AuthError('Not logged in', { hints: ['Run `svc auth login`, or set SVC_BASE_URL, SVC_USERNAME and SVC_PASSWORD.'] });
  }
  return 0;
}
