import type { CommandInput } from '../spec.js';
import type { Context } from '../../context.js';
import { ApiError } from '../../errors.js';
import { createTenant } from '../../api/tenants.js';
import { tenantChanges, writeTenant } from './shared.js';

export async function run(input: CommandInput, ctx: Context): Promise<number> {
  const { body, secrets } = await tenantChanges(input, ctx);
  const api = await ctx.api();
  for (const secret of secrets) api.addSecret(secret);
  const created = await createTenant(api, body);
  if (created === undefined || typeof created !== 'object') {
    throw new ApiError('The service created the tenant but its answer had no body, so its tenantId is unknown');
  }
  await writeTenant(ctx, created, secrets);
  return 0;
}
