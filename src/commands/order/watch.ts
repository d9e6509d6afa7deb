import type { CommandInput } from '../spec.js';
import type { Context } from '../../context.js';
import { finishOrder, followOptions, followOrder, requireOrderId } from './follow.js';

export async function run(input: CommandInput, ctx: Context): Promise<number> {
  const orderId = requireOrderId(input.arg(0));
  const options = followOptions(input, 'timeout');
  const api = await ctx.api();
  const order = await followOrder(ctx, api, orderId, options);
  return finishOrder(ctx, orderId, order);
}
