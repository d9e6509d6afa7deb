import type { CommandInput } from '../spec.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';

export async function run(_input: CommandInput, ctx: Context): Promise<number> {
  const store = await ctx.profileStore();
  const data = store.data();
  const name = ctx.globals.profile ?? ctx.env['SVC_PROFILE'] ?? data.activeProfile ?? 'default';
  if (!store.removeProfile(name)) {
    throw new UsageError(`No profile named "${name}" to log out of`, [
      `Known profiles: ${Object.keys(data.profiles ?? {}).join(', ') || '(none)'}`,
    ]);
  }
  ctx.io.stderr.write(`Removed the credentials of profile "${name}" from ${store.path}.\n`);
  return 0;
}
