import { InterruptedError } from './errors.js';

// Time as the commands see it. Everything that waits or gives up after a while asks the clock,
// so that tests drive time with a fake one (test/helpers/cli.ts) instead of waiting for it.

export interface Clock {
  now(): number;
  /** Resolves after `ms`; rejects with InterruptedError once `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** A signal that aborts `ms` from now, as AbortSignal.timeout() does in real time. */
  timeout(ms: number): AbortSignal;
}

export const systemClock: Clock = {
  now: () => Date.now(),
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
  timeout: (ms) => AbortSignal.timeout(ms),
};
