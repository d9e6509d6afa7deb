import type { InputFor } from '../spec.js';
import type { tenantCommands } from './index.js';
import type { Context } from '../../context.js';
import { getTenant } from '../../api/tenants.js';
import { requireGuid } from '../../input/checks.js';
import { writeTenant } from './shared/tenant-fields.js';
import { chooseTenant } from './shared/choose-tenant.js';

export async function run(input: InputFor<typeof tenantCommands, 'tenant get'>, ctx: Context): Promise<number> {
  const id = requireGuid(input.arg(0) ?? (await chooseTenant(ctx, { what: 'ID (tenant GUID)', flag: 'it after `svc tenant get`' })), 'The tenant ID');
  await writeTenant(ctx, await getTenant(await ctx.api(), id));
  return 0;
}
