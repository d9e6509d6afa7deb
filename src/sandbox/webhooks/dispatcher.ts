// The sandbox's webhook dispatcher: applies the tenant's event filter, then delivers each event
// to the primary URI (and at once to the secondary when the primary fails), retrying with the
// schedule of retry-schedule.ts until the 24 h window closes and the event goes to the failure
// queue. Its parts: delivery-record.ts (an event's record and the table of its phases),
// delivery-schedule.ts (when: one heap, one timer), attempt-pool.ts (how many at once),
// deliver.ts (one attempt over HTTP), retry-schedule.ts (the next attempt or none),
// failure-queue.ts (what failed for good), saved-state.ts (what --state saves and checks).
// This module holds them together: the live records, the change hook and the idle waiters.

import { WEBHOOK_ANSWER_TIMEOUT_MS } from '../../domain/webhook-delivery.js';
import { WEBHOOK_HISTORY_LIMIT } from '../limits.js';
import { createWebhookAgents, type WebhookAgents } from './post-webhook.js';
import { AttemptHistory } from './attempt-history.js';
import { AttemptPool } from './attempt-pool.js';
import { attemptDelivery, type AttemptResult } from './deliver.js';
import { fromSaved, move, newDelivery, newDeliveryId, recordAttempt, toFailedEvent, toSaved, type DeliveryRecord } from './delivery-record.js';
import { DeliverySchedule } from './delivery-schedule.js';
import { FailureQueue } from './failure-queue.js';
import { assertTimeScale } from './retry-schedule.js';
import { isDeliveryAttempt, isFailedEvent, isPendingDelivery, validEntries, type PendingDelivery } from './saved-state.js';
import type {
  DeliveryAttempt,
  FailedEvent,
  WebhookDispatcher,
  WebhookDispatcherOptions,
  WebhookDispatcherState,
  WebhookEventKind,
  WebhookTarget,
} from './types.js';

export { retryDelayMs, parseRetryAfterMs, retryWindowMs } from './retry-schedule.js';
export { isPendingDelivery, isWebhookTarget, type PendingDelivery } from './saved-state.js';
export { newDeliveryId } from './delivery-record.js';
export { WEBHOOK_USER_AGENT } from './deliver.js';

export const DEFAULT_ATTEMPT_TIMEOUT_MS = WEBHOOK_ANSWER_TIMEOUT_MS;
export const DEFAULT_HISTORY_LIMIT = WEBHOOK_HISTORY_LIMIT;
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

/** The dispatcher's settings, defaulted and checked. */
interface DispatcherSettings {
  timeScale: number;
  attemptTimeoutMs: number;
  historyLimit: number;
  maxConcurrent: number;
  now: () => number;
}

function settingsOf(options: WebhookDispatcherOptions & DispatcherTuning): DispatcherSettings {
  const timeScale = options.timeScale ?? 1;
  assertTimeScale(timeScale);
  const attemptTimeoutMs = options.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
  assertPositive('attemptTimeoutMs', attemptTimeoutMs);
  const historyLimit = options.historyLimit ?? DEFAULT_HISTORY_LIMIT;
  assertPositive('historyLimit', historyLimit);
  const maxConcurrent = options.maxConcurrentAttempts ?? DEFAULT_MAX_CONCURRENT_ATTEMPTS;
  assertPositive('maxConcurrentAttempts', maxConcurrent);
  return { timeScale, attemptTimeoutMs, historyLimit, maxConcurrent, now: options.now ?? Date.now };
}

/**
 * The dispatcher the sandbox's API calls. `onChange` runs synchronously after every state
 * change (one per event queued, attempted, failed or replayed): persist from it with a debounce,
 * since snapshot() copies every pending event.
 */
export function createWebhookDispatcher(options: WebhookDispatcherOptions & DispatcherTuning = {}): WebhookDispatcher {
  return new Dispatcher(settingsOf(options), options.onChange);
}

class Dispatcher implements WebhookDispatcher {
  private readonly agents: WebhookAgents;
  private readonly history: AttemptHistory;
  private readonly schedule: DeliverySchedule;
  private readonly pool: AttemptPool;
  private readonly failures = new FailureQueue();
  /** Every event still to be delivered (waiting, ready or in flight), by delivery id. */
  private readonly live = new Map<string, DeliveryRecord>();
  private readonly idleWaiters: Array<() => void> = [];
  private closed = false;

  constructor(
    private readonly settings: DispatcherSettings,
    private readonly onChange: (() => void) | undefined,
  ) {
    const { maxConcurrent, attemptTimeoutMs, now } = settings;
    this.agents = createWebhookAgents(maxConcurrent);
    this.history = new AttemptHistory(settings.historyLimit);
    this.schedule = new DeliverySchedule(now, () => this.pool.pump());
    this.pool = new AttemptPool({
      limit: maxConcurrent,
      next: () => this.schedule.take(),
      attempt: (record, posts) =>
        attemptDelivery(record, { agents: this.agents, attemptTimeoutMs, now, history: this.history, posts, closing: () => this.closed }),
      settle: (record, result) => this.settle(record, result),
      afterAttempt: () => this.settleIdleWaiters(),
    });
  }

  dispatch(target: WebhookTarget, event: WebhookEventKind, payload: unknown): string | null {
    if (this.closed) return null;
    if (!eventPassesFilter(target, event)) return null;
    if (target.primaryUri === undefined || target.primaryUri === '') return null;
    const record = newDelivery(newDeliveryId(), event, target, payload, this.settings.now());
    this.admit(record);
    this.notifyChange();
    return record.deliveryId;
  }

  deliveries(): DeliveryAttempt[] {
    return this.history.list();
  }

  failed(): FailedEvent[] {
    return this.failures.list();
  }

  replay(deliveryId: string, target: WebhookTarget): boolean {
    if (this.closed) return false;
    const failedEvent = this.failures.take(deliveryId);
    if (failedEvent === undefined) return false;
    // A replay is an explicit request: it goes to the tenant's current URIs whatever the
    // filter says now, with the same delivery id, a fresh schedule and a fresh 24 h window.
    this.admit(newDelivery(failedEvent.deliveryId, failedEvent.event, target, failedEvent.payload, this.settings.now()));
    this.notifyChange();
    return true;
  }

  idle(): Promise<void> {
    if (this.closed || this.live.size === 0) return Promise.resolve();
    return new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  snapshot(): WebhookDispatcherState {
    return { pending: this.snapshotPending(), failed: this.failures.list(), attempts: this.history.list() };
  }

  restore(state: WebhookDispatcherState): void {
    if (this.closed) return;
    for (const saved of validEntries(state.pending, isPendingDelivery)) {
      if (!this.live.has(saved.deliveryId)) this.admit(fromSaved(saved));
    }
    this.failures.replace(validEntries(state.failed, isFailedEvent));
    this.history.replace(validEntries(state.attempts, isDeliveryAttempt));
    this.notifyChange();
    this.settleIdleWaiters();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.schedule.close();
    await this.pool.close();
    this.agents.destroy();
    this.settleIdleWaiters();
  }

  private admit(record: DeliveryRecord): void {
    this.live.set(record.deliveryId, record);
    this.schedule.add(record);
  }

  /** What an attempt's result makes of the record: the one place a record leaves in-flight. */
  private settle(record: DeliveryRecord, result: AttemptResult): void {
    if (result.kind === 'aborted') {
      // Cut short by close(): the event stays pending as it was, for a snapshot.
      move(record, 'aborted');
      this.schedule.putBack(record);
      return;
    }
    const step = recordAttempt(record, result, this.settings.timeScale);
    move(record, step);
    if (step === 'retry') {
      this.schedule.add(record);
    } else {
      this.live.delete(record.deliveryId);
      if (step !== 'delivered') this.failures.add(toFailedEvent(record, this.settings.now()));
    }
    this.notifyChange();
  }

  private snapshotPending(): PendingDelivery[] {
    // In-flight events are saved as due now: after a restart they are attempted again, which
    // receivers handle through X-Svc-Delivery (at-least-once delivery).
    const now = this.settings.now();
    return [...this.live.values()].map((record) =>
      record.phase === 'in-flight' ? { ...toSaved(record), nextAttemptAtMs: Math.min(record.nextAttemptAtMs, now) } : toSaved(record),
    );
  }

  private notifyChange(): void {
    if (this.onChange === undefined) return;
    try {
      this.onChange();
    } catch {
      // A failing persistence hook must not stop deliveries; the next change calls it again.
    }
  }

  private settleIdleWaiters(): void {
    if (!this.closed && this.live.size > 0) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}

function assertPositive(name: string, value: number): void {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number, got ${value}`);
}
