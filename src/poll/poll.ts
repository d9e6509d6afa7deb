import type { Clock } from '../clock.js';
import { InterruptedError, WaitError } from '../errors.js';

// Polling with backoff for `order watch`, `number provision --wait` and `message watch`: start at
// the first interval and grow by a factor, but no further than QUICK_CAP_MS while the wait is
// young, so that a change is seen within 2 s (most orders and deliveries end within a minute or
// two, and a person is watching them); past QUICK_PHASE_MS the waits grow towards the ceiling, so
// that an order that takes an hour costs a couple of hundred requests, not thousands.

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
  /** The longest wait while the poll is younger than QUICK_PHASE_MS (never below the first interval). */
  quickCapMs?: number;
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
/** While the wait is young, a change is seen within this long. */
export const QUICK_CAP_MS = 2_000;
/** How long the wait counts as young. */
export const QUICK_PHASE_MS = 120_000;
/** The least time a read gets before the deadline cuts it off. */
export const FETCH_GRACE_MS = 1_000;

/** The first interval: the flag (seconds) if given, else SVC_ORDER_POLL_MS, else the default. */
export function firstInterval(flagSeconds: number | undefined, env: Readonly<Record<string, string | undefined>>): number {
  if (flagSeconds !== undefined) return Math.max(1, Math.round(flagSeconds * 1000));
  const fromEnv = Number(env['SVC_ORDER_POLL_MS']);
  if (env['SVC_ORDER_POLL_MS'] !== undefined && Number.isFinite(fromEnv) && fromEnv > 0) return fromEnv;
  return DEFAULT_FIRST_INTERVAL_MS;
}

/**
 * The next wait: the last one grown by the factor, capped by the ceiling, and by the quick cap
 * while the poll is younger than the quick phase.
 */
export function nextInterval(last: number, elapsedMs: number, limits: { first: number; max: number; factor: number; quickCap: number }): number {
  const ceiling = Math.max(limits.max, limits.first);
  const cap = elapsedMs < QUICK_PHASE_MS ? Math.min(ceiling, Math.max(limits.quickCap, limits.first)) : ceiling;
  return Math.min(cap, last * limits.factor);
}

/** The waits a poll makes, in order, with no change seen and reads taking no time: for tests and for explaining the cost. */
export function backoffSchedule(first: number, max: number, factor: number, count: number, quickCap = QUICK_CAP_MS): number[] {
  const waits: number[] = [];
  let interval = first;
  let elapsed = 0;
  for (let i = 0; i < count; i++) {
    waits.push(Math.round(interval));
    elapsed += interval;
    interval = nextInterval(interval, elapsed, { first, max, factor, quickCap });
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
  const limits = {
    first: options.firstIntervalMs,
    max: options.maxIntervalMs ?? DEFAULT_MAX_INTERVAL_MS,
    factor: options.factor ?? DEFAULT_FACTOR,
    quickCap: options.quickCapMs ?? QUICK_CAP_MS,
  };
  const started = clock.monotonic();
  const grow = (last: number): number => nextInterval(last, clock.monotonic() - started, limits);
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
    interval = grow(interval);
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
    interval = grow(interval);
  }
}

export function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return seconds >= 120 ? `${Math.round(seconds / 60)} min` : `${Number(seconds.toFixed(1))} s`;
}
