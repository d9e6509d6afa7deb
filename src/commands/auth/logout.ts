import type { InputFor } from '../spec.js';
import type { authCommands } from './index.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';

export async function run(_input: InputFor<typeof authCommands, 'auth logout'>, ctx: Context): Promise<number> {
  const store = await ctx.profileStore();
  const data = store.data();
  const name = ctx.globals.profile ?? ctx.env['SVC_PROFILE'] ?? data.activeProfile ?? 'default';
  const profiles = data.profiles ?? {};
  if (!Object.hasOwn(profiles, name)) {
    throw new UsageError(`No profile named "${name}" to log out of`, [`Known profiles: ${Object.keys(profiles).join(', ') || '(none)'}`]);
  }
  if (profiles[name]!.passwordIn === 'keychain') {
    const { forgetKeychainPassword } = await import('../../config/secrets.js');
    const left = await forgetKeychainPassword(await ctx.secretStore(), profiles, name);
    if (left !== undefined) ctx.warn(left);
  }
  await store.removeProfile(name);
  ctx.io.stderr.write(`Removed the credentials of profile "${name}" from ${store.path}.\n`);
  return 0;
}
