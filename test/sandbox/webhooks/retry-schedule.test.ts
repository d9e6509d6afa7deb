import { describe, expect, it } from 'vitest';
import {
  CLIENT_ERROR_CAP_MS,
  SERVER_ERROR_CAP_MS,
  parseRetryAfterMs,
  retryCapMs,
  retryDelayMs,
  retryWindowMs,
} from '../../../src/sandbox/webhooks/retry-schedule.js';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;

describe('retryDelayMs', () => {
  it('doubles from 5 s and stops at 1 min after a 5xx', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7].map((n) => retryDelayMs(n, 503, null));
    expect(delays).toEqual([5, 10, 20, 40, 60, 60, 60].map((s) => s * SECOND));
  });

  it('doubles from 5 s and stops at 30 min after a 4xx', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((n) => retryDelayMs(n, 404, null));
    expect(delays).toEqual([5, 10, 20, 40, 80, 160, 320, 640, 1280, 1800, 1800, 1800].map((s) => s * SECOND));
  });

  it('treats a timeout or connection error (no status) as a 5xx', () => {
    expect(retryDelayMs(5, null, null)).toBe(SERVER_ERROR_CAP_MS);
    expect(retryCapMs(null)).toBe(SERVER_ERROR_CAP_MS);
    expect(retryCapMs(500)).toBe(SERVER_ERROR_CAP_MS);
    expect(retryCapMs(599)).toBe(SERVER_ERROR_CAP_MS);
    expect(retryCapMs(400)).toBe(CLIENT_ERROR_CAP_MS);
    expect(retryCapMs(429)).toBe(CLIENT_ERROR_CAP_MS);
  });

  it('gives unanswered redirects the 4xx cap', () => {
    expect(retryCapMs(302)).toBe(CLIENT_ERROR_CAP_MS);
  });

  it('stays at the cap for very large retry numbers', () => {
    expect(retryDelayMs(5_000, 500, null)).toBe(SERVER_ERROR_CAP_MS);
    expect(retryDelayMs(5_000, 400, null)).toBe(CLIENT_ERROR_CAP_MS);
  });

  it('lets Retry-After raise the wait, even above the cap, but never lower it', () => {
    expect(retryDelayMs(1, 503, 120 * SECOND)).toBe(120 * SECOND);
    expect(retryDelayMs(1, 429, 2 * 60 * MINUTE)).toBe(2 * 60 * MINUTE);
    expect(retryDelayMs(4, 503, 1 * SECOND)).toBe(40 * SECOND);
    expect(retryDelayMs(1, 503, 0)).toBe(5 * SECOND);
  });

  it('divides every wait by the time scale', () => {
    expect(retryDelayMs(1, 500, null, 1000)).toBe(5);
    expect(retryDelayMs(9, 500, null, 1000)).toBe(60);
    expect(retryDelayMs(12, 400, null, 1000)).toBe(1800);
    expect(retryDelayMs(1, 500, 30 * SECOND, 1000)).toBe(30);
    expect(retryWindowMs(1000)).toBe(86_400);
    expect(retryWindowMs()).toBe(24 * 60 * MINUTE);
  });

  it('refuses a retry number below 1 and a time scale that is not positive', () => {
    expect(() => retryDelayMs(0, 500, null)).toThrow(RangeError);
    expect(() => retryDelayMs(1.5, 500, null)).toThrow(RangeError);
    expect(() => retryDelayMs(1, 500, null, 0)).toThrow(RangeError);
    expect(() => retryDelayMs(1, 500, null, Number.NaN)).toThrow(RangeError);
    expect(() => retryWindowMs(-1)).toThrow(RangeError);
  });
});

describe('parseRetryAfterMs', () => {
  const now = Date.parse('2025-03-01T12:00:00Z');

  it('reads delta seconds', () => {
    expect(parseRetryAfterMs('120', now)).toBe(120_000);
    expect(parseRetryAfterMs(' 0 ', now)).toBe(0);
    expect(parseRetryAfterMs(['7', '9'], now)).toBe(7_000);
  });

  it('reads an HTTP date relative to now', () => {
    expect(parseRetryAfterMs('Sat, 01 Mar 2025 12:02:30 GMT', now)).toBe(150_000);
    // The obsolete RFC 850 form is still a valid HTTP date.
    expect(parseRetryAfterMs('Saturday, 01-Mar-25 12:00:10 GMT', now)).toBe(10_000);
  });

  it('reads a date in the past as no wait', () => {
    expect(parseRetryAfterMs('Sat, 01 Mar 2025 11:00:00 GMT', now)).toBe(0);
  });

  it('ignores what is absent or unreadable', () => {
    expect(parseRetryAfterMs(undefined, now)).toBeNull();
    expect(parseRetryAfterMs('', now)).toBeNull();
    expect(parseRetryAfterMs('-5', now)).toBeNull();
    expect(parseRetryAfterMs('1.5', now)).toBeNull();
    expect(parseRetryAfterMs('soon', now)).toBeNull();
    expect(parseRetryAfterMs('2025-03-01T12:05:00Z', now)).toBeNull();
  });
});
