import { setMaxListeners } from 'node:events';
import { describeError, NetworkError } from '../errors.js';
import { classifyFailure } from './outcome.js';
import {
  DEFAULT_GRACE_MS,
  journalRecordFor,
  UNREACHABLE_AFTER,
  type BulkHold,
  type BulkOptions,
  type BulkRequest,
  type BulkResult,
  type BulkSummary,
  type JournalSink,
} from './bulk-types.js';

// The bulk-send engine: pulls requests from a stream, keeps at most `concurrency` of them in
// flight, and journals ahead of the wire: the recipients of every request are recorded as in
// flight (one write for each launch window) before any of those requests leaves, and each answer
// is journaled the moment it arrives, before anything else is done with it. So whatever kills the
// process, the journal shows who was answered and who may have been sent (in flight).
//
// On the abort signal (SIGINT, SIGTERM, SIGHUP) it launches nothing more and lets what is in
// flight finish within `graceMs`; past that the requests still out are cut off, and journaled as
// `unknown` (the service may have acted on them).
//
// When the service cannot be reached (UNREACHABLE_AFTER connection failures in a row, nothing
// answered in between) it launches nothing more either: a service that is down would otherwise
// get every remaining recipient tried and journaled as failed, one line of noise each.
//
// Nothing about a request is kept once its result has been handed on, so memory depends on the
// window, not on the number of recipients.

const defaultSleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(new Error('cancelled'));
      },
      { once: true },
    );
  });

export async function runBulk<P>(options: BulkOptions<P>): Promise<BulkSummary> {
  return new BulkRun(options).run();
}

function emptySummary(): BulkSummary {
  return {
    requests: 0,
    accepted: 0,
    rejected: 0,
    unknown: 0,
    interrupted: false,
    firstFailure: undefined,
    throttleRetries: 0,
    stalled: false,
    unreachable: undefined,
  };
}

/** One bulk send: its window, its queues (throttled, held, released) and its tallies. */
class BulkRun<P> {
  private readonly summary = emptySummary();
  private readonly concurrency: number;
  private readonly unreachableAfter: number;
  private readonly journal: JournalSink | undefined;
  private readonly pace: BulkOptions<P>['pace'];
  private readonly hold: BulkHold<P> | undefined;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Connection failures since the service last answered anything. */
  private connectionFailures = 0;
  /** Throttled requests waiting to be sent again, before any new one; with their last answer. */
  private readonly retries: { request: BulkRequest<P>; failure: BulkResult }[] = [];
  /** Held requests by window group: when the group opens, and its requests in order. */
  private readonly held = new Map<string, { at: number; requests: BulkRequest<P>[] }>();
  /** Held requests whose window has opened, to be launched before new ones. */
  private readonly released: BulkRequest<P>[] = [];
  private inFlight = 0;
  private wake: (() => void) | undefined;
  private wakeScheduled = false;
  // A journal that cannot be written stops the run: going on would send without a record.
  private fatal: { error: unknown } | undefined;
  private readonly cutOff = new AbortController();
  private readonly graceOver = new AbortController();

  constructor(private readonly options: BulkOptions<P>) {
    this.concurrency = Math.max(1, Math.floor(options.concurrency));
    this.unreachableAfter = Math.max(1, Math.floor(options.unreachableAfter ?? UNREACHABLE_AFTER));
    this.journal = options.journal;
    this.pace = options.pace;
    this.hold = options.hold;
    this.sleep = options.sleep ?? defaultSleep;
    // Every request in flight listens on it: as many listeners as the window is wide.
    setMaxListeners(0, this.cutOff.signal);
  }

  async run(): Promise<BulkSummary> {
    const { signal } = this.options;
    if (signal.aborted) this.onAbort();
    else signal.addEventListener('abort', this.onAbort, { once: true });
    let readError: { error: unknown } | undefined;
    try {
      await this.launchFile();
      await this.launchWhatIsLeft();
    } catch (error) {
      readError = { error };
    }
    while (this.inFlight > 0) await this.waitForSlot();
    if (this.summary.stalled) this.endGivenUp();
    this.graceOver.abort();
    signal.removeEventListener('abort', this.onAbort);
    this.summary.interrupted = signal.aborted;
    if (this.fatal !== undefined) throw this.fatal.error;
    if (readError !== undefined) throw readError.error;
    return this.summary;
  }

  /** Launches the file's requests, batch by batch, with retries and released ones going first. */
  private async launchFile(): Promise<void> {
    for await (const batch of this.options.requests) {
      let next = 0;
      while (next < batch.length) {
        if (this.retries.length > 0 && !(await this.launchRetries())) return;
        if (this.held.size > 0) this.release();
        if (this.released.length > 0 && !(await this.launchReleased())) return;
        const n = this.howMany(batch.length - next);
        const take = typeof n === 'number' ? n : await n;
        if (take === 0) return;
        this.launchWindow(take === batch.length ? batch : batch.slice(next, next + take));
        next += take;
      }
    }
  }

  /**
   * The file is done; throttled requests may still come back to be sent again, and held ones
   * wait for their windows.
   */
  private async launchWhatIsLeft(): Promise<void> {
    while (!this.stopped() && (this.retries.length > 0 || this.inFlight > 0 || this.held.size > 0 || this.released.length > 0)) {
      if (this.retries.length > 0) {
        if (!(await this.launchRetries())) break;
      } else if (this.held.size > 0) this.release();
      if (this.released.length > 0) {
        if (!(await this.launchReleased())) break;
      } else if (this.inFlight > 0) {
        await this.waitForSlot();
      } else if (this.held.size > 0 && this.retries.length === 0) {
        if (!(await this.waitForHeld())) break;
      }
    }
  }

  /**
   * Given up: the throttled requests still queued end with their last answer. Their launches
   * were closed as throttled, so each gets a launch record again before its result.
   */
  private endGivenUp(): void {
    const left = this.retries.splice(0);
    if (left.length === 0 || this.fatal !== undefined) return;
    let seqs: number[] | undefined;
    try {
      seqs = this.journal?.launch(left.map((retry) => retry.request));
    } catch (error) {
      this.fatal = { error };
    }
    left.forEach((retry, i) => this.finish(seqs?.[i] ?? 0, retry.failure, retry.request));
  }

  private readonly onAbort = (): void => {
    const resolve = this.wake;
    this.wake = undefined;
    resolve?.();
    // The grace period: what is still in flight when it ends is cut off (and journaled unknown).
    this.sleep(this.options.graceMs ?? DEFAULT_GRACE_MS, this.graceOver.signal).then(
      () => this.cutOff.abort(),
      () => undefined,
    );
  };

  private maxInFlight(): number {
    return this.pace === undefined ? this.concurrency : Math.max(1, Math.min(this.concurrency, this.pace.pacer.limit));
  }

  private waitForSlot(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.wake = resolve;
    });
  }

  private answered(): void {
    this.connectionFailures = 0;
  }

  private connectionFailed(error: unknown): void {
    this.connectionFailures++;
    if (this.connectionFailures >= this.unreachableAfter && this.summary.unreachable === undefined) {
      this.summary.unreachable = { failures: this.connectionFailures, reason: describeError(error).message };
    }
  }

  /** Journals a final result, counts it and hands it on. */
  private finish(seq: number, result: BulkResult, request: BulkRequest<P>): void {
    if (this.fatal !== undefined) return;
    try {
      this.journal?.result(seq, journalRecordFor(result));
    } catch (error) {
      this.fatal = { error };
      return;
    }
    const summary = this.summary;
    if (result.outcome === 'accepted') summary.accepted++;
    else {
      if (result.outcome === 'rejected') summary.rejected++;
      else summary.unknown++;
      summary.firstFailure ??= { outcome: result.outcome, error: result.error, exitCode: result.exitCode };
    }
    this.options.onResult(result, request);
  }

  // The launcher is woken at the end of the event-loop turn rather than by each answer: the
  // answers that arrive in one turn free their slots together, so their successors go out in one
  // launch window (one journal write for all their launch records, with the turn's results ahead
  // of them) instead of one write per answer.
  private readonly wakeLauncher = (): void => {
    this.wakeScheduled = false;
    const resolve = this.wake;
    this.wake = undefined;
    resolve?.();
  };

  private settled(): void {
    this.inFlight--;
    if (this.wake === undefined || this.wakeScheduled) return;
    this.wakeScheduled = true;
    setImmediate(this.wakeLauncher);
  }

  /** Sets aside the requests whose window is closed at this instant; the rest launch. */
  private holdClosed(window: readonly BulkRequest<P>[]): readonly BulkRequest<P>[] {
    const hold = this.hold;
    if (hold === undefined) return window;
    const now = hold.now();
    let open: BulkRequest<P>[] | undefined;
    for (let i = 0; i < window.length; i++) {
      const request = window[i]!;
      const closed = hold.until(request, now);
      if (closed === undefined) {
        open?.push(request);
        continue;
      }
      open ??= window.slice(0, i);
      let group = this.held.get(closed.key);
      if (group === undefined) {
        this.held.set(closed.key, (group = { at: closed.at, requests: [] }));
        hold.onHold?.(closed.key, closed.at);
      }
      group.requests.push(request);
    }
    return open ?? window;
  }

  /** Moves the held groups whose window has opened to `released`; the earliest opening still ahead. */
  private release(): number | undefined {
    if (this.held.size === 0) return undefined;
    const now = this.hold!.now();
    let next: number | undefined;
    for (const [key, group] of this.held) {
      if (group.at <= now) {
        this.held.delete(key);
        for (const request of group.requests) this.released.push(request);
      } else next = next === undefined ? group.at : Math.min(next, group.at);
    }
    return next;
  }

  /** Journals a window of requests as in flight, then sends them (those whose window is open). */
  private launchWindow(given: readonly BulkRequest<P>[]): void {
    const window = this.holdClosed(given);
    if (window.length === 0) return;
    let seqs: number[] | undefined;
    if (this.journal !== undefined) {
      try {
        seqs = this.journal.launch(window);
      } catch (error) {
        this.fatal = { error };
        return;
      }
    }
    for (let i = 0; i < window.length; i++) this.launchOne(window[i]!, seqs?.[i] ?? 0);
  }

  private launchOne(request: BulkRequest<P>, seq: number): void {
    const ticket = this.pace?.pacer.launched() ?? 0;
    this.inFlight++;
    this.summary.requests++;
    // The slot is freed first: the launcher's wake-up is then queued ahead of the journal's
    // end-of-turn write of this turn's results, so that those go out in the next launch
    // window's write instead of a write of their own (and no third promise per request).
    this.options.send(request, this.cutOff.signal).then(
      (answer) => {
        this.settled();
        this.answered();
        this.pace?.pacer.accepted();
        this.finish(seq, { to: request.to, outcome: 'accepted', answer }, request);
      },
      (error: unknown) => {
        this.settled();
        // Any answer, even an error status, shows the service is there; a connection failure
        // (refused, reset, timed out) does not, whether or not the request had left.
        if (error instanceof NetworkError) this.connectionFailed(error);
        else this.answered();
        if (!this.throttled(seq, ticket, request, error)) this.finish(seq, { to: request.to, ...classifyFailure(error) }, request);
      },
    );
  }

  /**
   * A throttled answer is not a failure: journaled as throttled and queued to be sent again, or
   * final (rejected with this answer) once nothing has been accepted for --max-stall.
   */
  private throttled(seq: number, ticket: number, request: BulkRequest<P>, error: unknown): boolean {
    const pace = this.pace;
    const throttle = pace?.throttleOf(error);
    if (pace === undefined || throttle === undefined || this.fatal !== undefined || this.options.signal.aborted) return false;
    const failure: BulkResult = { to: request.to, ...classifyFailure(error) };
    if (this.summary.stalled || pace.pacer.throttled(ticket, throttle.status, throttle.retryAfterMs) === 'give-up') {
      this.summary.stalled = true;
      return false;
    }
    try {
      this.journal?.throttled?.(seq, journalRecordFor(failure));
    } catch (journalError) {
      this.fatal = { error: journalError };
      return true;
    }
    this.retries.push({ request, failure });
    return true;
  }

  private stopped(): boolean {
    return this.options.signal.aborted || this.fatal !== undefined || this.summary.stalled || this.summary.unreachable !== undefined;
  }

  /** Waits for room and backpressure; the room there is, or 0 when the run is to stop launching. */
  private async roomSlowly(): Promise<number> {
    while (this.inFlight >= this.maxInFlight() && !this.stopped()) await this.waitForSlot();
    const pending = this.options.ready?.();
    if (pending !== undefined) await pending;
    return this.stopped() ? 0 : Math.max(1, this.maxInFlight() - this.inFlight);
  }

  /** The same, without a promise when there is room already (once per launch window). */
  private room(): number | Promise<number> {
    if (this.stopped()) return 0;
    if (this.inFlight >= this.maxInFlight()) return this.roomSlowly();
    const pending = this.options.ready?.();
    if (pending !== undefined) return pending.then(() => (this.stopped() ? 0 : Math.max(1, this.maxInFlight() - this.inFlight)));
    return this.maxInFlight() - this.inFlight;
  }

  /**
   * How many of `count` requests the pace lets leave (window, throttle pause, rate): a number
   * when that is known at once, else a promise of it; 0 when the run is to stop launching.
   */
  private admitted(count: number): number | Promise<number> {
    const pace = this.pace;
    if (pace === undefined) return count;
    const n = pace.pacer.admit(this.options.signal, count);
    if (typeof n === 'number') return n;
    return n.then(
      (k) => (this.stopped() ? 0 : k),
      (error: unknown) => {
        if (!this.options.signal.aborted) throw error;
        return 0;
      },
    );
  }

  /**
   * How many of `waiting` requests may launch now (room, then pace): a number when that is known
   * at once (no promise once per launch window), else a promise of it; 0 when the run is to stop.
   */
  private howMany(waiting: number): number | Promise<number> {
    const free = this.room();
    if (typeof free !== 'number') return this.howManySlowly(free, waiting);
    return free === 0 ? 0 : this.admitted(Math.min(free, waiting));
  }

  private async howManySlowly(room: Promise<number>, waiting: number): Promise<number> {
    const free = await room;
    if (free === 0) return 0;
    const a = this.admitted(Math.min(free, waiting));
    return typeof a === 'number' ? a : await a;
  }

  private async launchRetries(): Promise<boolean> {
    while (this.retries.length > 0) {
      const n = this.howMany(this.retries.length);
      const take = typeof n === 'number' ? n : await n;
      if (take === 0) return false;
      const relaunched = this.retries.splice(0, take);
      // Counted when sent again: a throttled request the run gave up on was not retried.
      this.summary.throttleRetries += relaunched.length;
      this.launchWindow(relaunched.map((retry) => retry.request));
    }
    return true;
  }

  /** Launches the released requests (each checked again at its launch instant). */
  private async launchReleased(): Promise<boolean> {
    while (this.released.length > 0) {
      const n = this.howMany(this.released.length);
      const take = typeof n === 'number' ? n : await n;
      if (take === 0) return false;
      this.launchWindow(this.released.splice(0, take));
    }
    return true;
  }

  /** Sleeps until the earliest held group opens (nothing else to do); false when the run is to stop. */
  private async waitForHeld(): Promise<boolean> {
    const next = this.release();
    if (this.released.length > 0) return true;
    if (next === undefined) return true;
    try {
      await this.sleep(Math.max(0, next - this.hold!.now()), this.options.signal);
    } catch (error) {
      if (this.options.signal.aborted) return false;
      throw error;
    }
    this.pace?.pacer.rested?.();
    this.release();
    return !this.stopped();
  }
}
