import type { Clock } from '../../clock.js';
import { AimdLimiter } from './aimd.js';
import { PauseGate } from './pause-gate.js';
import { DEFAULT_MAX_STALL_SECONDS, StallWatch } from './stall.js';
import { throttleBackoffMs } from './throttle.js';
import { TokenBucket } from './token-bucket.js';
import type { WindowSchedule } from './window.js';

// The pace of a bulk send, in one place, so that the engine asks one question before each launch
// ("may a request leave now?") and reports one fact after each answer. It combines:
//   the send window      outside it nothing leaves until it opens again;
//   the pipeline pause   after a throttle, nothing leaves until Retry-After (or a backoff);
//   the token bucket     --rate and the number's rateLimit, per second;
//   the AIMD limit       how many requests may be in flight (the engine reads `limit`);
//   the stall rule       after --max-stall seconds without an acceptance, throttles are final.

/** The least wait after a throttle, so that a Retry-After of 0 does not become a busy loop. */
const MIN_THROTTLE_WAIT_MS = 50;

export type PaceEvent =
  /** `until` is on the monotonic clock (Clock.monotonic), like every pause. */
  | { type: 'throttled'; status: number; waitMs: number; until: number; retryAfterGiven: boolean }
  /** `opensAt` is wall time (the window is a time of day); `opensInMs` the wait, for a clock of durations. */
  | { type: 'window-closed'; opensAt: number; opensInMs: number; opensAtText: string; windowText: string }
  | { type: 'window-opened'; closesAt: number };

export interface PacerOptions {
  clock: Clock;
  /** --concurrency: the starting and largest number of requests in flight. */
  concurrency: number;
  /** Messages per second (the tighter of --rate and the number's rateLimit). */
  ratePerSecond?: number | undefined;
  maxStallMs?: number | undefined;
  window?: WindowSchedule | undefined;
  /** Jitter of the throttle backoff; injectable for tests. */
  random?: () => number;
  onEvent?: (event: PaceEvent) => void;
}

export type ThrottleVerdict = 'retry' | 'give-up';

export class Pacer {
  readonly stall: StallWatch;
  private readonly gate: PauseGate;
  private readonly aimd: AimdLimiter;
  private readonly bucket: TokenBucket | undefined;
  private readonly clock: Clock;
  private readonly window: WindowSchedule | undefined;
  private readonly random: () => number;
  private readonly onEvent: (event: PaceEvent) => void;
  /** The window is known to be open until this instant (a cheap check per launch). */
  private openUntil = -Infinity;
  private consecutiveThrottles = 0;
  /** Throttled answers that were (or will be) sent again. */
  throttleRetries = 0;
  /** Time spent waiting for the service (throttle pauses) and for the window, in ms. */
  throttleWaitMs = 0;
  windowWaitMs = 0;

  constructor(options: PacerOptions) {
    this.clock = options.clock;
    // Pace, pauses and stalls are durations: the monotonic clock; only the window reads the wall.
    const now = options.clock.monotonic();
    this.stall = new StallWatch(options.maxStallMs ?? DEFAULT_MAX_STALL_SECONDS * 1000, now);
    this.gate = new PauseGate(options.clock);
    this.aimd = new AimdLimiter({ max: options.concurrency });
    this.bucket = options.ratePerSecond !== undefined ? new TokenBucket(options.ratePerSecond, now) : undefined;
    this.window = options.window;
    this.random = options.random ?? Math.random;
    this.onEvent = options.onEvent ?? (() => undefined);
  }

  /** Requests allowed in flight now. */
  get limit(): number {
    return this.aimd.limit;
  }

  /** The instant launches may go again after a throttle, or undefined. */
  pausedUntil(): number | undefined {
    return this.gate.pausedUntil();
  }

  /**
   * How many of `count` requests may leave now (at least 1), or a promise of that number once
   * some may: inside the window, after any throttle pause, one token of the rate each. Every
   * condition holds at the same instant, the one the launch happens at: a wait for a pause or a
   * token is followed by a fresh look at the window, so nothing leaves after the window closed
   * during the wait. The promise rejects (from the clock's sleep) when `signal` aborts.
   */
  admit(signal?: AbortSignal, count = 1): number | Promise<number> {
    const now = this.bucket === undefined ? 0 : this.clock.monotonic();
    const n = this.admitNow(now, count, false);
    return n > 0 ? n : this.admitSlowly(signal, count);
  }

  /** The requests that may leave at `now` (monotonic; tokens taken), or 0. */
  private admitNow(now: number, count: number, pastStall: boolean): number {
    if (this.window !== undefined && !(this.clock.now() < this.openUntil)) return 0;
    // A pause that outlasts the stall deadline lets one more try through at the deadline: its
    // answer decides whether the run gives up.
    if (!pastStall && this.gate.pausedUntil() !== undefined) return 0;
    return this.bucket === undefined ? count : this.bucket.take(now, count);
  }

  private async admitSlowly(signal: AbortSignal | undefined, count: number): Promise<number> {
    for (;;) {
      if (this.window !== undefined) await this.waitForWindow(signal);
      let pastStall = false;
      if (this.gate.pausedUntil() !== undefined) {
        const started = this.clock.monotonic();
        await this.gate.wait(signal, this.stall.deadline());
        this.throttleWaitMs += this.clock.monotonic() - started;
        pastStall = this.gate.pausedUntil() !== undefined;
      }
      if (this.bucket !== undefined) {
        const wait = this.bucket.untilNext(this.clock.monotonic());
        if (wait > 0) {
          await this.clock.sleep(wait, signal);
          continue;
        }
      }
      const n = this.admitNow(this.clock.monotonic(), count, pastStall);
      if (n > 0) return n;
    }
  }

  private async waitForWindow(signal: AbortSignal | undefined): Promise<void> {
    const window = this.window!;
    for (;;) {
      const now = this.clock.now();
      if (now < this.openUntil) return;
      if (window.isOpen(now)) {
        this.openUntil = window.nextChange(now);
        return;
      }
      const opensAt = window.nextChange(now);
      this.onEvent({ type: 'window-closed', opensAt, opensInMs: opensAt - now, opensAtText: window.describe(opensAt), windowText: `${window.window.text} (${window.window.timeZone})` });
      const sleptFrom = this.clock.monotonic();
      await this.clock.sleep(opensAt - now, signal);
      const after = this.clock.now();
      this.windowWaitMs += this.clock.monotonic() - sleptFrom;
      // Hours outside the window are no stall: the service was not asked.
      this.stall.progress(this.clock.monotonic());
      if (window.isOpen(after)) {
        this.openUntil = window.nextChange(after);
        this.onEvent({ type: 'window-opened', closesAt: this.openUntil });
        return;
      }
    }
  }

  /** The run waited for its recipients' own windows: hours the service was not asked are no stall. */
  rested(): void {
    this.stall.progress(this.clock.now());
  }

  /** A request leaves; the ticket goes back with its answer. */
  launched(): number {
    return this.aimd.launch();
  }

  accepted(): void {
    this.stall.progress(this.clock.monotonic());
    this.consecutiveThrottles = 0;
    this.aimd.accepted();
  }

  /**
   * The service throttled the request launched with `ticket`. `retry`: send it again (after the
   * pause this sets for everyone); `give-up`: nothing was accepted for --max-stall, so the
   * throttle is final and the recipient is rejected.
   */
  throttled(ticket: number, status: number, retryAfterMs: number | undefined): ThrottleVerdict {
    const now = this.clock.monotonic();
    if (this.stall.stalled(now)) return 'give-up';
    // A window of requests throttled together is one event: it halves the limit once and
    // doubles the backoff once.
    if (this.aimd.throttled(ticket) || this.consecutiveThrottles === 0) this.consecutiveThrottles++;
    this.throttleRetries++;
    const wait = Math.max(MIN_THROTTLE_WAIT_MS, retryAfterMs ?? throttleBackoffMs(this.consecutiveThrottles, this.random));
    const before = this.gate.pausedUntil() ?? now;
    const until = this.gate.pauseFor(wait);
    // The pause is cut at the stall deadline (one more try decides then): no longer wait is shown.
    const shownUntil = Math.min(until, this.stall.deadline());
    if (until > before) this.onEvent({ type: 'throttled', status, waitMs: shownUntil - now, until: shownUntil, retryAfterGiven: retryAfterMs !== undefined });
    return 'retry';
  }
}
