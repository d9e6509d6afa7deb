import type { Context } from '../../context.js';
import { recordConsentChanges } from '../../optouts/change.js';
import type { ConsentChange } from '../../optouts/log.js';
import type { InputFor } from '../spec.js';
import type { optoutsCommands } from './index.js';
import { numbersFrom, reasonFrom, reportChanges } from './shared/opt-out-changes.js';
import { actingUser, optOutsDir, sendingNumber } from './shared/opt-out-list.js';

export async function run(input: InputFor<typeof optoutsCommands, 'optouts add'>, ctx: Context): Promise<number> {
  const numbers = numbersFrom(input.argList(0));
  const from = sendingNumber(input);
  const reason = reasonFrom(input.string('reason'));
  const dir = optOutsDir(input, ctx);
  const at = new Date(ctx.clock.now()).toISOString();
  const by = actingUser();
  const changes: ConsentChange[] = numbers.map((number) => ({ op: 'out', number, from, at, cause: 'hand', ...(reason !== undefined ? { reason } : {}), by }));
  reportChanges(ctx, dir, recordConsentChanges(dir, changes));
  return 0;
}
