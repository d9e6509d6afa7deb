// A token bucket for --rate N (messages per second) and the from-number's settings.rateLimit
// (per second, as decisions.md picks). Tokens are reserved in order, so the long-run rate is
// exactly the limit whatever the timer resolution.
//
// The client's burst is small on purpose (a twentieth of a second's worth): the service allows
// a whole second's worth, so the difference absorbs the jitter between the two clocks, and a
// sender pacing itself at the limit is never pushed over it by its own burst.

export class TokenBucket {
  private tokens: number;
  private last: number;
  readonly burst: number;

  constructor(
    readonly perSecond: number,
    now: number,
    burst = Math.max(1, Math.floor(perSecond / 20)),
  ) {
    if (!(perSecond > 0)) throw new RangeError(`a rate must be above 0, not ${perSecond}`);
    this.burst = burst;
    this.tokens = burst;
    this.last = now;
  }

  /** Takes one token and returns how long (ms) to wait before the request it pays for may leave. */
  reserve(now: number): number {
    if (now > this.last) {
      this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) * this.perSecond) / 1000);
      this.last = now;
    }
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens * 1000) / this.perSecond;
  }
}

/** The tighter of the caps that apply (--rate, the number's rateLimit); undefined when none. */
export function effectiveRate(...rates: (number | undefined)[]): number | undefined {
  const given = rates.filter((r): r is number => r !== undefined && Number.isFinite(r) && r > 0);
  return given.length === 0 ? undefined : Math.min(...given);
}
