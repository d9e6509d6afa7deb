import type { InputFor } from '../spec.js';
import type { orderCommands } from './index.js';
import type { Context } from '../../context.js';
import { getOrder } from '../../api/orders.js';
import { requireOrderId } from './shared/order-status.js';
import { writeOrder } from './shared/order-view.js';

export async function run(input: InputFor<typeof orderCommands, 'order get'>, ctx: Context): Promise<number> {
  const orderId = requireOrderId(input.arg(0));
  await writeOrder(ctx, await getOrder(await ctx.api(), orderId));
  return 0;
}
