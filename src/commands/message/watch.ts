import type { InputFor } from '../spec.js';
import type { messageCommands } from './index.js';
import type { Context } from '../../context.js';
import { CliError, ExitCode } from '../../errors.js';
import { getMessage, messageOutcome, type Message } from '../../api/messages.js';
import { firstInterval, pollUntil, PollTimeoutError } from '../../poll/poll.js';
import { writeObject } from '../../output/render.js';
import { requireMessageId } from './get.js';
import { startSpinner } from '../../output/spinner.js';

export const DEFAULT_WATCH_TIMEOUT_S = 600;

interface Spinner {
  text: string;
  start(): Spinner;
  stop(): Spinner;
}

export async function run(input: InputFor<typeof messageCommands, 'message watch'>, ctx: Context): Promise<number> {
  const id = requireMessageId(input.arg(0));
  const intervalSeconds = input.number('interval', '--interval', { min: 0.001 });
  const timeoutSeconds = input.number('timeout', '--timeout', { min: 0.001 });
  const api = await ctx.api();
  const started = ctx.clock.monotonic();

  let spinner: Spinner | undefined;
  if (ctx.io.stderrIsTTY) {
    spinner = await startSpinner(ctx, `Message ${id}: reading`);
  }
  const describe = (message: Message): string => `Message ${id}: ${String(message.status ?? 'no status')}`;

  let final: Message;
  try {
    final = await pollUntil<Message>({
      fetch: (deadline) => getMessage(api, id, deadline),
      isDone: (message) => messageOutcome(message) !== 'pending',
      fingerprint: (message) => String(message.status ?? ''),
      onChange: (message) => {
        if (spinner) spinner.text = describe(message);
        else ctx.io.stderr.write(`${describe(message)}\n`);
      },
      firstIntervalMs: firstInterval(intervalSeconds, ctx.env),
      timeoutMs: (timeoutSeconds ?? DEFAULT_WATCH_TIMEOUT_S) * 1000,
      what: `message ${id} to be delivered or failed`,
      clock: ctx.clock,
      signal: ctx.signal,
    });
  } catch (error) {
    spinner?.stop();
    if (error instanceof PollTimeoutError && typeof error.last === 'object' && error.last !== null) {
      await writeObject(ctx, error.last, { title: `Message ${id}` });
    }
    throw error;
  }
  spinner?.stop();
  await writeObject(ctx, final, { title: `Message ${id}` });
  const seconds = ((ctx.clock.monotonic() - started) / 1000).toFixed(1);
  if (messageOutcome(final) === 'delivered') {
    if (ctx.globals.output === 'table') ctx.io.stderr.write(`Delivered (${seconds} s).\n`);
    return ExitCode.Ok;
  }
  const reason = [final.errorCode, final.errorMessage].filter((v) => typeof v === 'string' && v !== '').join(': ');
  // Thrown rather than written, so that --json gets the contract's {"error": ...} on stderr.
  throw new CliError(`Message ${id} ${String(final.status)}${reason ? `: ${reason}` : ''}`, ExitCode.Failure, {
    ...(typeof final.errorCode === 'string' && final.errorCode !== '' ? { errorCode: final.errorCode } : {}),
  });
}
