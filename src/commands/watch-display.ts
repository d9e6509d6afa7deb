import type { Context } from '../context.js';
import { AuthError, CliError, InterruptedError, NetworkError, NotFoundError, UsageError, stopExitCode } from '../errors.js';
import { startSpinner } from '../output/spinner.js';
import { formatElapsed } from '../output/time.js';
import { commandLine } from '../output/command-line.js';
import { startTicker, type Ticker } from '../poll/ticker.js';

// What a person sees while `svc order watch`, `number provision --wait` or `svc message watch`
// waits. On a terminal: a spinner with the status and a count of the time waited that moves every
// second, not only when a read comes back. Piped: one line per change. In both: a warning when the
// service stops answering (a read failed, or has hung for STALL_MS) and a line when it answers
// again, so that a wait never looks stalled without a word. On Ctrl-C: where the thing stands and
// the exact command that follows it again, instead of a bare "Interrupted".

/** How long a read may go unanswered before the wait says that the service is not answering. */
export const STALL_MS = 5_000;

/** What a watch shows of the thing it follows (an order, a message). */
export interface WatchSubject<T> {
  /** "Order 42", "Message 0b0a…": the start of every line about it. */
  name: string;
  /** Its status, one word or a few. */
  status(value: T): string;
  /** Lines under the spinner's first line, on a terminal (each number of an order). */
  details(value: T): string[];
  /** Piped: one plain line per change since the previous read. */
  changes(previous: T | undefined, next: T): string[];
  /** Where it stands, for the line printed on Ctrl-C ("Processing; 1 of 2 numbers Active"). */
  standing(value: T): string;
  /** The command that follows it again, as words after `svc` (["order", "watch", "42"]). */
  follow: string[];
}

export interface WatchDisplay<T> {
  /** One read of the thing, told as it goes: a read that fails or hangs is said. */
  read<V extends T>(fetch: () => Promise<V>): Promise<V>;
  /** A read whose value differs from the one before. */
  changed(value: T, previous: T | undefined): void;
  /** The wait ended: the spinner gives way to the outcome (nothing is printed when piped). */
  finish(outcome: 'good' | 'bad', message: string): void;
  /** The wait ended some other way (a timeout, an error): the spinner goes. */
  stop(): void;
  /**
   * Ctrl-C (or SIGTERM, SIGHUP): where it stands and the command to follow it again. On stderr,
   * with the stop's exit code (130, 143, 129); with --json, as the error document's message and
   * hint (thrown).
   */
  interrupted(): number;
  /** The last value read, if any. */
  last(): T | undefined;
}

/**
 * A failed read that says the service is unwell (no connection, a 5xx, a 429) rather than that
 * the question was wrong (a 404, refused credentials): the first a wait rides out, the second ends it.
 */
export function isOutage(error: unknown): boolean {
  if (error instanceof AuthError || error instanceof NotFoundError || error instanceof UsageError) return false;
  if (error instanceof NetworkError) return true;
  return error instanceof CliError && (error.status === null || error.status >= 500 || error.status === 429);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Whether the service answers, told once when it stops and once when it is back. */
class Availability {
  /** When the read in flight began, if one is. */
  private readingSince: number | undefined;
  /** When the first read that went unanswered began: the silence is counted from it. */
  private silentSince = 0;
  private warned = false;

  constructor(
    private readonly ctx: Context,
    private readonly name: string,
    private readonly say: (kind: 'warning' | 'note', line: string) => void,
  ) {}

  private now(): number {
    return this.ctx.clock.monotonic();
  }

  readStarted(): void {
    this.readingSince = this.now();
    if (!this.warned) this.silentSince = this.readingSince;
  }

  answered(): void {
    if (this.warned) this.say('note', `${this.name}: the service answers again (no answer for ${formatElapsed(this.now() - this.silentSince)})`);
    this.warned = false;
    this.readingSince = undefined;
  }

  failed(error: unknown): void {
    this.readingSince = undefined;
    if (this.warned) return;
    this.warned = true;
    this.say('warning', `${this.name}: the service did not answer (${errorText(error)}); still trying`);
  }

  /** Called every second: a read that has hung for STALL_MS is said once. */
  check(): void {
    if (this.warned || this.readingSince === undefined) return;
    if (this.now() - this.readingSince < STALL_MS) return;
    this.warned = true;
    this.say('warning', `${this.name}: no answer from the service for ${formatElapsed(this.now() - this.readingSince)}; still waiting`);
  }

  /** "no answer from the service for 12 s" while it is silent past the warning, else nothing. */
  silence(): string | undefined {
    return this.warned ? `no answer from the service for ${formatElapsed(this.now() - this.silentSince)}` : undefined;
  }
}

/** The spinner on a terminal: status, time waited and silence on its first line, details below. */
async function spinnerView<T>(ctx: Context, subject: WatchSubject<T>, started: number, availability: () => Availability) {
  const spinner = await startSpinner(ctx, `${subject.name}: reading (0 s)`);
  let shown: T | undefined;
  const text = (): string => {
    const status = shown === undefined ? 'reading' : subject.status(shown);
    const silence = availability().silence();
    // The silence on a line of its own: the first line stays short enough for a narrow terminal.
    return [
      `${subject.name}: ${status} (${formatElapsed(ctx.clock.monotonic() - started)})`,
      ...(silence === undefined ? [] : [`  ${silence}`]),
      ...(shown === undefined ? [] : subject.details(shown)),
    ].join('\n');
  };
  return {
    spinner,
    redraw(value?: T): void {
      if (value !== undefined) shown = value;
      spinner.text = text();
      // Shown at once: a change must not wait for the next animation frame.
      spinner.render();
    },
    /** Lines of their own above the spinner, which is drawn again below them. */
    above(write: () => void): void {
      spinner.clear();
      write();
      spinner.text = text();
      spinner.render();
    },
  };
}

export async function startWatchDisplay<T>(ctx: Context, subject: WatchSubject<T>): Promise<WatchDisplay<T>> {
  const started = ctx.clock.monotonic();
  let last: T | undefined;
  const view = ctx.io.stderrIsTTY ? await spinnerView(ctx, subject, started, () => availability) : undefined;
  const write = (kind: 'warning' | 'note', line: string): void => {
    if (kind === 'warning') ctx.warn(line);
    else ctx.io.stderr.write(`${line}\n`);
  };
  const availability = new Availability(ctx, subject.name, (kind, line) => (view === undefined ? write(kind, line) : view.above(() => write(kind, line))));
  const ticker: Ticker = startTicker(ctx.clock, started, () => {
    availability.check();
    view?.redraw();
  });
  const end = (): void => {
    ticker.stop();
  };
  return {
    async read(fetch) {
      availability.readStarted();
      try {
        const value = await fetch();
        availability.answered();
        last = value;
        view?.redraw(value);
        return value;
      } catch (error) {
        if (!ctx.signal.aborted && isOutage(error)) availability.failed(error);
        throw error;
      }
    },
    changed(value, previous) {
      last = value;
      if (view) view.redraw(value);
      else for (const line of subject.changes(previous, value)) ctx.io.stderr.write(`${line}\n`);
    },
    finish(outcome, message) {
      end();
      if (view === undefined) return;
      if (outcome === 'good') view.spinner.succeed(message);
      else view.spinner.fail(message);
    },
    stop() {
      end();
      view?.spinner.stop();
    },
    interrupted() {
      end();
      view?.spinner.stop();
      const waited = formatElapsed(ctx.clock.monotonic() - started);
      const where = last === undefined ? `${subject.name}: not read yet` : `${subject.name}: ${subject.standing(last)}`;
      const message = `Stopped watching after ${waited}. ${where}`;
      const again = `Follow it again: ${commandLine(ctx.globals, subject.follow)}`;
      if (ctx.globals.output !== 'table') {
        const reason = ctx.signal.reason instanceof InterruptedError ? ctx.signal.reason.signal : 'SIGINT';
        const error = new InterruptedError(message, reason);
        error.hints.push(again);
        throw error;
      }
      ctx.io.stderr.write(`${message}\n${again}\n`);
      return stopExitCode(ctx.signal);
    },
    last: () => last,
  };
}
