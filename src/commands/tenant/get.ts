import type { CommandInput } from '../spec.js';
import type { Context } from '../../context.js';
import { getTenant } from '../../api/tenants.js';
import { requireGuid } from '../shared/input.js';
import { writeTenant } from './shared.js';

export async function run(input: CommandInput, ctx: Context): Promise<number> {
  const id = requireGuid(input.arg(0) ?? '', 'The tenant ID');
  await writeTenant(ctx, await getTenant(await ctx.api(), id));
  return 0;
}
