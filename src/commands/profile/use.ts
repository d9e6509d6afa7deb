import type { InputFor } from '../spec.js';
import type { profileCommands } from './index.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { requireProfileName } from '../../config/store.js';
import { chooseProfile } from './shared/choose-profile.js';

export async function run(input: InputFor<typeof profileCommands, 'profile use'>, ctx: Context): Promise<number> {
  const given = input.arg(0);
  if (given !== undefined) requireProfileName(given, 'NAME');
  const store = await ctx.profileStore();
  const name = given ?? (await chooseProfile(ctx, store.data(), 'profile use', { preselectActive: true }));
  const profiles = store.data().profiles ?? {};
  if (!Object.hasOwn(profiles, name)) {
    throw new UsageError(`No profile named "${name}"`, [`Known profiles: ${Object.keys(profiles).join(', ') || '(none): run `svc auth login`'}`]);
  }
  await store.setActive(name);
  ctx.io.stderr.write(`Profile "${name}" is now active.\n`);
  return 0;
}
