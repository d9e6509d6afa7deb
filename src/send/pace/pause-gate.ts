import type { Clock } from '../../clock.js';

// One pause for the whole pipeline: when the service throttles, every launch waits until the
// same instant (the latest Retry-After given), instead of each request backing off on its own
// and the rest of the window walking into the same wall.

export class PauseGate {
  private until = 0;

  constructor(private readonly clock: Clock) {}

  /** Holds every launch for at least `ms` from now (a later pause already set stands). */
  pauseFor(ms: number): number {
    this.until = Math.max(this.until, this.clock.monotonic() + Math.max(0, ms));
    return this.until;
  }

  /** The instant launches may go again, or undefined when they may go now. */
  pausedUntil(): number | undefined {
    return this.clock.monotonic() < this.until ? this.until : undefined;
  }

  /**
   * Resolves once the pause is over (at once when there is none); rejects when `signal` aborts.
   * `limit` cuts the wait short at that instant (the stall deadline) without lifting the pause.
   */
  async wait(signal?: AbortSignal, limit = Infinity): Promise<void> {
    for (;;) {
      const now = this.clock.monotonic();
      const end = Math.min(this.until, limit);
      if (now >= end) return;
      await this.clock.sleep(end - now, signal);
    }
  }
}
