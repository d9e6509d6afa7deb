import type { InputFor } from '../spec.js';
import type { tenantCommands } from './index.js';
import type { Context } from '../../context.js';
import { listTenants } from '../../api/tenants.js';
import { writeList } from '../../output/render.js';
import { maskTenant, tenantColumns } from './shared/tenant-fields.js';

export async function run(_input: InputFor<typeof tenantCommands, 'tenant list'>, ctx: Context): Promise<number> {
  const tenants = await listTenants(await ctx.api());
  await writeList(ctx, tenants.map((t) => maskTenant(t)), tenantColumns);
  return 0;
}
