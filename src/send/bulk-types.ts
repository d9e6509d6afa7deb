import type { SendAnswer } from '../api/messages.js';
import { messageIdsOf, type JournalRecord } from './journal/format.js';
import type { SendFailure } from './outcome.js';

// What the bulk-send engine (engine.ts) takes and gives: the requests it pulls, the results it
// hands on, where it journals, how it is paced and what it sums up; and the journal record a
// result becomes. Kept apart from the engine so that the send's run, resume and summary name
// these shapes without reaching into how the engine schedules.

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
