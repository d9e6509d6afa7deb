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
}

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
  const summary: BulkSummary = { requests: 0, accepted: 0, rejected: 0, unknown: 0, interrupted: false, firstFailure: undefined };
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

  const launch = (request: BulkRequest<P>): void => {
    inFlight++;
    summary.requests++;
    options.send(request).then(
      (answer) => finish({ to: request.to, outcome: 'accepted', answer }),
      (error: unknown) => finish({ to: request.to, ...classifyFailure(error) }),
    ).finally(() => {
      inFlight--;
      const resolve = wake;
      wake = undefined;
      resolve?.();
    });
  };

  const stopped = (): boolean => options.signal.aborted || fatal !== undefined;
  let readError: { error: unknown } | undefined;
  try {
    batches: for await (const batch of options.requests) {
      for (const request of batch) {
        while (inFlight >= concurrency && !stopped()) await waitForSlot();
        const pending = options.ready?.();
        if (pending !== undefined) await pending;
        if (stopped()) break batches;
        launch(request);
      }
    }
  } catch (error) {
    readError = { error };
  }
  while (inFlight > 0) await waitForSlot();
  options.signal.removeEventListener('abort', onAbort);
  summary.interrupted = options.signal.aborted;
  if (fatal !== undefined) throw fatal.error;
  if (readError !== undefined) throw readError.error;
  return summary;
}
