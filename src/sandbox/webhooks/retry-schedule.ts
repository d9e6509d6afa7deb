// The retry rules of docs/decisions.md#webhook-retries, as pure functions so that they can be checked on
// their own: retry n waits min(cap, 5 s x 2^(n-1)); the cap is 30 min after a 4xx-like answer and
// 1 min after a 5xx, a timeout or a connection error; Retry-After raises the wait to at least
// its value; nothing is scheduled past 24 h from the first attempt. Every duration is divided
// by the sandbox's time scale.

export const BASE_RETRY_DELAY_MS = 5_000;
export const CLIENT_ERROR_CAP_MS = 30 * 60_000;
export const SERVER_ERROR_CAP_MS = 60_000;
export const RETRY_WINDOW_MS = 24 * 60 * 60_000;

/**
 * True when a failed answer is treated as a server-side problem (short cap): a 5xx, or no
 * answer at all (timeout, connection error). Other non-2xx answers (4xx, and 3xx since
 * redirects are not followed) point at the receiver's configuration and get the long cap.
 */
export function isServerSideFailure(status: number | null): boolean {
  return status === null || status >= 500;
}

export function retryCapMs(status: number | null): number {
  return isServerSideFailure(status) ? SERVER_ERROR_CAP_MS : CLIENT_ERROR_CAP_MS;
}

/**
 * The wait before retry number `retry` (1 for the first retry, i.e. before the second
 * attempt), in real milliseconds.
 * @param lastStatus the answer that decides the cap (null: timeout or connection error)
 * @param retryAfterMs the endpoint's Retry-After in unscaled milliseconds, or null
 */
export function retryDelayMs(
  retry: number,
  lastStatus: number | null,
  retryAfterMs: number | null,
  timeScale = 1,
): number {
  if (!Number.isInteger(retry) || retry < 1) throw new RangeError(`retry must be an integer >= 1, got ${retry}`);
  assertTimeScale(timeScale);
  // 2 ** large is Infinity, which min() turns into the cap.
  const backoff = Math.min(retryCapMs(lastStatus), BASE_RETRY_DELAY_MS * 2 ** (retry - 1));
  const wait = retryAfterMs !== null && retryAfterMs > backoff ? retryAfterMs : backoff;
  return wait / timeScale;
}

/** The 24 h window in real milliseconds at the given time scale. */
export function retryWindowMs(timeScale = 1): number {
  assertTimeScale(timeScale);
  return RETRY_WINDOW_MS / timeScale;
}

/**
 * Reads a Retry-After header: delta seconds (`120`) or an HTTP date, relative to `nowMs`.
 * Returns unscaled milliseconds, 0 for a date in the past, null when absent or unreadable.
 */
export function parseRetryAfterMs(header: string | readonly string[] | undefined, nowMs: number): number | null {
  const raw = Array.isArray(header) ? header[0] : header;
  if (typeof raw !== 'string') return null;
  const value = raw.trim();
  if (value === '') return null;
  if (/^\d+$/.test(value)) {
    const seconds = Number(value);
    return Number.isSafeInteger(seconds) ? seconds * 1000 : null;
  }
  // Only the date shapes RFC 9110 allows: IMF-fixdate and the two obsolete forms all name a
  // weekday and a month; a bare number with a sign or a fraction is not a valid delta.
  if (!/[A-Za-z]{3}/.test(value)) return null;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - nowMs);
}

export function assertTimeScale(timeScale: number): void {
  if (!Number.isFinite(timeScale) || timeScale <= 0) {
    throw new RangeError(`timeScale must be a positive finite number, got ${timeScale}`);
  }
}

/** What an attempt's answers say about the next one: the primary's, then the secondary's. */
export interface AnsweredAttempt {
  status: number | null;
  retryAfter: string | readonly string[] | undefined;
}

/**
 * When the primary and the secondary fail differently, the 5xx cap (1 min) wins if either
 * failure was server-side (5xx, timeout, connection error): that endpoint may be back soon,
 * and the event should not wait 30 min because the other one answered 4xx.
 */
export function capDecidingStatus(outcomes: readonly AnsweredAttempt[]): number | null {
  const serverSide = outcomes.find((o) => isServerSideFailure(o.status));
  return (serverSide ?? outcomes[outcomes.length - 1]!).status;
}

/** The longest Retry-After among the answers, in unscaled milliseconds; null when none gave one. */
export function longestRetryAfterMs(outcomes: readonly AnsweredAttempt[], nowMs: number): number | null {
  let longest: number | null = null;
  for (const outcome of outcomes) {
    const value = parseRetryAfterMs(outcome.retryAfter, nowMs);
    if (value !== null && (longest === null || value > longest)) longest = value;
  }
  return longest;
}

/**
 * When attempt number `attempt` (failed, its answers `outcomes`, known at `endedAt`) is retried,
 * or null when that would fall past the window that opened at `firstAttemptAtMs`.
 */
export function nextAttemptAt(
  attempt: number,
  outcomes: readonly AnsweredAttempt[],
  endedAt: number,
  firstAttemptAtMs: number,
  timeScale = 1,
): number | null {
  const dueAt = endedAt + retryDelayMs(attempt, capDecidingStatus(outcomes), longestRetryAfterMs(outcomes, endedAt), timeScale);
  return dueAt > firstAttemptAtMs + retryWindowMs(timeScale) ? null : dueAt;
}
