// The whole-exchange deadline (--timeout) and the outer signals (Ctrl-C, a bulk send's cut-off)
// of the exchanges in flight. A bulk send makes tens of thousands of exchanges, so none of them
// gets its own timer or AbortController: one timer serves every deadline, and each outer signal
// gets one listener for all the exchanges under it.

import { InterruptedError } from '../errors.js';
import type { Cancel } from './transport.js';

/** One exchange under way: what its transport sees as its cancel, with the exchange's deadline. */
export class Exchanging implements Cancel {
  cancelled = false;
  reason: unknown = undefined;
  onCancel: ((reason: unknown) => void) | undefined = undefined;
  timedOut = false;
  deadline = Infinity;

  constructor(readonly timeoutMs: number) {}

  cancel(reason: unknown): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.reason = reason;
    this.onCancel?.(reason);
  }

  expire(): void {
    if (this.cancelled) return;
    this.timedOut = true;
    this.cancel(new Error(`no complete answer within ${this.timeoutMs / 1000} s`));
  }
}

/**
 * The deadlines of the exchanges in flight, on one timer armed for the earliest of them. Its
 * exchanges start in deadline order when they share a timeout (a bulk send), so the timer is
 * re-armed about once a timeout period rather than once a request; it is cleared when none is
 * left in flight, so it never holds the process open.
 */
export class Deadlines {
  private readonly live = new Set<Exchanging>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private armedFor = Infinity;

  add(exchange: Exchanging): void {
    exchange.deadline = performance.now() + exchange.timeoutMs;
    this.live.add(exchange);
    if (exchange.deadline < this.armedFor) this.arm(exchange.deadline);
  }

  delete(exchange: Exchanging): void {
    if (!this.live.delete(exchange) || this.live.size > 0) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.armedFor = Infinity;
  }

  private arm(at: number): void {
    clearTimeout(this.timer);
    this.armedFor = at;
    this.timer = setTimeout(() => this.expire(), Math.max(0, Math.ceil(at - performance.now())));
  }

  private expire(): void {
    this.timer = undefined;
    this.armedFor = Infinity;
    const now = performance.now();
    let next = Infinity;
    for (const exchange of this.live) {
      if (exchange.deadline <= now) {
        this.live.delete(exchange);
        exchange.expire();
      } else if (exchange.deadline < next) next = exchange.deadline;
    }
    if (next !== Infinity) this.arm(next);
  }
}

/** The exchanges in flight under each outer signal: one abort listener per signal, not per request. */
const watched = new WeakMap<AbortSignal, Set<Exchanging>>();

export function watchSignal(signal: AbortSignal, exchange: Exchanging): void {
  if (signal.aborted) {
    exchange.cancel(new InterruptedError());
    return;
  }
  let live = watched.get(signal);
  if (live === undefined) {
    const set = new Set<Exchanging>();
    live = set;
    watched.set(signal, set);
    signal.addEventListener(
      'abort',
      () => {
        for (const each of [...set]) each.cancel(new InterruptedError());
        set.clear();
      },
      { once: true },
    );
  }
  live.add(exchange);
}

export function unwatchSignal(signal: AbortSignal, exchange: Exchanging): void {
  watched.get(signal)?.delete(exchange);
}
