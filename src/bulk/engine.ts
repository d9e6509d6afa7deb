import { setMaxListeners } from 'node:events';
import type { SendAnswer } from '../api/messages.js';
import type { JournalRecord } from '../send/journal.js';
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
// Nothing about a request is kept once its result has been handed on, so memory depends on the
// window, not on the number of recipients.

export interface BulkRequest<P> {
  to: string[];
  payload: P;
}

export type BulkResult =
  | { to: string[]; outcome: 'accepted'; answer: SendAnswer }
  | ({ to: string[] } & SendFailure);

/** Where the engine journals: launches before they leave, then each answer. */
export interface JournalSink {
  /** Records the requests as in flight; returns a sequence number for each, for its result. */
  launch(requests: readonly { readonly to: readonly string[] }[]): number[];
  result(seq: number, record: JournalRecord): unknown;
}

/** After the abort signal, requests in flight have this long to answer (SIGTERM's grace period). */
export const DEFAULT_GRACE_MS = 10_000;

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
  const summary: BulkSummary = { requests: 0, accepted: 0, rejected: 0, unknown: 0, interrupted: false, firstFailure: undefined };
  const journal = options.journal;
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

  const finish = (seq: number, result: BulkResult): void => {
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
    options.onResult(result);
  };

  const settled = (): void => {
    inFlight--;
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };

  const launchWindow = (window: readonly BulkRequest<P>[]): void => {
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
      inFlight++;
      summary.requests++;
      options
        .send(request, cutOff.signal)
        .then(
          (answer) => finish(seq, { to: request.to, outcome: 'accepted', answer }),
          (error: unknown) => finish(seq, { to: request.to, ...classifyFailure(error) }),
        )
        .finally(settled);
    }
  };

  const stopped = (): boolean => options.signal.aborted || fatal !== undefined;
  let readError: { error: unknown } | undefined;
  try {
    batches: for await (const batch of options.requests) {
      let next = 0;
      while (next < batch.length) {
        while (inFlight >= concurrency && !stopped()) await waitForSlot();
        const pending = options.ready?.();
        if (pending !== undefined) await pending;
        if (stopped()) break batches;
        const room = Math.min(concurrency - inFlight, batch.length - next);
        launchWindow(room === batch.length ? batch : batch.slice(next, next + room));
        next += room;
      }
    }
  } catch (error) {
    readError = { error };
  }
  while (inFlight > 0) await waitForSlot();
  graceOver.abort();
  options.signal.removeEventListener('abort', onAbort);
  summary.interrupted = options.signal.aborted;
  if (fatal !== undefined) throw fatal.error;
  if (readError !== undefined) throw readError.error;
  return summary;
}
