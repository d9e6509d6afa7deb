import type { CommandInput } from '../../spec.js';
import type { Context } from '../../../context.js';
import { ApiError, UsageError } from '../../../errors.js';
import { submitNumberOrder, type ProvisionRequest, type UnprovisionRequest } from '../../../api/numbers.js';
import { orderIdOf } from './order-status.js';
import { finishOrder, watchOptions, watchOrder, type WatchOptions } from '../watch.js';
import { writeOrder } from './order-view.js';

// Submitting a provision or unprovision order, then either showing the order or, with --wait,
// following it to its end.

export interface WaitSettings {
  wait: boolean;
  watch: WatchOptions;
}

export function waitSettings(input: CommandInput<'interval' | 'waitTimeout', 'wait'>): WaitSettings {
  const wait = input.flag('wait');
  for (const [name, flag] of [['interval', '--interval'], ['waitTimeout', '--wait-timeout']] as const) {
    if (!wait && input.has(name)) throw new UsageError(`${flag} only applies with --wait`);
  }
  return { wait, watch: watchOptions(input, 'waitTimeout') };
}

export async function submitAndReport(ctx: Context, request: ProvisionRequest | UnprovisionRequest, settings: WaitSettings): Promise<number> {
  const api = await ctx.api();
  const order = await submitNumberOrder(api, request);
  if (order === undefined) {
    throw new ApiError(`The service accepted the ${request.action.toLowerCase()} request but its answer had no order in it`);
  }
  const orderId = orderIdOf(order);
  if (!settings.wait) {
    await writeOrder(ctx, order);
    if (orderId !== undefined && ctx.globals.output === 'table' && ctx.io.stderrIsTTY) {
      ctx.io.stderr.write(`Follow it with: svc order watch ${orderId}\n`);
    }
    return 0;
  }
  if (orderId === undefined) {
    await writeOrder(ctx, order);
    throw new ApiError('The answer has no orderId, so the order cannot be followed (--wait)');
  }
  const ended = await watchOrder(ctx, api, orderId, settings.watch, order);
  // A number: the wait was stopped (Ctrl-C), and watchOrder said where the order stands.
  return typeof ended === 'number' ? ended : finishOrder(ctx, orderId, ended);
}
