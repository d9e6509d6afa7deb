import type { Context } from '../../../context.js';
import { listTenants } from '../../../api/tenants.js';
import { askChoice, canAsk, type Choice, missingValueError, whyNotAsked, type MissingValue } from '../../../output/ask.js';
import { requireGuid } from '../../../input/checks.js';
import { CliError, ExitCode, NotFoundError } from '../../../errors.js';

// The tenant a command needs: from --tenant, SVC_TENANT or the profile, else chosen on a terminal
// among the account's tenants, else an error naming the flag, the variable and `svc tenant use`.

export const TENANT_MISSING: MissingValue = {
  what: 'the tenant',
  flag: '--tenant GUID',
  env: 'SVC_TENANT',
  hint: 'Or make one the default of this profile: svc tenant use GUID',
};

/** What a terminal user is told when the account has no tenant to choose from. */
const NO_TENANTS = {
  message: 'The account has no tenants yet, so there is none to choose',
  hint: "Create one and make it this profile's default: svc tenant create --domain example.com --use",
};

/** The default tenant (SVC_TENANT, else the profile's), if one is set. */
export function defaultTenant(ctx: Context): string | undefined {
  const settings = ctx.settings();
  return settings.tenant ? settings.tenant : undefined;
}

/** A tenant chosen on a terminal among the account's; the default tenant, if any, is preselected and marked. */
export async function chooseTenant(ctx: Context, missing: MissingValue = TENANT_MISSING): Promise<string> {
  const current = defaultTenant(ctx)?.toLowerCase();
  const isDefault = (id: string): boolean => id.toLowerCase() === current;
  const load = async (): Promise<Choice[]> => {
    const tenants = await listTenants(await ctx.api());
    return tenants
      .filter((t): t is typeof t & { tenantId: string } => typeof t.tenantId === 'string')
      .map((t) => {
        const label = [t.tenantId, typeof t.domain === 'string' ? t.domain : '', isDefault(t.tenantId) ? '(default)' : ''].filter((part) => part !== '');
        return { name: label.join('  '), value: t.tenantId };
      });
  };
  return askChoice(ctx, missing, 'Which tenant?', load, { isDefault, empty: NO_TENANTS });
}

/** Where the tenant in use came from, for messages: "--tenant", "SVC_TENANT", "the default tenant of profile "work"". */
export function tenantSourceLabel(ctx: Context, flag?: string): string {
  const settings = ctx.settings({ tenant: flag });
  if (settings.tenantSource === 'flag') return '--tenant';
  if (settings.tenantSource === 'env') return 'SVC_TENANT';
  return `the default tenant of profile "${settings.profileName}"`;
}

/** The tenant from the flag, SVC_TENANT or the profile, checked; or asked for; or the error. */
export async function tenantOrAsk(ctx: Context, flag: string | undefined, missing: MissingValue = TENANT_MISSING): Promise<string> {
  const settings = ctx.settings({ tenant: flag });
  if (settings.tenant) return requireGuid(settings.tenant, tenantSourceLabel(ctx, flag));
  if (!canAsk(ctx)) throw missingValueError(missing, whyNotAsked(ctx));
  return chooseTenant(ctx, missing);
}

/** A tenant command's missing ID: given after the command, else SVC_TENANT or the profile's default. */
export function tenantIdMissing(command: string): MissingValue {
  return { ...TENANT_MISSING, what: 'the tenant ID', flag: `it after \`svc ${command}\`` };
}

/**
 * A tenant that is not found, when it came from the profile's default, is the profile's default
 * that is gone (a sandbox restarted without --state forgets its tenants): say so, and how to fix it.
 */
export async function explainTenantNotFound<T>(ctx: Context, flag: string | undefined, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof NotFoundError) || !/tenant/i.test(error.message)) throw error;
    const settings = ctx.settings({ tenant: flag });
    if (settings.tenantSource !== 'profile') throw error;
    throw new CliError(error.message, ExitCode.NotFound, {
      status: error.status,
      ...(error.title !== undefined ? { title: error.title } : {}),
      ...(error.errorCode !== undefined ? { errorCode: error.errorCode } : {}),
      hints: [
        `${settings.tenant} is the default tenant of profile "${settings.profileName}", and the service no longer has it (a sandbox restarted without --state forgets its tenants).`,
        'Choose another with `svc tenant use GUID` (`svc tenant list` shows them), or give --tenant GUID.',
      ],
    });
  }
}
