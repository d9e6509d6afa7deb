import { InterruptedError } from './errors.js';

// Time as the commands see it. Everything that waits or gives up after a while asks the clock,
// so that tests drive time with a fake one (test/helpers/cli.ts) instead of waiting for it.

export interface Clock {
  /** Wall time, ms since the epoch: for what is shown or compared with dates (send windows, event times). */
  now(): number;
  /**
   * Milliseconds on a clock that moves only forward, at the rate of real time, whatever is done to
   * the wall clock (NTP steps, a changed time zone, a laptop's sleep): for every duration, deadline,
   * pace and back-off. Its zero means nothing; only differences do.
   */
  monotonic(): number;
  /** Resolves after `ms`; rejects with InterruptedError once `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** A signal that aborts `ms` from now, as AbortSignal.timeout() does in real time. */
  timeout(ms: number): AbortSignal;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(new InterruptedError());
        return;
      }
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(new InterruptedError());
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
  // Unreferenced: a pending timeout never keeps the process alive.
  // Whole milliseconds: durations read from the monotonic clock have fractions, which AbortSignal.timeout refuses.
  timeout: (ms) => AbortSignal.timeout(Math.max(0, Math.ceil(ms))),
};
