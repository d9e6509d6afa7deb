import type { Context } from '../../../context.js';
import { listTenants } from '../../../api/tenants.js';
import { askChoice, canAsk, missingValueError, whyNotAsked, type MissingValue } from '../../../output/ask.js';
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

export async function chooseTenant(ctx: Context, missing: MissingValue = TENANT_MISSING): Promise<string> {
  return askChoice(ctx, missing, 'Which tenant?', async () => {
    const tenants = await listTenants(await ctx.api());
    return tenants
      .filter((t) => typeof t.tenantId === 'string')
      .map((t) => ({ name: typeof t.domain === 'string' && t.domain !== '' ? `${t.tenantId}  ${t.domain}` : t.tenantId!, value: t.tenantId! }));
  });
}

/** The tenant from the flag, SVC_TENANT or the profile, checked; or asked for; or the error. */
export async function tenantOrAsk(ctx: Context, flag: string | undefined, missing: MissingValue = TENANT_MISSING): Promise<string> {
  const settings = ctx.settings({ tenant: flag });
  if (settings.tenant) {
    const source = settings.tenantSource === 'flag' ? '--tenant' : settings.tenantSource === 'env' ? 'SVC_TENANT' : `the default tenant of profile "${settings.profileName}"`;
    return requireGuid(settings.tenant, source);
  }
  if (!canAsk(ctx)) throw missingValueError(missing, whyNotAsked(ctx));
  return chooseTenant(ctx, missing);
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
