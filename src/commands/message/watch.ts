import type { InputFor } from '../spec.js';
import type { messageCommands } from './index.js';
import type { Context } from '../../context.js';
import { CliError, ExitCode, InterruptedError } from '../../errors.js';
import { getMessage, messageOutcome, type Message } from '../../api/messages.js';
import { firstInterval, pollUntil, PollTimeoutError, QUICK_CAP_MS } from '../../poll/poll.js';
import { writeObject } from '../../output/render.js';
import { visibleLine } from '../../output/terminal.js';
import { formatElapsed } from '../../output/time.js';
import { requireMessageId } from './get.js';
import { isOutage, startWatchDisplay, type WatchDisplay } from '../watch-display.js';

// `svc message watch`: reads a message until it is delivered (exit 0) or failed (exit 1), or the
// timeout (exit 5). What a person sees meanwhile, and on Ctrl-C, is ../watch-display.ts.

export const DEFAULT_WATCH_TIMEOUT_S = 600;
/** Consecutive failed reads tolerated (each already retried by the HTTP layer). */
const TOLERATED_FAILURES = 5;

const statusOf = (message: Message): string => visibleLine(String(message.status ?? 'no status'));

function messageDisplay(ctx: Context, id: string, intervalSeconds: number | undefined): Promise<WatchDisplay<Message>> {
  const name = `Message ${id}`;
  const interval = intervalSeconds === undefined ? [] : ['--interval', String(intervalSeconds)];
  return startWatchDisplay<Message>(ctx, {
    name,
    status: statusOf,
    details: () => [],
    changes: (_previous, next) => [`${name}: ${statusOf(next)}`],
    standing: statusOf,
    follow: ['message', 'watch', id, ...interval],
  });
}

export async function run(input: InputFor<typeof messageCommands, 'message watch'>, ctx: Context): Promise<number> {
  const id = requireMessageId(input.arg(0));
  const intervalSeconds = input.number('interval', '--interval', { min: 0.001 });
  const timeoutSeconds = input.number('timeout', '--timeout', { min: 0.001 });
  const api = await ctx.api();
  const started = ctx.clock.monotonic();
  const display = await messageDisplay(ctx, id, intervalSeconds);

  let final: Message;
  try {
    final = await pollUntil<Message>({
      fetch: (deadline) => display.read(() => getMessage(api, id, deadline)),
      isDone: (message) => messageOutcome(message) !== 'pending',
      fingerprint: (message) => String(message.status ?? ''),
      onChange: (message, previous) => display.changed(message, previous),
      firstIntervalMs: firstInterval(intervalSeconds, ctx.env),
      timeoutMs: (timeoutSeconds ?? DEFAULT_WATCH_TIMEOUT_S) * 1000,
      what: `message ${id} to be delivered or failed`,
      clock: ctx.clock,
      signal: ctx.signal,
      tolerateError: (error, failures) => isOutage(error) && failures <= TOLERATED_FAILURES,
      // A person watching sees a change within 2 s for as long as they watch; a script waiting
      // (nobody at the terminal) lets the pace grow after the first two minutes.
      ...(ctx.io.stderrIsTTY ? { maxIntervalMs: QUICK_CAP_MS } : {}),
    });
  } catch (error) {
    const last = error instanceof PollTimeoutError ? (error.last as Message | undefined) : display.last();
    if (error instanceof InterruptedError && ctx.signal.aborted) {
      // A script still gets the message as last seen, as on a timeout.
      if (last !== undefined && ctx.globals.output !== 'table') await writeObject(ctx, last, { title: `Message ${id}` });
      return display.interrupted();
    }
    display.stop();
    if (error instanceof PollTimeoutError && typeof last === 'object' && last !== null) {
      await writeObject(ctx, last, { title: `Message ${id}` });
    }
    throw error;
  }
  const waited = formatElapsed(ctx.clock.monotonic() - started);
  const delivered = messageOutcome(final) === 'delivered';
  display.finish(delivered ? 'good' : 'bad', `Message ${id} ${statusOf(final)} (${waited})`);
  await writeObject(ctx, final, { title: `Message ${id}` });
  if (delivered) {
    if (ctx.globals.output === 'table' && !ctx.io.stderrIsTTY) ctx.io.stderr.write(`Delivered (${waited}).\n`);
    return ExitCode.Ok;
  }
  const reason = [final.errorCode, final.errorMessage].filter((v) => typeof v === 'string' && v !== '').join(': ');
  // Thrown rather than written, so that --json gets the contract's {"error": ...} on stderr.
  throw new CliError(`Message ${id} ${String(final.status)}${reason ? `: ${reason}` : ''}`, ExitCode.Failure, {
    ...(typeof final.errorCode === 'string' && final.errorCode !== '' ? { errorCode: final.errorCode } : {}),
  });
}
