import type { InputFor } from '../spec.js';
import type { tenantCommands } from './index.js';
import type { Context } from '../../context.js';
import { ApiError } from '../../errors.js';
import { createTenant } from '../../api/tenants.js';
import { tenantChanges, writeTenant } from './shared/tenant-fields.js';
import { useTenant } from './use.js';
import { canAsk } from '../../output/ask.js';

export async function run(input: InputFor<typeof tenantCommands, 'tenant create'>, ctx: Context): Promise<number> {
  const { body, secrets } = await tenantChanges(input, ctx, input.string('tenantId'));
  const api = await ctx.api();
  for (const secret of secrets) api.addSecret(secret);
  const created = await createTenant(api, body);
  if (created === undefined || typeof created !== 'object') {
    throw new ApiError('The service created the tenant but its answer had no body, so its tenantId is unknown');
  }
  await writeTenant(ctx, created, secrets);
  const id = typeof created.tenantId === 'string' ? created.tenantId : undefined;
  if (id === undefined) return 0;
  if (input.flag('use')) {
    await useTenant(ctx, id);
  } else if (canAsk(ctx) && !ctx.globals.yes && ctx.settings().profile !== undefined) {
    const prompter = await ctx.prompter();
    if (await prompter.confirm(`Make ${id} the default tenant of profile "${ctx.settings().profileName}"?`, false)) await useTenant(ctx, id);
    else ctx.io.stderr.write(`To make it the default later: svc tenant use ${id}\n`);
  }
  return 0;
}
