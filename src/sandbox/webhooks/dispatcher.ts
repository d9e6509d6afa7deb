// The sandbox's webhook dispatcher: applies the tenant's event filter, then delivers each event
// to the primary URI (and at once to the secondary when the primary fails), retrying with the
// schedule of retry-schedule.ts until the 24 h window closes and the event goes to the failure
// queue. Its parts: delivery-record.ts (an event's record and the table of its phases),
// delivery-schedule.ts (when: one heap, one timer), deliver.ts (one attempt over HTTP),
// retry-schedule.ts (the next attempt or none), saved-state.ts (what --state saves and checks).
// This module holds them together: the live records, the concurrency bound, the failure queue.

import { WEBHOOK_ANSWER_TIMEOUT_MS } from '../../domain/webhook-delivery.js';
import { createWebhookAgents, type InFlightPost } from './post-webhook.js';
import { AttemptHistory } from './attempt-history.js';
import { attemptDelivery, type AttemptResult } from './deliver.js';
import { fromSaved, move, newDelivery, newDeliveryId, toFailedEvent, toSaved, type DeliveryRecord } from './delivery-record.js';
import { DeliverySchedule } from './delivery-schedule.js';
import { assertTimeScale, nextAttemptAt } from './retry-schedule.js';
import { isDeliveryAttempt, isFailedEvent, isPendingDelivery, validEntries, type PendingDelivery } from './saved-state.js';
import type { FailedEvent, WebhookDispatcher, WebhookDispatcherOptions, WebhookDispatcherState, WebhookEventKind, WebhookTarget } from './types.js';

export { retryDelayMs, parseRetryAfterMs, retryWindowMs } from './retry-schedule.js';
export { isPendingDelivery, isWebhookTarget, type PendingDelivery } from './saved-state.js';
export { newDeliveryId } from './delivery-record.js';
export { WEBHOOK_USER_AGENT } from './deliver.js';

export const DEFAULT_ATTEMPT_TIMEOUT_MS = WEBHOOK_ANSWER_TIMEOUT_MS;
export const DEFAULT_HISTORY_LIMIT = 1_000;
export const DEFAULT_MAX_CONCURRENT_ATTEMPTS = 64;

/** Tuning that the sandbox's API does not need to know about. */
export interface DispatcherTuning {
  /** How many attempts (HTTP requests) are kept for deliveries() (default 1 000). */
  historyLimit?: number;
  /** How many events may be in an HTTP attempt at once (default 64); the rest wait their turn. */
  maxConcurrentAttempts?: number;
}

/** True when the tenant's filter lets this event through (docs/decisions.md#webhooks). */
export function eventPassesFilter(target: WebhookTarget, event: WebhookEventKind): boolean {
  const filter = target.eventType ?? 'All';
  return filter === 'All' || filter === event;
}

/**
 * The dispatcher the sandbox's API calls. `onChange` runs synchronously after every state
 * change (one per event queued, attempted, failed or replayed): persist from it with a debounce,
 * since snapshot() copies every pending event.
 */
export function createWebhookDispatcher(options: WebhookDispatcherOptions & DispatcherTuning = {}): WebhookDispatcher {
  const timeScale = options.timeScale ?? 1;
  assertTimeScale(timeScale);
  const attemptTimeoutMs = options.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
  assertPositive('attemptTimeoutMs', attemptTimeoutMs);
  const historyLimit = options.historyLimit ?? DEFAULT_HISTORY_LIMIT;
  assertPositive('historyLimit', historyLimit);
  const maxConcurrent = options.maxConcurrentAttempts ?? DEFAULT_MAX_CONCURRENT_ATTEMPTS;
  assertPositive('maxConcurrentAttempts', maxConcurrent);
  const now = options.now ?? Date.now;

  const agents = createWebhookAgents(maxConcurrent);
  const history = new AttemptHistory(historyLimit);
  const schedule = new DeliverySchedule(now, pump);
  /** Every event still to be delivered (waiting, ready or in flight), by delivery id. */
  const live = new Map<string, DeliveryRecord>();
  /** The events in an attempt, with the requests under way (close() aborts them). */
  const inFlight = new Map<DeliveryRecord, Set<InFlightPost>>();
  const inFlightRuns = new Set<Promise<void>>();
  let failedEvents: FailedEvent[] = [];
  const idleWaiters: Array<() => void> = [];
  let closed = false;

  function notifyChange(): void {
    if (options.onChange === undefined) return;
    try {
      options.onChange();
    } catch {
      // A failing persistence hook must not stop deliveries; the next change calls it again.
    }
  }

  function settleIdleWaiters(): void {
    if (!closed && live.size > 0) return;
    for (const resolve of idleWaiters.splice(0)) resolve();
  }

  function admit(record: DeliveryRecord): void {
    live.set(record.deliveryId, record);
    schedule.add(record);
  }

  function pump(): void {
    while (!closed && inFlight.size < maxConcurrent) {
      const record = schedule.take();
      if (record === undefined) return;
      const run = runAttempt(record);
      inFlightRuns.add(run);
      void run.finally(() => inFlightRuns.delete(run));
    }
  }

  async function runAttempt(record: DeliveryRecord): Promise<void> {
    move(record, 'start');
    const posts = new Set<InFlightPost>();
    inFlight.set(record, posts);
    try {
      const result = await attemptDelivery(record, { agents, attemptTimeoutMs, now, history, posts, closing: () => closed });
      // Out of the in-flight set before its state changes, so that a snapshot taken by onChange
      // sees the event once, as it now is.
      inFlight.delete(record);
      settle(record, result);
    } finally {
      inFlight.delete(record);
      if (!closed) pump();
      settleIdleWaiters();
    }
  }

  /** What an attempt's result makes of the record: the one place a record leaves in-flight. */
  function settle(record: DeliveryRecord, result: AttemptResult): void {
    if (result.kind === 'aborted') {
      // Cut short by close(): the event stays pending as it was, for a snapshot.
      move(record, 'aborted');
      schedule.putBack(record);
      return;
    }
    record.firstAttemptAtMs ??= result.startedAt;
    if (result.kind === 'refused') {
      record.lastAttemptAtMs = result.startedAt;
      record.lastStatus = null;
      record.lastError = result.reason;
      fail(record, 'refused');
      return;
    }
    const last = result.outcomes[result.outcomes.length - 1]!;
    record.attempts += 1;
    record.lastAttemptAtMs = result.endedAt;
    record.lastStatus = last.status;
    record.lastError = last.error;
    if (last.error === null) {
      move(record, 'delivered');
      live.delete(record.deliveryId);
      notifyChange();
      return;
    }
    const dueAt = nextAttemptAt(record.attempts, result.outcomes, result.endedAt, record.firstAttemptAtMs, timeScale);
    if (dueAt === null) {
      fail(record, 'give-up');
      return;
    }
    move(record, 'retry');
    record.nextAttemptAtMs = dueAt;
    schedule.add(record);
    notifyChange();
  }

  function fail(record: DeliveryRecord, step: 'refused' | 'give-up'): void {
    move(record, step);
    live.delete(record.deliveryId);
    failedEvents.push(toFailedEvent(record, now()));
    notifyChange();
  }

  function snapshotPending(): PendingDelivery[] {
    // In-flight events are saved as due now: after a restart they are attempted again, which
    // receivers handle through X-Svc-Delivery (at-least-once delivery).
    return [...live.values()].map((record) =>
      record.phase === 'in-flight' ? { ...toSaved(record), nextAttemptAtMs: Math.min(record.nextAttemptAtMs, now()) } : toSaved(record),
    );
  }

  function failedCopy(): FailedEvent[] {
    return failedEvents.map((f) => ({ ...f }));
  }

  return {
    dispatch(target, event, payload) {
      if (closed) return null;
      if (!eventPassesFilter(target, event)) return null;
      if (target.primaryUri === undefined || target.primaryUri === '') return null;
      const record = newDelivery(newDeliveryId(), event, target, payload, now());
      admit(record);
      notifyChange();
      return record.deliveryId;
    },

    deliveries() {
      return history.list();
    },

    failed: failedCopy,

    replay(deliveryId, target) {
      if (closed) return false;
      const index = failedEvents.findIndex((f) => f.deliveryId === deliveryId);
      if (index < 0) return false;
      const [failedEvent] = failedEvents.splice(index, 1);
      // A replay is an explicit request: it goes to the tenant's current URIs whatever the
      // filter says now, with the same delivery id, a fresh schedule and a fresh 24 h window.
      admit(newDelivery(failedEvent!.deliveryId, failedEvent!.event, target, failedEvent!.payload, now()));
      notifyChange();
      return true;
    },

    idle() {
      if (closed || live.size === 0) return Promise.resolve();
      return new Promise<void>((resolve) => idleWaiters.push(resolve));
    },

    snapshot(): WebhookDispatcherState {
      return { pending: snapshotPending(), failed: failedCopy(), attempts: history.list() };
    },

    restore(state) {
      if (closed) return;
      for (const saved of validEntries(state.pending, isPendingDelivery)) {
        if (!live.has(saved.deliveryId)) admit(fromSaved(saved));
      }
      failedEvents = validEntries(state.failed, isFailedEvent).map((f) => ({ ...f }));
      history.replace(validEntries(state.attempts, isDeliveryAttempt));
      notifyChange();
      settleIdleWaiters();
    },

    async close() {
      if (closed) return;
      closed = true;
      schedule.close();
      for (const posts of inFlight.values()) for (const post of posts) post.abort();
      await Promise.allSettled([...inFlightRuns]);
      agents.destroy();
      settleIdleWaiters();
    },
  };
}

function assertPositive(name: string, value: number): void {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number, got ${value}`);
}
