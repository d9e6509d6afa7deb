import type { Clock } from '../clock.js';

// A call once a second, on whole seconds counted from `since` on the clock's monotonic time: what
// keeps a running count on screen moving while nothing else happens (a long wait between reads, a
// read that hangs). Built on the clock's timeouts, so a test's clock drives it as it drives every
// other wait, and a real one never keeps the process alive.

export interface Ticker {
  stop(): void;
}

const SECOND = 1000;

export function startTicker(clock: Clock, since: number, tick: () => void): Ticker {
  let stopped = false;
  const arm = (): void => {
    const intoSecond = (clock.monotonic() - since) % SECOND;
    const signal = clock.timeout(SECOND - intoSecond);
    signal.addEventListener(
      'abort',
      () => {
        if (stopped) return;
        tick();
        arm();
      },
      { once: true },
    );
  };
  arm();
  return {
    stop() {
      stopped = true;
    },
  };
}
