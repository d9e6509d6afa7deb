import type { Clock } from '../clock.js';
import { InterruptedError, WaitError } from '../errors.js';

// Polling with backoff for `order watch`, `number provision --wait` and `message watch`: start at
// the first interval, grow by a factor towards a ceiling, so that a five-minute P2P order costs a
// couple of dozen requests, not hundreds.

export interface PollOptions<T> {
  /**
   * One read. With a timeout, `deadline` aborts when the wait's time is up (at the earliest
   * FETCH_GRACE_MS after the read started), so that a read that hangs cannot outlast --timeout.
   */
  fetch: (deadline?: AbortSignal) => Promise<T>;
  isDone: (value: T) => boolean;
  /** Called with each value whose fingerprint differs from the previous one. */
  onChange?: (value: T, previous: T | undefined) => void;
  /** What counts as a change (default: the JSON of the value). */
  fingerprint?: (value: T) => string;
  firstIntervalMs: number;
  maxIntervalMs?: number;
  factor?: number;
  /** Overall limit, on the clock; undefined waits for ever. */
  timeoutMs?: number | undefined;
  /** What the timeout message calls the thing waited for. */
  what: string;
  /**
   * A failed fetch that should not end the wait (a 503 during a long order): return true to keep
   * polling at the current pace. `failures` counts consecutive failures. Default: every failure ends it.
   */
  tolerateError?: (error: unknown, failures: number) => boolean;
  /** Wait one interval before the first fetch (the caller has just read the value itself). */
  initialDelay?: boolean;
  clock: Clock;
  signal: AbortSignal;
}

export const DEFAULT_FIRST_INTERVAL_MS = 2_000;
export const DEFAULT_MAX_INTERVAL_MS = 30_000;
export const DEFAULT_FACTOR = 1.5;
/** The least time a read gets before the deadline cuts it off. */
export const FETCH_GRACE_MS = 1_000;

/** The first interval: the flag (seconds) if given, else SVC_ORDER_POLL_MS, else the default. */
export function firstInterval(flagSeconds: number | undefined, env: Readonly<Record<string, string | undefined>>): number {
  if (flagSeconds !== undefined) return Math.max(1, Math.round(flagSeconds * 1000));
  const fromEnv = Number(env['SVC_ORDER_POLL_MS']);
  if (env['SVC_ORDER_POLL_MS'] !== undefined && Number.isFinite(fromEnv) && fromEnv > 0) return fromEnv;
  return DEFAULT_FIRST_INTERVAL_MS;
}

/** The waits a poll makes, in order, with no change seen: for tests and for explaining the cost. */
export function backoffSchedule(first: number, max: number, factor: number, count: number): number[] {
  const waits: number[] = [];
  let interval = first;
  for (let i = 0; i < count; i++) {
    waits.push(Math.round(interval));
    interval = Math.min(Math.max(max, first), interval * factor);
  }
  return waits;
}

export class PollTimeoutError extends WaitError {
  constructor(
    message: string,
    readonly last: unknown,
  ) {
    super(message);
  }
}

export async function pollUntil<T>(options: PollOptions<T>): Promise<T> {
  const { clock, signal } = options;
  const max = Math.max(options.maxIntervalMs ?? DEFAULT_MAX_INTERVAL_MS, options.firstIntervalMs);
  const factor = options.factor ?? DEFAULT_FACTOR;
  const fingerprint = options.fingerprint ?? ((value: T) => JSON.stringify(value));
  const deadline = options.timeoutMs === undefined ? Infinity : clock.monotonic() + options.timeoutMs;
  let interval = options.firstIntervalMs;
  let previous: T | undefined;
  let previousPrint: string | undefined;
  let failures = 0;
  const pause = async (ms: number): Promise<void> => {
    try {
      await clock.sleep(ms, signal);
    } catch (error) {
      // Whatever the clock throws on Ctrl-C, the command ends as interrupted (exit 130).
      if (signal.aborted) throw new InterruptedError();
      throw error;
    }
  };
  const timedOut = (): PollTimeoutError =>
    new PollTimeoutError(`Timed out waiting for ${options.what} after ${formatSeconds(options.timeoutMs ?? 0)}`, previous);
  if (options.initialDelay) {
    await pause(Math.min(interval, Math.max(0, deadline - clock.monotonic())));
    interval = Math.min(max, interval * factor);
  }
  for (;;) {
    if (signal.aborted) throw new InterruptedError();
    let fetched: { value: T } | undefined;
    const cutOff = deadline === Infinity ? undefined : clock.timeout(Math.max(deadline - clock.monotonic(), FETCH_GRACE_MS));
    try {
      fetched = { value: await options.fetch(cutOff) };
      failures = 0;
    } catch (error) {
      if (signal.aborted) throw new InterruptedError();
      if (cutOff?.aborted) throw timedOut();
      failures++;
      if (!options.tolerateError?.(error, failures)) throw error;
    }
    if (fetched !== undefined) {
      const { value } = fetched;
      const print = fingerprint(value);
      if (print !== previousPrint) {
        options.onChange?.(value, previous);
        previous = value;
        previousPrint = print;
      }
      if (options.isDone(value)) return value;
    }
    const remaining = deadline - clock.monotonic();
    if (remaining <= 0) throw timedOut();
    await pause(Math.min(interval, remaining));
    interval = Math.min(max, interval * factor);
  }
}

export function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return seconds >= 120 ? `${Math.round(seconds / 60)} min` : `${Number(seconds.toFixed(1))} s`;
}
