import type { Context } from '../../../context.js';
import { recordConsentChanges } from '../../../optouts/change.js';
import type { ConsentChange } from '../../../optouts/log.js';
import type { CommandInput } from '../../spec.js';
import { numbersFrom, reasonFrom, reportChanges } from './opt-out-changes.js';
import { actingUser, optOutsDir, sendingNumber, tenantOption } from './opt-out-list.js';

// `svc optouts add` and `remove` are one act in two directions: the people named, of one sending
// number or of every number (of one tenant with --tenant, else of all), recorded as changes made
// by hand, with the reason and who made them.

export async function recordByHand(op: ConsentChange['op'], input: CommandInput<'store' | 'number' | 'reason' | 'tenant'>, ctx: Context): Promise<number> {
  const numbers = numbersFrom(input.argList(0));
  const from = sendingNumber(input);
  const tenant = tenantOption(input);
  const reason = reasonFrom(input.string('reason'));
  const dir = optOutsDir(input, ctx);
  const at = new Date(ctx.clock.now()).toISOString();
  const by = actingUser();
  const changes: ConsentChange[] = numbers.map((number) => ({
    op,
    number,
    from,
    at,
    cause: 'hand',
    ...(tenant !== undefined ? { tenant } : {}),
    ...(reason !== undefined ? { reason } : {}),
    by,
  }));
  reportChanges(ctx, dir, recordConsentChanges(dir, changes));
  return 0;
}
