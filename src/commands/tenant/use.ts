import type { InputFor } from '../spec.js';
import type { tenantCommands } from './index.js';
import type { Context } from '../../context.js';
import { writeJson, writeNdjson } from '../../output/render.js';
import { UsageError } from '../../errors.js';
import { getTenant } from '../../api/tenants.js';
import { requireGuid } from '../../input/checks.js';
import { chooseTenant, tenantIdMissing } from './shared/choose-tenant.js';

// `svc tenant use ID`: the active profile's default tenant, in one command. The tenant is read
// first, so that a mistyped GUID is not stored as the default.

function requireProfile(ctx: Context): void {
  const settings = ctx.settings();
  if (settings.profile === undefined) {
    throw new UsageError(`There is no profile "${settings.profileName}" to keep a default tenant in`, [
      'Run `svc auth login` first (with SVC_USERNAME and SVC_PASSWORD, give --tenant GUID or set SVC_TENANT instead).',
    ]);
  }
}

/** Stores `tenantId` as the default tenant of the profile in use, and says so. */
export async function useTenant(ctx: Context, tenantId: string): Promise<void> {
  requireProfile(ctx);
  const settings = ctx.settings();
  const store = await ctx.profileStore();
  const profile = store.data().profiles![settings.profileName]!;
  await store.setProfile(settings.profileName, { ...profile, tenant: tenantId });
  ctx.io.stderr.write(`Tenant ${tenantId} is now the default of profile "${settings.profileName}".\n`);
  if (settings.tenantSource === 'env') ctx.warn(`SVC_TENANT is set (${settings.tenant}) and wins over the profile's default while it is`);
}

export async function run(input: InputFor<typeof tenantCommands, 'tenant use'>, ctx: Context): Promise<number> {
  requireProfile(ctx);
  const given = input.arg(0);
  const id = requireGuid(given ?? (await chooseTenant(ctx, tenantIdMissing('tenant use'))), 'The tenant ID');
  if (given !== undefined) await getTenant(await ctx.api(), id);
  await useTenant(ctx, id);
  const shown = { profile: ctx.settings().profileName, tenant: id };
  if (ctx.globals.output === 'json') writeJson(ctx, shown);
  else if (ctx.globals.output === 'ndjson') writeNdjson(ctx, shown);
  return 0;
}
