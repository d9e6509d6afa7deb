import type { InputFor } from '../spec.js';
import type { profileCommands } from './index.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { requireProfileName } from '../../config/store.js';

export async function run(input: InputFor<typeof profileCommands, 'profile use'>, ctx: Context): Promise<number> {
  const name = requireProfileName(input.arg(0) ?? '', 'NAME');
  const store = await ctx.profileStore();
  const profiles = store.data().profiles ?? {};
  if (!Object.hasOwn(profiles, name)) {
    throw new UsageError(`No profile named "${name}"`, [`Known profiles: ${Object.keys(profiles).join(', ') || '(none): run `svc auth login`'}`]);
  }
  await store.setActive(name);
  ctx.io.stderr.write(`Profile "${name}" is now active.\n`);
  return 0;
}
