import { startSpinner } from '../../output/spinner.js';
import type { Context } from '../../context.js';
import type { ApiClient } from '../../api/http.js';
import { getOrder } from '../../api/orders.js';
import { AuthError, CliError, NetworkError, NotFoundError, UsageError, WaitError } from '../../errors.js';
import { firstInterval, formatSeconds, PollTimeoutError, pollUntil } from '../../poll/poll.js';
import { describeOrderChanges, failureSummary, orderOutcome, orderStatus, spinnerText, requireOrderId, type Order } from './shared/order-status.js';
import type { InputFor, CommandInput } from '../spec.js';
import type { orderCommands } from './index.js';
import { writeOrderNumbers } from './shared/order-view.js';

// `svc order watch`: following an order to its end, also for `number provision|unprovision --wait`:
// polling that backs off (src/poll/poll.ts), a spinner on a terminal or one line per change
// when stderr is piped, and the exit code of the contract (5 for a failed or timed-out order).

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

interface Progress {
  update(order: Order, previous: Order | undefined): void;
  tick(order: Order | undefined): void;
  stop(outcome: 'completed' | 'failed' | 'stopped', message: string): void;
}

async function startProgress(ctx: Context, orderId: string): Promise<Progress> {
  const started = ctx.clock.monotonic();
  const elapsed = (): string => formatSeconds(ctx.clock.monotonic() - started);
  if (ctx.io.stderrIsTTY) {
    const spinner = await startSpinner(ctx, `Order ${orderId}: reading`);
    let last: Order | undefined;
    return {
      update(order) {
        last = order;
        spinner.text = spinnerText(orderId, order, elapsed());
        // Shown at once: a change must not wait for the next animation frame.
        spinner.render();
      },
      tick(order) {
        const shown = order ?? last;
        if (shown !== undefined) spinner.text = spinnerText(orderId, shown, elapsed());
      },
      stop(outcome, message) {
        if (outcome === 'completed') spinner.succeed(message);
        else if (outcome === 'failed') spinner.fail(message);
        else spinner.stop();
      },
    };
  }
  return {
    update(order, previous) {
      for (const line of describeOrderChanges(orderId, previous, order)) ctx.io.stderr.write(`${line}\n`);
    },
    tick() {},
    stop() {},
  };
}

/** Errors that a long wait rides out: the server or the network being briefly unwell. */
function isTransient(error: unknown): boolean {
  if (error instanceof AuthError || error instanceof NotFoundError || error instanceof UsageError) return false;
  if (error instanceof NetworkError) return true;
  return error instanceof CliError && (error.status === null || error.status >= 500 || error.status === 429);
}

/**
 * Polls the order until it ends. Returns it as it ended; throws PollTimeoutError (exit 5, with the
 * last order read) on --timeout and InterruptedError (exit 130) on Ctrl-C.
 */
export async function watchOrder(ctx: Context, api: ApiClient, orderId: string, options: WatchOptions, initial?: Order): Promise<Order> {
  const progress = await startProgress(ctx, orderId);
  let shown: Order | undefined;
  const show = (order: Order): void => {
    progress.update(order, shown);
    shown = order;
  };
  try {
    if (initial !== undefined) {
      show(initial);
      if (orderOutcome(initial) !== 'pending') {
        progress.stop(orderOutcome(initial) === 'completed' ? 'completed' : 'failed', `Order ${orderId} ${orderStatus(initial)}`);
        return initial;
      }
    }
    const first = firstInterval(options.intervalSeconds, ctx.env);
    const order = await pollUntil<Order>({
      fetch: async (deadline) => {
        const value = await getOrder(api, orderId, deadline);
        progress.tick(value);
        return value;
      },
      isDone: (value) => orderOutcome(value) !== 'pending',
      onChange: (value) => show(value),
      fingerprint: (value) => JSON.stringify([orderStatus(value), value['phoneNumbers'], value['completionDate']]),
      // A read right after the submit would only see Pending again.
      initialDelay: initial !== undefined,
      firstIntervalMs: first,
      timeoutMs: options.timeoutSeconds === undefined ? undefined : Math.round(options.timeoutSeconds * 1000),
      what: `order ${orderId}`,
      clock: ctx.clock,
      signal: ctx.signal,
      tolerateError: (error, failures) => {
        if (!isTransient(error) || failures > TOLERATED_FAILURES) return false;
        if (!ctx.io.stderrIsTTY) ctx.warn(`reading order ${orderId} failed (${error instanceof Error ? error.message : String(error)}); still waiting`);
        return true;
      },
    });
    const outcome = orderOutcome(order);
    progress.stop(outcome === 'completed' ? 'completed' : 'failed', `Order ${orderId} ${orderStatus(order)}`);
    return order;
  } catch (error) {
    progress.stop('stopped', '');
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
  return finishOrder(ctx, orderId, order);
}
