import type { InputFor } from '../spec.js';
import type { tenantCommands } from './index.js';
import type { Context } from '../../context.js';
import type { Tenant } from '../../api/tenants.js';
import { listTenants } from '../../api/tenants.js';
import { paint, writeList, type Column } from '../../output/render.js';
import { widthRuleFor, wrapToWidth } from '../../output/width.js';
import { maskTenant, tenantColumns } from './shared/tenant-fields.js';
import { defaultTenant } from './shared/choose-tenant.js';

// The default tenant is marked only in the table a person reads, where a line under it says what
// the mark means: piped rows keep their columns for `cut`, and --json is the service's objects
// as they came, with nothing added.

/** The marker column: first and most important, so that fitting the table never leaves it out. */
function defaultColumn(isDefault: (t: Tenant) => boolean): Column<Tenant> {
  return { header: '', value: (t) => (isDefault(t) ? '*' : ''), kind: 'status', importance: 6 };
}

export async function run(_input: InputFor<typeof tenantCommands, 'tenant list'>, ctx: Context): Promise<number> {
  const tenants = (await listTenants(await ctx.api())).map((t) => maskTenant(t));
  const current = defaultTenant(ctx);
  const forPeople = ctx.globals.output === 'table' && ctx.io.stdoutIsTTY && (ctx.globals.fields ?? []).length === 0;
  if (!forPeople || current === undefined) {
    await writeList(ctx, tenants, tenantColumns);
    return 0;
  }
  const isDefault = (t: Tenant): boolean => typeof t.tenantId === 'string' && t.tenantId.toLowerCase() === current.toLowerCase();
  await writeList(ctx, tenants, [defaultColumn(isDefault), ...tenantColumns]);
  // A note after the table (after the pager, when it is paged), so that no page covers it.
  const settings = ctx.settings();
  const named = settings.tenantSource === 'env' ? 'default tenant (SVC_TENANT)' : `default tenant of profile "${settings.profileName}"`;
  const legend = tenants.some(isDefault) ? `* marks the ${named}` : `The ${named}, ${current}, is not among these: choose another with \`svc tenant use\``;
  if (tenants.length > 0) {
    const rule = await widthRuleFor([legend]);
    for (const part of wrapToWidth(rule, legend, ctx.io.columns)) ctx.note(await paint(ctx, 'stderr', 'dim', part));
  }
  return 0;
}
