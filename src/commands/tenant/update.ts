import type { InputFor } from '../spec.js';
import type { tenantCommands } from './index.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { getTenant, updateTenant, type TenantWrite } from '../../api/tenants.js';
import { requireGuid } from '../../input/checks.js';
import { tenantChanges, writeTenant } from './shared/tenant-fields.js';
import { TENANT_SECRET_FIELDS } from '../../domain/api/enums.js';
import { defaultTenant, explainTenantNotFound, tenantIdMissing, tenantOrAsk, tenantSourceLabel } from './shared/choose-tenant.js';

// PUT may replace the whole tenant, so the update reads the tenant, applies the changes and sends
// the result, leaving out read-only fields and any secret the read returned hidden.

export async function run(input: InputFor<typeof tenantCommands, 'tenant update'>, ctx: Context): Promise<number> {
  const given = input.arg(0);
  if (given !== undefined) requireGuid(given, 'The tenant ID');
  const { body: changes, secrets } = await tenantChanges(input, ctx);
  if (Object.keys(changes).length === 0) {
    throw new UsageError('Nothing to update: give --domain, a webhook flag or --file');
  }
  // Without an ID, the default tenant (SVC_TENANT, then the profile's), said on stderr since a
  // change is made to it; asked only once the changes are known to be good, so that nobody
  // chooses for nothing.
  const id = given ?? (await tenantOrAsk(ctx, undefined, tenantIdMissing('tenant update')));
  if (given === undefined && defaultTenant(ctx) !== undefined) ctx.io.stderr.write(`Updating tenant ${id} (${tenantSourceLabel(ctx)}).\n`);
  if (changes.tenantId !== undefined && changes.tenantId !== id) {
    throw new UsageError(`The file's tenantId ${String(changes.tenantId)} is not the tenant being updated (${id})`);
  }
  const api = await ctx.api();
  for (const secret of secrets) api.addSecret(secret);
  const current = await explainTenantNotFound(ctx, given, () => getTenant(api, id));
  const currentSettings = typeof current.settings === 'object' && current.settings !== null ? { ...current.settings } : {};
  for (const key of TENANT_SECRET_FIELDS) delete currentSettings[key];
  const { tenantId: _ignored, settings: changedSettings, ...changedFields } = changes;
  const body: TenantWrite = {
    domain: typeof current.domain === 'string' ? current.domain : undefined,
    ...changedFields,
    settings: { ...currentSettings, ...(changedSettings ?? {}) },
  };
  if (body.domain === undefined) delete body.domain;
  const answer = await updateTenant(api, id, body);
  await writeTenant(ctx, answer ?? (await getTenant(api, id)), secrets);
  return 0;
}
