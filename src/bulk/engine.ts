import type { SendAnswer } from '../api/messages.js';
import type { JournalRecord } from '../send/journal.js';
import { classifyFailure, type SendFailure } from './outcome.js';

// The bulk-send engine: pulls requests from a stream, keeps at most `concurrency` of them in
// flight, journals each answer the moment it arrives (before anything else is done with it),
// and stops launching on Ctrl-C while letting the requests in flight finish and be journaled.
//
// Nothing about a request is kept once its result has been handed on, so memory depends on the
// window, not on the number of recipients.

export interface BulkRequest<P> {
  to: string[];
  payload: P;
}

export type BulkResult =
  | { to: string[]; outcome: 'accepted'; answer: SendAnswer }
  | ({ to: string[] } & SendFailure);

export interface JournalSink {
  record(record: JournalRecord): unknown;
  /** A throttled answer: the request was not processed and will be sent again (not an outcome). */
  throttled?(record: JournalRecord): unknown;
}

/**
 * The pace of a bulk send (src/send/pace/pacer.ts): when a request may leave, how many may be in
 * flight, and what a throttled answer means. Without it the engine sends at `concurrency`.
 */
export interface BulkPace {
  /** Resolves when a request may leave (send window, throttle pause, rate); rejects on abort. */
  admit(signal: AbortSignal): Promise<void>;
  /** Requests allowed in flight now (at most `concurrency`). */
  readonly limit: number;
  launched(): number;
  accepted(): void;
  throttled(ticket: number, status: number, retryAfterMs: number | undefined): 'retry' | 'give-up';
}

/** The throttle an error stands for (429, or 503 with Retry-After), or undefined. */
export type ThrottleReader = (error: unknown) => { status: number; retryAfterMs: number | undefined } | undefined;

export interface BulkOptions<P> {
  /** The requests, in batches (one asynchronous step per batch, not per request). */
  requests: AsyncIterable<readonly BulkRequest<P>[]>;
  send(request: BulkRequest<P>): Promise<SendAnswer>;
  concurrency: number;
  journal?: JournalSink | undefined;
  /** Aborted: launch nothing more, finish what is in flight. */
  signal: AbortSignal;
  /** Each result, after it is journaled. */
  onResult(result: BulkResult): void;
  /** Backpressure: when it returns a promise, no request is launched until it settles. */
  ready?: () => Promise<void> | undefined;
  /** Paces the launches and makes throttled answers retries instead of failures. */
  pace?: { pacer: BulkPace; throttleOf: ThrottleReader } | undefined;
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
}

function stringField(answer: SendAnswer, name: string): string | undefined {
  const value = answer[name];
  return typeof value === 'string' ? value : undefined;
}

export function journalRecordFor(result: BulkResult): JournalRecord {
  if (result.outcome === 'accepted') {
    const messageId = stringField(result.answer, 'messageId');
    const status = stringField(result.answer, 'status');
    return { to: result.to, outcome: 'accepted', ...(messageId !== undefined ? { messageId } : {}), ...(status !== undefined ? { status } : {}) };
  }
  const { status, message, title, errorCode } = result.error;
  return {
    to: result.to,
    outcome: result.outcome,
    error: { message, status, ...(title !== null ? { title } : {}), ...(errorCode !== null ? { errorCode } : {}) },
  };
}

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
  };
  const pace = options.pace;
  const maxInFlight = (): number => (pace === undefined ? concurrency : Math.min(concurrency, pace.pacer.limit));
  /** Throttled requests waiting to be sent again, before any new one; with their last answer. */
  const retries: { request: BulkRequest<P>; failure: BulkResult }[] = [];
  let inFlight = 0;
  let wake: (() => void) | undefined;
  // A journal that cannot be written stops the run: going on would send without a record.
  let fatal: { error: unknown } | undefined;
  const waitForSlot = (): Promise<void> =>
    new Promise<void>((resolve) => {
      wake = resolve;
    });
  const onAbort = (): void => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  options.signal.addEventListener('abort', onAbort, { once: true });

  const finish = (result: BulkResult): void => {
    if (fatal !== undefined) return;
    try {
      options.journal?.record(journalRecordFor(result));
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
    options.onResult(result);
  };

  /** A throttled answer: journaled as such and queued again, or final when the run has stalled. */
  const throttled = (request: BulkRequest<P>, ticket: number, error: unknown): boolean => {
    const throttle = pace?.throttleOf(error);
    if (pace === undefined || throttle === undefined || fatal !== undefined) return false;
    const failure: BulkResult = { to: request.to, ...classifyFailure(error) };
    if (summary.stalled || pace.pacer.throttled(ticket, throttle.status, throttle.retryAfterMs) === 'give-up') {
      summary.stalled = true;
      finish(failure);
      return true;
    }
    try {
      options.journal?.throttled?.(journalRecordFor(failure));
    } catch (journalError) {
      fatal = { error: journalError };
      return true;
    }
    summary.throttleRetries++;
    retries.push({ request, failure });
    return true;
  };

  const launch = (request: BulkRequest<P>): void => {
    inFlight++;
    summary.requests++;
    const ticket = pace?.pacer.launched() ?? 0;
    options.send(request).then(
      (answer) => {
        pace?.pacer.accepted();
        finish({ to: request.to, outcome: 'accepted', answer });
      },
      (error: unknown) => {
        if (!throttled(request, ticket, error)) finish({ to: request.to, ...classifyFailure(error) });
      },
    ).finally(() => {
      inFlight--;
      const resolve = wake;
      wake = undefined;
      resolve?.();
    });
  };

  const stopped = (): boolean => options.signal.aborted || fatal !== undefined || summary.stalled;
  /** Waits for room, backpressure and the pace; false when the run is to stop launching. */
  const gate = async (): Promise<boolean> => {
    while (inFlight >= maxInFlight() && !stopped()) await waitForSlot();
    const pending = options.ready?.();
    if (pending !== undefined) await pending;
    if (pace !== undefined && !stopped()) {
      try {
        await pace.pacer.admit(options.signal);
      } catch (error) {
        if (!options.signal.aborted) throw error;
      }
    }
    return !stopped();
  };
  const launchRetries = async (): Promise<boolean> => {
    while (retries.length > 0) {
      if (!(await gate())) return false;
      const retry = retries.shift();
      if (retry !== undefined) launch(retry.request);
    }
    return true;
  };
  let readError: { error: unknown } | undefined;
  try {
    batches: for await (const batch of options.requests) {
      for (const request of batch) {
        if (retries.length > 0 && !(await launchRetries())) break batches;
        if (!(await gate())) break batches;
        launch(request);
      }
    }
    // The file is done; throttled requests may still come back to be sent again.
    while (!stopped() && (retries.length > 0 || inFlight > 0)) {
      if (retries.length > 0) {
        if (!(await launchRetries())) break;
      } else {
        await waitForSlot();
      }
    }
  } catch (error) {
    readError = { error };
  }
  while (inFlight > 0) await waitForSlot();
  if (summary.stalled) {
    // Given up: the throttled requests still queued end with their last answer.
    for (const retry of retries.splice(0)) finish(retry.failure);
  }
  options.signal.removeEventListener('abort', onAbort);
  summary.interrupted = options.signal.aborted;
  if (fatal !== undefined) throw fatal.error;
  if (readError !== undefined) throw readError.error;
  return summary;
}
