import type { InputFor } from '../spec.js';
import type { tenantCommands } from './index.js';
import type { Context } from '../../context.js';
import { getTenant } from '../../api/tenants.js';
import { requireGuid } from '../../input/checks.js';
import { writeTenant } from './shared/tenant-fields.js';
import { explainTenantNotFound, tenantIdMissing, tenantOrAsk } from './shared/choose-tenant.js';

export async function run(input: InputFor<typeof tenantCommands, 'tenant get'>, ctx: Context): Promise<number> {
  const given = input.arg(0);
  // Without an ID, the default tenant (SVC_TENANT, then the profile's); only without one is it chosen.
  const id = given !== undefined ? requireGuid(given, 'The tenant ID') : await tenantOrAsk(ctx, undefined, tenantIdMissing('tenant get'));
  const tenant = await explainTenantNotFound(ctx, given, async () => getTenant(await ctx.api(), id));
  await writeTenant(ctx, tenant);
  return 0;
}
