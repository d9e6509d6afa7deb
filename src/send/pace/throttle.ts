import { parseRetryAfter } from '../../api/http.js';
import { CliError } from '../../errors.js';

// Throttling is not failure (docs/decisions.md#retries): a 429, or a 503 that says when to
// come back (Retry-After), means the service refused the request without processing it. A bulk
// send pauses and sends the same recipient again; nothing is journaled as rejected for it.
// A 503 without Retry-After is an ordinary failure: nothing says the request was not acted on.

export interface Throttle {
  /** How long the service asked to wait (Retry-After, seconds or an HTTP date); undefined: not said. */
  retryAfterMs: number | undefined;
}

/** A throttled answer, or undefined when the answer is not a throttle. */
export function classifyThrottle(status: number, retryAfter: string | undefined, now: number): Throttle | undefined {
  if (status === 429) return { retryAfterMs: parseRetryAfter(retryAfter, now) };
  if (status === 503) {
    const retryAfterMs = parseRetryAfter(retryAfter, now);
    return retryAfterMs === undefined ? undefined : { retryAfterMs };
  }
  return undefined;
}

/**
 * The wait after a throttle that named none: exponential from 1 s, doubled per throttle in a
 * row, at most 60 s, with the upper half jittered so that several senders do not come back in
 * step. `random` is injectable so that tests know the wait.
 */
export function throttleBackoffMs(consecutive: number, random: () => number = Math.random): number {
  const step = Math.min(60_000, 1000 * 2 ** Math.max(0, consecutive - 1));
  return step / 2 + random() * (step / 2);
}

/** The throttle an error of a send stands for (its status and Retry-After), or undefined. */
export function throttleOf(error: unknown): (Throttle & { status: number }) | undefined {
  if (!(error instanceof CliError) || error.status === null) return undefined;
  if (error.status === 429) return { status: 429, retryAfterMs: error.retryAfterMs };
  if (error.status === 503 && error.retryAfterMs !== undefined) return { status: 503, retryAfterMs: error.retryAfterMs };
  return undefined;
}
