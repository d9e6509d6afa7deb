import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { triggerEvent } from '../../api/sandbox.js';
import type { InputFor } from '../spec.js';
import type { sandboxCommands } from './index.js';
import { sandboxOnly } from './shared/sandbox-only.js';
import { given, overridesFrom, reportTrigger } from './shared/trigger-overrides.js';

export async function run(input: InputFor<typeof sandboxCommands, 'sandbox trigger order-status'>, ctx: Context): Promise<number> {
  const order = input.string('order');
  if (order === undefined) throw new UsageError('--order is required: the id of one of your provisioning orders');
  if (!/^\d{1,15}$/.test(order.trim())) throw new UsageError(`--order must be an order id (a whole number), not "${order}"`);
  const set = overridesFrom(input, { status: { flag: '--status', value: given(input, 'status') } });
  const api = await ctx.api();
  const result = await sandboxOnly(api, 'svc sandbox trigger', () => triggerEvent(api, 'order-status', { orderId: Number(order.trim()), set }));
  await reportTrigger(ctx, result, 'Order status');
  return 0;
}
