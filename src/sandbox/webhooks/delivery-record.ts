// One event's delivery as the dispatcher holds it, and the one table of how it moves:
//
//   waiting --due--> ready --start--> in-flight --delivered--> delivered
//      ^                ^                 |  |---give-up / refused--> failed --replay--> ready
//      |                |---aborted-------|  (close() cut the attempt short: as it was)
//      |------retry-----------------------|
//
// Every change of phase goes through move(), which refuses a step the table does not list, so
// that the scheduler, the delivery and the failure queue cannot disagree about where an event is.

import { newDeliveryId, webhookBody } from '../../domain/webhook-delivery.js';
import type { AttemptResult } from './deliver.js';
import { nextAttemptAt } from './retry-schedule.js';
import type { PendingDelivery } from './saved-state.js';
import type { FailedEvent, WebhookEventKind, WebhookTarget } from './types.js';

export type DeliveryPhase = 'waiting' | 'ready' | 'in-flight' | 'delivered' | 'failed';
export type DeliveryStep = 'due' | 'start' | 'delivered' | 'retry' | 'give-up' | 'refused' | 'aborted' | 'replay';

const TRANSITIONS: Readonly<Record<DeliveryPhase, Readonly<Partial<Record<DeliveryStep, DeliveryPhase>>>>> = {
  waiting: { due: 'ready' },
  ready: { start: 'in-flight' },
  'in-flight': { delivered: 'delivered', retry: 'waiting', 'give-up': 'failed', refused: 'failed', aborted: 'ready' },
  delivered: {},
  failed: { replay: 'ready' },
};

/** A pending event in memory: its payload serialized once, as the bytes every attempt sends. */
export interface DeliveryRecord extends Omit<PendingDelivery, 'body'> {
  phase: DeliveryPhase;
  bytes: Buffer;
}

/** Moves a record by one step of the table; a step the table does not list is a bug, and throws. */
export function move(record: DeliveryRecord, step: DeliveryStep): void {
  const next = TRANSITIONS[record.phase][step];
  if (next === undefined) throw new Error(`webhook delivery ${record.deliveryId}: no step "${step}" from ${record.phase}`);
  record.phase = next;
}

export { newDeliveryId };

/** A fresh delivery due at `nowMs`: a new event, or a replayed one (same id, fresh schedule and window). */
export function newDelivery(deliveryId: string, event: WebhookEventKind, target: WebhookTarget, payload: unknown, nowMs: number): DeliveryRecord {
  return {
    phase: 'waiting',
    deliveryId,
    event,
    target: { ...target },
    bytes: webhookBody(payload),
    attempts: 0,
    firstAttemptAtMs: null,
    lastAttemptAtMs: null,
    nextAttemptAtMs: nowMs,
    lastStatus: null,
    lastError: null,
  };
}

/**
 * Writes what a finished attempt tells into the record (times, count, last answer, when to try
 * again) and returns the step it calls for; the caller makes the move and places the record.
 */
export function recordAttempt(record: DeliveryRecord, result: Exclude<AttemptResult, { kind: 'aborted' }>, timeScale: number): 'delivered' | 'retry' | 'give-up' | 'refused' {
  record.firstAttemptAtMs ??= result.startedAt;
  if (result.kind === 'refused') {
    record.lastAttemptAtMs = result.startedAt;
    record.lastStatus = null;
    record.lastError = result.reason;
    return 'refused';
  }
  const last = result.outcomes[result.outcomes.length - 1]!;
  record.attempts += 1;
  record.lastAttemptAtMs = result.endedAt;
  record.lastStatus = last.status;
  record.lastError = last.error;
  if (last.error === null) return 'delivered';
  const dueAt = nextAttemptAt(record.attempts, result.outcomes, result.endedAt, record.firstAttemptAtMs, timeScale);
  if (dueAt === null) return 'give-up';
  record.nextAttemptAtMs = dueAt;
  return 'retry';
}

export function toSaved({ bytes, phase: _phase, ...rest }: DeliveryRecord): PendingDelivery {
  return { ...rest, target: { ...rest.target }, body: bytes.toString('utf8') };
}

export function fromSaved({ body, ...rest }: PendingDelivery): DeliveryRecord {
  return { ...rest, phase: 'waiting', target: { ...rest.target }, bytes: Buffer.from(body, 'utf8') };
}

/** The failure-queue entry of a record that has just failed for good. */
export function toFailedEvent(record: DeliveryRecord, nowMs: number): FailedEvent {
  const iso = (ms: number | null): string => new Date(ms ?? nowMs).toISOString();
  return {
    deliveryId: record.deliveryId,
    event: record.event,
    tenantId: record.target.tenantId,
    attempts: record.attempts,
    firstAttemptAt: iso(record.firstAttemptAtMs),
    lastAttemptAt: iso(record.lastAttemptAtMs),
    lastStatus: record.lastStatus,
    lastError: record.lastError,
    payload: parseBody(record.bytes.toString('utf8')),
  };
}

function parseBody(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return body;
  }
}
