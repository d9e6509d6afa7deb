// How many requests a bulk send keeps in flight, adapted to the service: additive increase,
// multiplicative decrease (AIMD), the controller TCP uses for its congestion window.
//
// Why AIMD and not a latency-gradient limiter (TCP Vegas, Netflix's concurrency-limits): those
// read rising round-trip times as the sign of a queue building up. A rate-limited API does not
// queue, it refuses at once, so latency says nothing until the 429 arrives; the 429 is a binary
// congestion signal, which is exactly what AIMD was designed for and proven to converge on
// (Chiu and Jain, 1989): halve on a throttle, grow by one request per window of acceptances.
// Halving once per window, not per throttled answer, matters: when a window of 64 requests
// meets a limit, up to 64 throttles arrive together, and they are one congestion event.
//
// The limit starts at --concurrency and never exceeds it (the user's bound on open connections).

export interface AimdOptions {
  /** The starting and largest limit (--concurrency). */
  max: number;
  /** The smallest limit. Default 1. */
  min?: number;
  /** The factor applied on a throttle. Default 0.5. */
  decrease?: number;
}

export class AimdLimiter {
  private window: number;
  private readonly max: number;
  private readonly min: number;
  private readonly decrease: number;
  /** Launch sequence numbers: a throttle of a request launched before the last decrease is the same event. */
  private launched = 0;
  private decreasedAt = 0;

  constructor(options: AimdOptions) {
    this.max = Math.max(1, Math.floor(options.max));
    this.min = Math.max(1, Math.min(this.max, Math.floor(options.min ?? 1)));
    this.decrease = options.decrease ?? 0.5;
    this.window = this.max;
  }

  /** Requests allowed in flight now. */
  get limit(): number {
    return Math.max(this.min, Math.floor(this.window));
  }

  /** Call when a request leaves; pass the returned ticket to `throttled`. */
  launch(): number {
    return ++this.launched;
  }

  /** An accepted answer: the window grows by one request per window's worth of acceptances. */
  accepted(): void {
    this.window = Math.min(this.max, this.window + 1 / Math.max(1, this.window));
  }

  /** A throttled answer to the request launched with `ticket`; returns true when the limit came down. */
  throttled(ticket: number): boolean {
    if (ticket <= this.decreasedAt) return false;
    this.window = Math.max(this.min, this.window * this.decrease);
    this.decreasedAt = this.launched;
    return true;
  }
}
