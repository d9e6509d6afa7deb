// Throttling like a service (docs/decisions.md#throttling): each number's
// `settings.rateLimit` and the sandbox's account-wide `--rate-limit` cap sends per second, each a
// token bucket holding one second's worth of burst. A send of k recipients takes k tokens from
// both buckets, or none. A bucket refills continuously on the injected clock. A request larger
// than a bucket's whole second is admitted when the bucket is full and leaves it in debt, so that
// every request has a true time after which it is accepted.

interface Bucket {
  tokens: number;
  at: number;
  rate: number;
}

export class RateLimiter {
  private readonly accounts = new Map<string, Bucket>();
  private readonly numbers = new Map<string, Bucket>();

  constructor(
    private readonly now: () => number,
    /** Sends per second per account; undefined or 0 is no limit. */
    private readonly accountRate: number | undefined,
  ) {}

  /**
   * Takes `count` tokens from the account's bucket and the number's (`numberRate` per second,
   * 0 for none). Returns 0 when admitted, else the milliseconds until this request would be.
   */
  take(owner: string, number: string, numberRate: number, count: number): number {
    const now = this.now();
    const account = this.accountRate ? this.bucket(this.accounts, owner, this.accountRate, now) : undefined;
    const own = numberRate > 0 ? this.bucket(this.numbers, number, numberRate, now) : undefined;
    const wait = Math.max(account ? waitFor(account, count) : 0, own ? waitFor(own, count) : 0);
    if (wait > 0) return wait;
    if (account) account.tokens -= count;
    if (own) own.tokens -= count;
    return 0;
  }

  private bucket(map: Map<string, Bucket>, key: string, rate: number, now: number): Bucket {
    let b = map.get(key);
    if (!b) {
      b = { tokens: rate, at: now, rate };
      map.set(key, b);
      return b;
    }
    if (b.rate !== rate) {
      // A changed setting takes effect at once, the bucket never holding more than a second of it.
      b.tokens = Math.min(b.tokens, rate);
      b.rate = rate;
    }
    if (now > b.at) {
      b.tokens = Math.min(rate, b.tokens + ((now - b.at) * rate) / 1000);
      b.at = now;
    }
    return b;
  }
}

/** Milliseconds until the bucket holds `count` tokens (or is full, for a request above its size). */
function waitFor(b: Bucket, count: number): number {
  const need = Math.min(count, b.rate);
  if (b.tokens + 1e-9 >= need) return 0;
  return ((need - b.tokens) * 1000) / b.rate;
}
