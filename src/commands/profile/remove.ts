import type { InputFor } from '../spec.js';
import type { profileCommands } from './index.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { requireProfileName } from '../../config/store.js';
import { confirmAction } from '../../output/ask.js';
import { chooseProfile } from './shared/choose-profile.js';

export async function run(input: InputFor<typeof profileCommands, 'profile remove'>, ctx: Context): Promise<number> {
  const given = input.arg(0);
  if (given !== undefined) requireProfileName(given, 'NAME');
  const store = await ctx.profileStore();
  // Nothing is preselected: Enter alone should not lead towards removing the profile in use.
  const name = given ?? (await chooseProfile(ctx, store.data(), 'profile remove', { preselectActive: false }));
  const profiles = store.data().profiles ?? {};
  if (!Object.hasOwn(profiles, name)) {
    throw new UsageError(`No profile named "${name}"`, [`Known profiles: ${Object.keys(profiles).join(', ') || '(none)'}`]);
  }
  const profile = profiles[name]!;
  await confirmAction(ctx, `remove profile "${name}" (${profile.username} at ${profile.baseUrl}) and its stored password`);
  if (profile.passwordIn === 'keychain') {
    const { forgetKeychainPassword } = await import('../../config/secrets.js');
    const left = await forgetKeychainPassword(await ctx.secretStore(), profiles, name);
    if (left !== undefined) ctx.warn(left);
  }
  await store.removeProfile(name);
  ctx.io.stderr.write(`Removed profile "${name}".\n`);
  return 0;
}
