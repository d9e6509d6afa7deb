// A token bucket for --rate N (messages per second) and the from-number's settings.rateLimit
// (per second, as docs/decisions.md#throttling picks). The refill counts real elapsed time, so a timer that fires
// late loses no tokens and the long-run rate is exactly the limit whatever the timer resolution.
//
// The client's bucket holds half a second's worth. The service's holds a whole second
// (docs/decisions.md#throttling), so a client bucket half as deep always conforms to it: in any span of t
// seconds the client sends at most N/2 + N*t, the service admits N + N*t, and the other half
// second absorbs the jitter between the two clocks. It has to be that deep to reach the limit
// at all: the service's answers stall now and then (a collection, a disk write), every request
// in flight waits, and a bucket of a twentieth of a second (as it was) threw the tokens of the
// stall away, so a send paced to 2,000 a second achieved 0.74 to 0.9 of it. With half a second
// the tokens saved during a stall go out as soon as the answers come back.

export class TokenBucket {
  private tokens: number;
  private last: number;
  readonly burst: number;

  constructor(
    readonly perSecond: number,
    now: number,
    burst = Math.max(1, Math.floor(perSecond / 2)),
  ) {
    if (!(perSecond > 0)) throw new RangeError(`a rate must be above 0, not ${perSecond}`);
    this.burst = burst;
    this.tokens = burst;
    this.last = now;
  }

  private refill(now: number): void {
    if (now > this.last) {
      this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) * this.perSecond) / 1000);
      this.last = now;
    }
  }

  /**
   * Takes up to `count` whole tokens that are there now and returns how many it took (0 when
   * none is). The tokens never go below zero, so in any span of t seconds at most
   * burst + perSecond * t requests leave: each one as its token comes, never a batch that waited
   * for the last token of the batch.
   */
  take(now: number, count: number): number {
    this.refill(now);
    const n = Math.min(count, Math.floor(this.tokens + EPSILON));
    if (n <= 0) return 0;
    this.tokens = Math.max(0, this.tokens - n);
    return n;
  }

  /** How long (ms) from `now` until a whole token is there; 0 when one is. */
  untilNext(now: number): number {
    this.refill(now);
    const missing = 1 - this.tokens;
    return missing <= EPSILON ? 0 : (missing * 1000) / this.perSecond;
  }
}

/** Float error in the refill must not turn a whole token into 0.999…: nothing would ever leave. */
const EPSILON = 1e-9;

/** The tighter of the caps that apply (--rate, the number's rateLimit); undefined when none. */
export function effectiveRate(...rates: (number | undefined)[]): number | undefined {
  const given = rates.filter((r): r is number => r !== undefined && Number.isFinite(r) && r > 0);
  return given.length === 0 ? undefined : Math.min(...given);
}
