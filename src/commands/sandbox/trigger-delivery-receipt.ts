import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { triggerEvent } from '../../api/sandbox.js';
import { requireGuid } from '../../input/checks.js';
import type { InputFor } from '../spec.js';
import type { sandboxCommands } from './index.js';
import { sandboxOnly } from './shared/sandbox-only.js';
import { given, overridesFrom, reportTrigger } from './shared/trigger-overrides.js';

export async function run(input: InputFor<typeof sandboxCommands, 'sandbox trigger delivery-receipt'>, ctx: Context): Promise<number> {
  const message = input.string('message');
  if (message === undefined) throw new UsageError('--message is required: the id of one of your messages (svc send prints it)');
  const messageId = requireGuid(message, '--message');
  const set = overridesFrom(input, {
    status: { flag: '--status', value: given(input, 'status') },
    statusReason: { flag: '--status-reason', value: given(input, 'statusReason') },
    errorCode: { flag: '--error-code', value: given(input, 'errorCode') },
    errorMessage: { flag: '--error-message', value: given(input, 'errorMessage') },
  });
  const api = await ctx.api();
  const result = await sandboxOnly(api, 'svc sandbox trigger', () => triggerEvent(api, 'delivery-receipt', { messageId, set }));
  await reportTrigger(ctx, result, 'Delivery receipt');
  return 0;
}
