import type { CommandInput } from '../spec.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';

export async function run(input: CommandInput, ctx: Context): Promise<number> {
  const name = input.arg(0) ?? '';
  const store = await ctx.profileStore();
  const known = Object.keys(store.data().profiles ?? {});
  if (!store.removeProfile(name)) {
    throw new UsageError(`No profile named "${name}"`, [`Known profiles: ${known.join(', ') || '(none)'}`]);
  }
  ctx.io.stderr.write(`Removed profile "${name}".\n`);
  return 0;
}
