import type { CommandInput } from '../spec.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';

export async function run(input: CommandInput, ctx: Context): Promise<number> {
  const name = input.arg(0) ?? '';
  const store = await ctx.profileStore();
  const profiles = store.data().profiles ?? {};
  if (!(name in profiles)) {
    throw new UsageError(`No profile named "${name}"`, [`Known profiles: ${Object.keys(profiles).join(', ') || '(none): run `svc auth login`'}`]);
  }
  store.setActive(name);
  ctx.io.stderr.write(`Profile "${name}" is now active.\n`);
  return 0;
}
