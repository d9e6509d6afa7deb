import { setMaxListeners } from 'node:events';
import type { SendAnswer } from '../api/messages.js';
import { describeError, NetworkError } from '../errors.js';
import { messageIdsOf, type JournalRecord } from './journal/format.js';
import { classifyFailure, type SendFailure } from './outcome.js';

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

export interface BulkRequest<P> {
  to: string[];
  payload: P;
  /** The group of the recipient's own send window (per-recipient quiet hours), when there is one. */
  zone?: string;
}

/**
 * Per-recipient send windows: asked at the instant a request would launch. `until` answers
 * undefined (launch it) or the instant its window opens (held until then, under `key`, while the
 * others go on). `onHold` hears when a group starts waiting.
 */
export interface BulkHold<P> {
  until(request: BulkRequest<P>, now: number): { key: string; at: number } | undefined;
  now(): number;
  onHold?(key: string, at: number): void;
}

export type BulkResult =
  | { to: string[]; outcome: 'accepted'; answer: SendAnswer }
  | ({ to: string[] } & SendFailure);

/** Where the engine journals: launches before they leave, then each answer. */
export interface JournalSink {
  /** Records the requests as in flight; returns a sequence number for each, for its result. */
  launch(requests: readonly { readonly to: readonly string[] }[]): number[];
  result(seq: number, record: JournalRecord): unknown;
  /**
   * The request launched as `seq` was throttled (429, or 503 with Retry-After): not processed, and
   * sent again under a new launch. Closes the launch without an outcome for its recipients.
   */
  throttled?(seq: number, record: JournalRecord): unknown;
}

/**
 * The pace of a bulk send (src/send/pace/pacer.ts): when requests may leave, how many may be in
 * flight, and what a throttled answer means. Without it the engine sends at `concurrency`.
 */
export interface BulkPace {
  /**
   * How many of `count` requests may leave now (at least 1; send window, throttle pause, rate),
   * or a promise of that number once some may; the promise rejects on abort.
   */
  admit(signal: AbortSignal, count: number): number | Promise<number>;
  /** Requests allowed in flight now (the engine never exceeds `concurrency` either). */
  readonly limit: number;
  /** The run waited for its recipients' windows (no stall: the service was not asked). */
  rested?(): void;
  launched(): number;
  accepted(): void;
  throttled(ticket: number, status: number, retryAfterMs: number | undefined): 'retry' | 'give-up';
}

/** The throttle an error stands for (429, or 503 with Retry-After), or undefined. */
export type ThrottleReader = (error: unknown) => { status: number; retryAfterMs: number | undefined } | undefined;

/** After the abort signal, requests in flight have this long to answer (SIGTERM's grace period). */
export const DEFAULT_GRACE_MS = 10_000;

/**
 * Connection failures in a row (nothing answered in between, not even with an error) after which
 * the service is taken to be unreachable and nothing more is launched. Five: a single dropped
 * connection or a restart of one node is ridden over; a service that is down costs a handful of
 * requests, not the rest of the file.
 */
export const UNREACHABLE_AFTER = 5;

export interface BulkOptions<P> {
  /** The requests, in batches (one asynchronous step per batch, not per request). */
  requests: AsyncIterable<readonly BulkRequest<P>[]>;
  /** Sends one request; `cutOff` aborts when the grace period after the abort signal ends. */
  send(request: BulkRequest<P>, cutOff: AbortSignal): Promise<SendAnswer>;
  concurrency: number;
  journal?: JournalSink | undefined;
  /** Aborted: launch nothing more, finish what is in flight. */
  signal: AbortSignal;
  /** How long requests in flight may take after the abort signal (default DEFAULT_GRACE_MS). */
  graceMs?: number;
  /** Waits (the injected clock in tests); a rejection ends the wait early. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Each result, after it is journaled, with the request it answers. */
  onResult(result: BulkResult, request: BulkRequest<P>): void;
  /** Backpressure: when it returns a promise, no request is launched until it settles. */
  ready?: () => Promise<void> | undefined;
  /** Paces the launches and makes throttled answers retries instead of failures. */
  pace?: { pacer: BulkPace; throttleOf: ThrottleReader } | undefined;
  /** Connection failures in a row that stop the launches (default UNREACHABLE_AFTER). */
  unreachableAfter?: number;
  /** Holds requests outside their recipient's own send window (see BulkHold). */
  hold?: BulkHold<P> | undefined;
}

export interface BulkSummary {
  requests: number;
  accepted: number;
  rejected: number;
  unknown: number;
  /** Stopped early by the signal. */
  interrupted: boolean;
  /** The first failure, for the exit code when every request failed. */
  firstFailure: SendFailure | undefined;
  /** Throttled answers sent again. */
  throttleRetries: number;
  /** Gave up: nothing was accepted for --max-stall while the service throttled. */
  stalled: boolean;
  /**
   * Stopped launching: this many connection failures came in a row, with `reason` the last one's
   * message (the service looks unreachable). Undefined when the run did not stop for that.
   */
  unreachable: { failures: number; reason: string } | undefined;
}

function stringField(answer: SendAnswer, name: string): string | undefined {
  const value = answer[name];
  return typeof value === 'string' ? value : undefined;
}

export function journalRecordFor(result: BulkResult): JournalRecord {
  if (result.outcome === 'accepted') {
    // One object a request, no spreads: this runs for every answer of a bulk send.
    const record: JournalRecord = { to: result.to, outcome: 'accepted' };
    const messageId = stringField(result.answer, 'messageId');
    const status = stringField(result.answer, 'status');
    if (messageId !== undefined) record.messageId = messageId;
    // Several --to recipients in one request: each has its own message id in the answer's `messages`.
    if (result.to.length > 1) {
      const messageIds = messageIdsOf(result.to, result.answer);
      if (messageIds !== undefined) record.messageIds = messageIds;
    }
    if (status !== undefined) record.status = status;
    return record;
  }
  const { status, message, title, errorCode } = result.error;
  return {
    to: result.to,
    outcome: result.outcome,
    error: { message, status, ...(title !== null ? { title } : {}), ...(errorCode !== null ? { errorCode } : {}) },
  };
}

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
  const concurrency = Math.max(1, Math.floor(options.concurrency));
  const summary: BulkSummary = {
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
  const unreachableAfter = Math.max(1, Math.floor(options.unreachableAfter ?? UNREACHABLE_AFTER));
  /** Connection failures since the service last answered anything. */
  let connectionFailures = 0;
  const answered = (): void => {
    connectionFailures = 0;
  };
  const connectionFailed = (error: unknown): void => {
    connectionFailures++;
    if (connectionFailures >= unreachableAfter && summary.unreachable === undefined) {
      summary.unreachable = { failures: connectionFailures, reason: describeError(error).message };
    }
  };
  const journal = options.journal;
  const pace = options.pace;
  const maxInFlight = (): number => (pace === undefined ? concurrency : Math.max(1, Math.min(concurrency, pace.pacer.limit)));
  /** Throttled requests waiting to be sent again, before any new one; with their last answer. */
  const retries: { request: BulkRequest<P>; failure: BulkResult }[] = [];
  let inFlight = 0;
  let wake: (() => void) | undefined;
  // A journal that cannot be written stops the run: going on would send without a record.
  let fatal: { error: unknown } | undefined;
  const cutOff = new AbortController();
  // Every request in flight listens on it: as many listeners as the window is wide.
  setMaxListeners(0, cutOff.signal);
  const graceOver = new AbortController();
  const waitForSlot = (): Promise<void> =>
    new Promise<void>((resolve) => {
      wake = resolve;
    });
  const onAbort = (): void => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
    // The grace period: what is still in flight when it ends is cut off (and journaled unknown).
    const sleep = options.sleep ?? defaultSleep;
    sleep(options.graceMs ?? DEFAULT_GRACE_MS, graceOver.signal).then(
      () => cutOff.abort(),
      () => undefined,
    );
  };
  if (options.signal.aborted) onAbort();
  else options.signal.addEventListener('abort', onAbort, { once: true });

  const finish = (seq: number, result: BulkResult, request: BulkRequest<P>): void => {
    if (fatal !== undefined) return;
    try {
      journal?.result(seq, journalRecordFor(result));
    } catch (error) {
      fatal = { error };
      return;
    }
    if (result.outcome === 'accepted') summary.accepted++;
    else {
      if (result.outcome === 'rejected') summary.rejected++;
      else summary.unknown++;
      summary.firstFailure ??= { outcome: result.outcome, error: result.error, exitCode: result.exitCode };
    }
    options.onResult(result, request);
  };

  // The launcher is woken at the end of the event-loop turn rather than by each answer: the
  // answers that arrive in one turn free their slots together, so their successors go out in one
  // launch window (one journal write for all their launch records, with the turn's results ahead
  // of them) instead of one write per answer.
  let wakeScheduled = false;
  const wakeLauncher = (): void => {
    wakeScheduled = false;
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  const settled = (): void => {
    inFlight--;
    if (wake === undefined || wakeScheduled) return;
    wakeScheduled = true;
    setImmediate(wakeLauncher);
  };

  /** Held requests by window group: when the group opens, and its requests in order. */
  const held = new Map<string, { at: number; requests: BulkRequest<P>[] }>();
  /** Held requests whose window has opened, to be launched before new ones. */
  const released: BulkRequest<P>[] = [];
  const hold = options.hold;
  /** Sets aside the requests whose window is closed at this instant; the rest launch. */
  const holdClosed = (window: readonly BulkRequest<P>[]): readonly BulkRequest<P>[] => {
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
      let group = held.get(closed.key);
      if (group === undefined) {
        held.set(closed.key, (group = { at: closed.at, requests: [] }));
        hold.onHold?.(closed.key, closed.at);
      }
      group.requests.push(request);
    }
    return open ?? window;
  };
  /** Moves the held groups whose window has opened to `released`; the earliest opening still ahead. */
  const release = (): number | undefined => {
    if (held.size === 0) return undefined;
    const now = hold!.now();
    let next: number | undefined;
    for (const [key, group] of held) {
      if (group.at <= now) {
        held.delete(key);
        for (const request of group.requests) released.push(request);
      } else next = next === undefined ? group.at : Math.min(next, group.at);
    }
    return next;
  };

  const launchWindow = (given: readonly BulkRequest<P>[]): void => {
    const window = holdClosed(given);
    if (window.length === 0) return;
    let seqs: number[] | undefined;
    if (journal !== undefined) {
      try {
        seqs = journal.launch(window);
      } catch (error) {
        fatal = { error };
        return;
      }
    }
    for (let i = 0; i < window.length; i++) {
      const request = window[i]!;
      const seq = seqs?.[i] ?? 0;
      const ticket = pace?.pacer.launched() ?? 0;
      inFlight++;
      summary.requests++;
      // The slot is freed first: the launcher's wake-up is then queued ahead of the journal's
      // end-of-turn write of this turn's results, so that those go out in the next launch
      // window's write instead of a write of their own (and no third promise per request).
      options.send(request, cutOff.signal).then(
        (answer) => {
          settled();
          answered();
          pace?.pacer.accepted();
          finish(seq, { to: request.to, outcome: 'accepted', answer }, request);
        },
        (error: unknown) => {
          settled();
          // Any answer, even an error status, shows the service is there; a connection failure
          // (refused, reset, timed out) does not, whether or not the request had left.
          if (error instanceof NetworkError) connectionFailed(error);
          else answered();
          if (!throttled(seq, ticket, request, error)) finish(seq, { to: request.to, ...classifyFailure(error) }, request);
        },
      );
    }
  };

  /**
   * A throttled answer is not a failure: journaled as throttled and queued to be sent again, or
   * final (rejected with this answer) once nothing has been accepted for --max-stall.
   */
  const throttled = (seq: number, ticket: number, request: BulkRequest<P>, error: unknown): boolean => {
    const throttle = pace?.throttleOf(error);
    if (pace === undefined || throttle === undefined || fatal !== undefined || options.signal.aborted) return false;
    const failure: BulkResult = { to: request.to, ...classifyFailure(error) };
    if (summary.stalled || pace.pacer.throttled(ticket, throttle.status, throttle.retryAfterMs) === 'give-up') {
      summary.stalled = true;
      return false;
    }
    try {
      journal?.throttled?.(seq, journalRecordFor(failure));
    } catch (journalError) {
      fatal = { error: journalError };
      return true;
    }
    retries.push({ request, failure });
    return true;
  };

  const stopped = (): boolean => options.signal.aborted || fatal !== undefined || summary.stalled || summary.unreachable !== undefined;
  /** Waits for room and backpressure; the room there is, or 0 when the run is to stop launching. */
  const roomSlowly = async (): Promise<number> => {
    while (inFlight >= maxInFlight() && !stopped()) await waitForSlot();
    const pending = options.ready?.();
    if (pending !== undefined) await pending;
    return stopped() ? 0 : Math.max(1, maxInFlight() - inFlight);
  };
  /** The same, without a promise when there is room already (once per launch window). */
  const room = (): number | Promise<number> => {
    if (stopped()) return 0;
    if (inFlight >= maxInFlight()) return roomSlowly();
    const pending = options.ready?.();
    if (pending !== undefined) return pending.then(() => (stopped() ? 0 : Math.max(1, maxInFlight() - inFlight)));
    return maxInFlight() - inFlight;
  };
  /**
   * How many of `count` requests the pace lets leave (window, throttle pause, rate): a number
   * when that is known at once, else a promise of it; 0 when the run is to stop launching.
   */
  const admitted = (count: number): number | Promise<number> => {
    if (pace === undefined) return count;
    const n = pace.pacer.admit(options.signal, count);
    if (typeof n === 'number') return n;
    return n.then(
      (k) => (stopped() ? 0 : k),
      (error: unknown) => {
        if (!options.signal.aborted) throw error;
        return 0;
      },
    );
  };
  const launchRetries = async (): Promise<boolean> => {
    while (retries.length > 0) {
      const r = room();
      const free = typeof r === 'number' ? r : await r;
      if (free === 0) return false;
      const a = admitted(Math.min(free, retries.length));
      const take = typeof a === 'number' ? a : await a;
      if (take === 0) return false;
      const relaunched = retries.splice(0, take);
      // Counted when sent again: a throttled request the run gave up on was not retried.
      summary.throttleRetries += relaunched.length;
      launchWindow(relaunched.map((retry) => retry.request));
    }
    return true;
  };
  /** Launches the released requests (each checked again at its launch instant). */
  const launchReleased = async (): Promise<boolean> => {
    while (released.length > 0) {
      const r = room();
      const free = typeof r === 'number' ? r : await r;
      if (free === 0) return false;
      const a = admitted(Math.min(free, released.length));
      const take = typeof a === 'number' ? a : await a;
      if (take === 0) return false;
      launchWindow(released.splice(0, take));
    }
    return true;
  };
  /** Sleeps until the earliest held group opens (nothing else to do); false when the run is to stop. */
  const waitForHeld = async (): Promise<boolean> => {
    const next = release();
    if (released.length > 0) return true;
    if (next === undefined) return true;
    const sleep = options.sleep ?? defaultSleep;
    try {
      await sleep(Math.max(0, next - hold!.now()), options.signal);
    } catch (error) {
      if (options.signal.aborted) return false;
      throw error;
    }
    pace?.pacer.rested?.();
    release();
    return !stopped();
  };
  let readError: { error: unknown } | undefined;
  try {
    batches: for await (const batch of options.requests) {
      let next = 0;
      while (next < batch.length) {
        if (retries.length > 0 && !(await launchRetries())) break batches;
        if (held.size > 0) release();
        if (released.length > 0 && !(await launchReleased())) break batches;
        const r = room();
        const free = typeof r === 'number' ? r : await r;
        if (free === 0) break batches;
        const a = admitted(Math.min(free, batch.length - next));
        const take = typeof a === 'number' ? a : await a;
        if (take === 0) break batches;
        launchWindow(take === batch.length ? batch : batch.slice(next, next + take));
        next += take;
      }
    }
    // The file is done; throttled requests may still come back to be sent again, and held ones
    // wait for their windows.
    while (!stopped() && (retries.length > 0 || inFlight > 0 || held.size > 0 || released.length > 0)) {
      if (retries.length > 0) {
        if (!(await launchRetries())) break;
      } else if (held.size > 0) release();
      if (released.length > 0) {
        if (!(await launchReleased())) break;
      } else if (inFlight > 0) {
        await waitForSlot();
      } else if (held.size > 0 && retries.length === 0) {
        if (!(await waitForHeld())) break;
      }
    }
  } catch (error) {
    readError = { error };
  }
  while (inFlight > 0) await waitForSlot();
  if (summary.stalled) {
    // Given up: the throttled requests still queued end with their last answer. Their launches
    // were closed as throttled, so each gets a launch record again before its result.
    const left = retries.splice(0);
    if (left.length > 0 && fatal === undefined) {
      let seqs: number[] | undefined;
      try {
        seqs = journal?.launch(left.map((retry) => retry.request));
      } catch (error) {
        fatal = { error };
      }
      left.forEach((retry, i) => finish(seqs?.[i] ?? 0, retry.failure, retry.request));
    }
  }
  graceOver.abort();
  options.signal.removeEventListener('abort', onAbort);
  summary.interrupted = options.signal.aborted;
  if (fatal !== undefined) throw fatal.error;
  if (readError !== undefined) throw readError.error;
  return summary;
}
