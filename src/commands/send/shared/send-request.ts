import type { InputFor } from '../../spec.js';
import type { sendCommands } from '../index.js';
import type { Context } from '../../../context.js';
import type { UnknownChoice } from '../../../send/journal/format.js';
import type { SendRequest } from '../../../send/plan.js';
import { DEFAULT_CONCURRENCY } from '../../defaults.js';
import { UsageError } from '../../../errors.js';
import { TENANT_MISSING, tenantOrAsk, tenantSourceLabel } from '../../tenant/shared/choose-tenant.js';
import { requireGuid } from '../../../input/checks.js';
import { readPaceOptions } from './pace-flags.js';
import { checkStoreDir } from '../../events/shared/store-options.js';
import { parseBudget } from '../../../send/cost/money.js';

// The command line of `svc send` as the pipeline's request: every flag read here, once, each
// number and pace value parsed (exit 2 naming it); what the values mean together is the plan's
// check (src/send/plan.ts).

export function sendRequestOf(input: InputFor<typeof sendCommands, 'send'>, ctx: Context): SendRequest {
  const unknownText = input.string('unknown');
  const budgetText = input.string('budget');
  const store = input.string('store');
  if (store !== undefined && store.trim() === '') throw new UsageError('--store needs a directory, not an empty string');
  // A --store that cannot be a directory is the user's mistake, told before anything is sent (the
  // default store failing later only costs the record, with a warning).
  if (store !== undefined) checkStoreDir(store, true);
  return {
    from: input.string('from'),
    to: input.strings('to'),
    toFile: input.string('toFile'),
    body: input.string('body'),
    bodyFile: input.string('bodyFile'),
    media: input.strings('media'),
    mediaFiles: input.strings('mediaFile'),
    tenant: () => tenantOrAsk(ctx, input.string('tenant'), { ...TENANT_MISSING, what: 'the tenant of the --media-file upload' }),
    isAsync: input.flag('async'),
    concurrency: input.number('concurrency', '--concurrency', { min: 1, max: 256, integer: true }) ?? DEFAULT_CONCURRENCY,
    journal: input.string('journal'),
    resume: input.flag('resume'),
    unknown: unknownText === undefined ? undefined : (unknownText.toLowerCase() as UnknownChoice),
    dryRun: input.flag('dryRun'),
    yes: input.flag('yes'),
    pace: readPaceOptions(input),
    // --store DIR, --no-store (false), or the default store (undefined).
    store: store ?? (input.has('store') ? false : undefined),
    ignoreOptOuts: input.flag('ignoreOptouts'),
    optOutTenant: knownTenant(input.string('tenant'), ctx),
    prices: input.string('prices'),
    budget: budgetText === undefined ? undefined : { ...parseBudget(budgetText), text: budgetText },
  };
}

/**
 * The tenant the send is for when it is known without asking (--tenant, SVC_TENANT, the profile's
 * default): every-number opt-outs are kept per tenant, and a send for no known tenant honours all of them.
 */
function knownTenant(flag: string | undefined, ctx: Context): string | undefined {
  const tenant = ctx.settings({ tenant: flag }).tenant;
  return tenant ? requireGuid(tenant, tenantSourceLabel(ctx, flag)) : undefined;
}
