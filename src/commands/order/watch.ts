import type { Context } from '../../context.js';
import type { ApiClient } from '../../api/http.js';
import { getOrder } from '../../api/orders.js';
import { InterruptedError, WaitError } from '../../errors.js';
import { firstInterval, PollTimeoutError, pollUntil, QUICK_CAP_MS } from '../../poll/poll.js';
import { describeOrderChanges, failureSummary, orderDetails, orderOutcome, orderStanding, orderStatus, requireOrderId, type Order } from './shared/order-status.js';
import type { InputFor, CommandInput } from '../spec.js';
import type { orderCommands } from './index.js';
import { writeOrderNumbers } from './shared/order-view.js';
import { isOutage, startWatchDisplay, type WatchDisplay } from '../watch-display.js';
import { visibleLine } from '../../output/terminal.js';
import { formatElapsed } from '../../output/time.js';

// `svc order watch`: following an order to its end, also for `number provision|unprovision --wait`:
// polling that backs off (src/poll/poll.ts), what a person sees meanwhile (../watch-display.ts),
// and the exit code of the contract (5 for a failed or timed-out order, 130 on Ctrl-C).

export interface WatchOptions {
  /** First poll interval in seconds (--interval); SVC_ORDER_POLL_MS or the default otherwise. */
  intervalSeconds: number | undefined;
  /** Give up after this many seconds (exit 5); undefined waits until the order ends or Ctrl-C. */
  timeoutSeconds: number | undefined;
}

/** Consecutive failed reads tolerated during a wait (each already retried by the HTTP layer). */
const TOLERATED_FAILURES = 5;

export function watchOptions<T extends 'timeout' | 'waitTimeout'>(input: CommandInput<'interval' | T>, timeoutFlag: T): WatchOptions {
  const flagName = timeoutFlag === 'timeout' ? '--timeout' : '--wait-timeout';
  return {
    intervalSeconds: input.number('interval', '--interval', { min: 0.001, max: 3600 }),
    timeoutSeconds: input.number(timeoutFlag, flagName, { min: 0.001 }),
  };
}

function orderDisplay(ctx: Context, orderId: string, options: WatchOptions): Promise<WatchDisplay<Order>> {
  // Following it again starts a new wait: the interval is kept, a timeout is the user's to give again.
  const interval = options.intervalSeconds === undefined ? [] : ['--interval', String(options.intervalSeconds)];
  return startWatchDisplay<Order>(ctx, {
    name: `Order ${orderId}`,
    status: (order) => visibleLine(orderStatus(order)),
    details: orderDetails,
    changes: (previous, next) => describeOrderChanges(orderId, previous, next),
    standing: orderStanding,
    follow: ['order', 'watch', orderId, ...interval],
  });
}

/**
 * Polls the order until it ends. Returns it as it ended; throws PollTimeoutError (exit 5, with the
 * last order read) on --timeout. On Ctrl-C it says where the order stands and how to follow it
 * again, and returns the stop's exit code (130, 143, 129) instead of an order.
 */
export async function watchOrder(ctx: Context, api: ApiClient, orderId: string, options: WatchOptions, initial?: Order): Promise<Order | number> {
  const display = await orderDisplay(ctx, orderId, options);
  const started = ctx.clock.monotonic();
  const ended = (order: Order): Order => {
    const waited = formatElapsed(ctx.clock.monotonic() - started);
    display.finish(orderOutcome(order) === 'completed' ? 'good' : 'bad', `Order ${orderId} ${visibleLine(orderStatus(order))} (${waited})`);
    return order;
  };
  try {
    if (initial !== undefined) {
      display.changed(initial, undefined);
      if (orderOutcome(initial) !== 'pending') return ended(initial);
    }
    const order = await pollUntil<Order>({
      fetch: (deadline) => display.read(() => getOrder(api, orderId, deadline)),
      isDone: (value) => orderOutcome(value) !== 'pending',
      onChange: (value, previous) => display.changed(value, previous ?? initial),
      fingerprint: (value) => JSON.stringify([orderStatus(value), value['phoneNumbers'], value['completionDate']]),
      // A read right after the submit would only see Pending again.
      initialDelay: initial !== undefined,
      firstIntervalMs: firstInterval(options.intervalSeconds, ctx.env),
      timeoutMs: options.timeoutSeconds === undefined ? undefined : Math.round(options.timeoutSeconds * 1000),
      what: `order ${orderId}`,
      clock: ctx.clock,
      signal: ctx.signal,
      tolerateError: (error, failures) => isOutage(error) && failures <= TOLERATED_FAILURES,
      // A person watching sees a change within 2 s for as long as they watch; a script waiting
      // (nobody at the terminal) lets the pace grow after the first two minutes.
      ...(ctx.io.stderrIsTTY ? { maxIntervalMs: QUICK_CAP_MS } : {}),
    });
    return ended(order);
  } catch (error) {
    if (error instanceof InterruptedError && ctx.signal.aborted) {
      const last = display.last();
      // A script still gets the order as last seen, as on a timeout.
      if (last !== undefined && ctx.globals.output !== 'table') await writeOrderNumbers(ctx, last);
      return display.interrupted();
    }
    display.stop();
    if (error instanceof PollTimeoutError && typeof error.last === 'object' && error.last !== null) {
      // The order as last seen still goes to stdout, so that a script knows how far it got.
      await writeOrderNumbers(ctx, error.last as Order);
    }
    throw error;
  }
}

/** Prints the order as it ended and turns a failed order into exit 5. */
export async function finishOrder(ctx: Context, orderId: string, order: Order): Promise<number> {
  await writeOrderNumbers(ctx, order);
  if (orderOutcome(order) === 'failed') throw new WaitError(failureSummary(orderId, order));
  return 0;
}

export async function run(input: InputFor<typeof orderCommands, 'order watch'>, ctx: Context): Promise<number> {
  const orderId = requireOrderId(input.arg(0));
  const options = watchOptions(input, 'timeout');
  const api = await ctx.api();
  const order = await watchOrder(ctx, api, orderId, options);
  return typeof order === 'number' ? order : finishOrder(ctx, orderId, order);
}
