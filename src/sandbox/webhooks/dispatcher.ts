// The sandbox's webhook dispatcher: applies the tenant's event filter, then delivers each event
// to the primary URI (and at once to the secondary when the primary fails), retrying with the
// schedule of retry-schedule.ts until the 24 h window closes and the event goes to the failure
// queue. Waiting retries sit in one heap with one timer on the earliest due time; attempts run
// with bounded concurrency, so thousands of queued events cost memory, not timers or sockets.

import { randomBytes } from 'node:crypto';
import type { OutgoingHttpHeaders } from 'node:http';
import { signBody } from '../../domain/signature.js';
import { isWebhookEventKind as isEventKind, WEBHOOK_DELIVERY_HEADER, WEBHOOK_EVENT_HEADER, WEBHOOK_SIGNATURE_HEADER } from '../../domain/webhooks.js';
import { WEBHOOK_EVENT_TYPES } from '../../domain/validate.js';
import { DueQueue } from './due-queue.js';
import {
  createWebhookAgents,
  postWebhook,
  redactUrl,
  webhookUriRefusal,
  type AttemptOutcome,
  type InFlightPost,
} from './post-webhook.js';
import {
  assertTimeScale,
  isServerSideFailure,
  parseRetryAfterMs,
  retryDelayMs,
  retryWindowMs,
} from './retry-schedule.js';
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

export const DEFAULT_ATTEMPT_TIMEOUT_MS = 10_000;
export const DEFAULT_HISTORY_LIMIT = 1_000;
export const DEFAULT_MAX_CONCURRENT_ATTEMPTS = 64;
export const WEBHOOK_USER_AGENT = 'svc-sandbox-webhooks/1';

/** Tuning that the sandbox's API does not need to know about. */
export interface DispatcherTuning {
  /** How many attempts (HTTP requests) are kept for deliveries() (default 1 000). */
  historyLimit?: number;
  /** How many events may be in an HTTP attempt at once (default 64); the rest wait their turn. */
  maxConcurrentAttempts?: number;
}

/**
 * One event not yet delivered nor failed, as saved by snapshot(). Times are epoch
 * milliseconds of the dispatcher's clock (`now`), exact so that the schedule can be checked.
 */
export interface PendingDelivery {
  deliveryId: string;
  event: WebhookEventKind;
  target: WebhookTarget;
  /** The serialized payload, sent byte for byte on every attempt. */
  body: string;
  /** Completed attempts (each: primary, then secondary if the primary failed). */
  attempts: number;
  firstAttemptAtMs: number | null;
  /** When the last attempt's outcome was known; the retry wait counts from there. */
  lastAttemptAtMs: number | null;
  nextAttemptAtMs: number;
  lastStatus: number | null;
  lastError: string | null;
}

// setTimeout fires at once for anything longer; onTimer() then re-arms for the rest.
const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/** A pending event in memory: its payload serialized once, as the bytes every attempt sends. */
interface QueuedDelivery extends Omit<PendingDelivery, 'body'> {
  bytes: Buffer;
}


/** True when the tenant's filter lets this event through (decisions.md "Webhooks"). */
export function eventPassesFilter(target: WebhookTarget, event: WebhookEventKind): boolean {
  const filter = target.eventType ?? 'All';
  switch (filter) {
    case 'All':
      return true;
    case 'MessageReceived':
      return event === 'MessageReceived';
    case 'OrderStatus':
      return event === 'OrderStatus';
  }
}

export function newDeliveryId(): string {
  return `dlv_${randomBytes(12).toString('hex')}`;
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
  const windowMs = retryWindowMs(timeScale);

  const agents = createWebhookAgents(maxConcurrent);
  const waiting = new DueQueue<QueuedDelivery>();
  const ready: QueuedDelivery[] = [];
  let readyHead = 0;
  const inFlight = new Map<QueuedDelivery, Set<InFlightPost>>();
  const inFlightRuns = new Set<Promise<void>>();
  let failedEvents: FailedEvent[] = [];
  const history = new AttemptHistory(historyLimit);
  const idleWaiters: Array<() => void> = [];
  let timer: NodeJS.Timeout | undefined;
  let timerDueAt = Infinity;
  let pumpScheduled = false;
  let closed = false;

  const readyCount = (): number => ready.length - readyHead;
  const pendingCount = (): number => waiting.size + readyCount() + inFlight.size;

  function notifyChange(): void {
    if (options.onChange === undefined) return;
    try {
      options.onChange();
    } catch {
      // A failing persistence hook must not stop deliveries; the next change calls it again.
    }
  }

  function settleIdleWaiters(): void {
    if (!closed && pendingCount() > 0) return;
    for (const resolve of idleWaiters.splice(0)) resolve();
  }

  function enqueue(item: QueuedDelivery): void {
    if (item.nextAttemptAtMs <= now()) {
      ready.push(item);
      schedulePump();
    } else {
      waiting.push(item.nextAttemptAtMs, item);
      armTimer();
    }
  }

  function schedulePump(): void {
    if (pumpScheduled || closed) return;
    pumpScheduled = true;
    // One deferred pump per burst of dispatches, so that dispatch() returns before any I/O.
    setImmediate(() => {
      pumpScheduled = false;
      pump();
    });
  }

  function armTimer(): void {
    if (closed) return;
    const earliest = waiting.peekDueAt();
    if (earliest === undefined) {
      clearTimeout(timer);
      timer = undefined;
      timerDueAt = Infinity;
      return;
    }
    if (timer !== undefined && timerDueAt <= earliest) return;
    clearTimeout(timer);
    timerDueAt = earliest;
    timer = setTimeout(onTimer, Math.min(MAX_TIMER_DELAY_MS, Math.max(0, earliest - now())));
  }

  function onTimer(): void {
    timer = undefined;
    timerDueAt = Infinity;
    const due = waiting.popDue(now());
    for (const item of due) ready.push(item);
    // A timer may fire a little before the clock agrees; armTimer() then simply waits again.
    armTimer();
    if (due.length > 0) pump();
  }

  function pump(): void {
    while (!closed && inFlight.size < maxConcurrent && readyCount() > 0) {
      const item = ready[readyHead]!;
      readyHead += 1;
      const run = runAttempt(item);
      inFlightRuns.add(run);
      void run.finally(() => inFlightRuns.delete(run));
    }
    // Reclaim the consumed head of the ready list now and then instead of shifting every time.
    if (readyHead > 1024 && readyHead * 2 > ready.length) {
      ready.splice(0, readyHead);
      readyHead = 0;
    }
  }

  async function runAttempt(item: QueuedDelivery): Promise<void> {
    const posts = new Set<InFlightPost>();
    inFlight.set(item, posts);
    try {
      await attemptOnce(item, posts);
    } finally {
      inFlight.delete(item);
      if (!closed) pump();
      settleIdleWaiters();
    }
  }

  async function attemptOnce(item: QueuedDelivery, posts: Set<InFlightPost>): Promise<void> {
    const startedAt = now();
    const attempt = item.attempts + 1;
    const refusal = targetRefusal(item.target);
    if (refusal !== null) {
      inFlight.delete(item);
      if (item.firstAttemptAtMs === null) item.firstAttemptAtMs = startedAt;
      item.lastAttemptAtMs = startedAt;
      item.lastStatus = null;
      item.lastError = refusal;
      moveToFailureQueue(item);
      return;
    }

    const uris = [item.target.primaryUri, item.target.secondaryUri].filter(
      (uri): uri is string => uri !== undefined && uri !== '',
    );
    const headers = deliveryHeaders(item);
    const outcomes: AttemptOutcome[] = [];
    for (const uri of uris) {
      const url = new URL(uri);
      const at = now();
      const started = performance.now();
      const post = postWebhook({ url, body: item.bytes, headers, timeoutMs: attemptTimeoutMs, agents });
      posts.add(post);
      const outcome = await post.outcome;
      posts.delete(post);
      // close() cut the attempt short: the event stays pending as it was, for a snapshot.
      if (outcome.aborted || closed) {
        ready.push(item);
        return;
      }
      outcomes.push(outcome);
      history.add({
        deliveryId: item.deliveryId,
        event: item.event,
        tenantId: item.target.tenantId,
        attempt,
        url: redactUrl(url),
        status: outcome.status,
        error: outcome.error,
        at: new Date(at).toISOString(),
        durationMs: Math.round((performance.now() - started) * 1000) / 1000,
      });
      if (outcome.error === null) break;
    }

    // Out of the in-flight set before its state changes, so that a snapshot taken by onChange
    // sees the event once, as it now is.
    inFlight.delete(item);
    const endedAt = now();
    item.attempts = attempt;
    if (item.firstAttemptAtMs === null) item.firstAttemptAtMs = startedAt;
    item.lastAttemptAtMs = endedAt;
    const last = outcomes[outcomes.length - 1]!;
    item.lastStatus = last.status;
    item.lastError = last.error;
    if (last.error === null) {
      notifyChange();
      return;
    }

    const delay = retryDelayMs(attempt, capDecidingStatus(outcomes), longestRetryAfterMs(outcomes, endedAt), timeScale);
    const dueAt = endedAt + delay;
    if (dueAt > item.firstAttemptAtMs + windowMs) {
      moveToFailureQueue(item);
      return;
    }
    item.nextAttemptAtMs = dueAt;
    enqueue(item);
    notifyChange();
  }

  function moveToFailureQueue(item: QueuedDelivery): void {
    failedEvents.push({
      deliveryId: item.deliveryId,
      event: item.event,
      tenantId: item.target.tenantId,
      attempts: item.attempts,
      firstAttemptAt: isoOrNow(item.firstAttemptAtMs),
      lastAttemptAt: isoOrNow(item.lastAttemptAtMs),
      lastStatus: item.lastStatus,
      lastError: item.lastError,
      payload: parseBody(item.bytes.toString('utf8')),
    });
    notifyChange();
  }

  function isoOrNow(ms: number | null): string {
    return new Date(ms ?? now()).toISOString();
  }

  function snapshotPending(): PendingDelivery[] {
    const byId = new Map<string, PendingDelivery>();
    // In-flight events are saved as due now: after a restart they are attempted again, which
    // receivers handle through X-Svc-Delivery (at-least-once delivery).
    for (const item of inFlight.keys()) byId.set(item.deliveryId, { ...toSaved(item), nextAttemptAtMs: Math.min(item.nextAttemptAtMs, now()) });
    // An attempt aborted by close() is back in the ready list a moment before it leaves the
    // in-flight map; the id keeps it from being saved twice.
    for (let i = readyHead; i < ready.length; i += 1) if (!byId.has(ready[i]!.deliveryId)) byId.set(ready[i]!.deliveryId, toSaved(ready[i]!));
    for (const item of waiting.items()) byId.set(item.deliveryId, toSaved(item));
    return [...byId.values()];
  }

  function failedCopy(): FailedEvent[] {
    return failedEvents.map((f) => ({ ...f }));
  }

  return {
    dispatch(target, event, payload) {
      if (closed) return null;
      if (!eventPassesFilter(target, event)) return null;
      if (target.primaryUri === undefined || target.primaryUri === '') return null;
      const item: QueuedDelivery = {
        deliveryId: newDeliveryId(),
        event,
        target: { ...target },
        bytes: serializePayload(payload),
        attempts: 0,
        firstAttemptAtMs: null,
        lastAttemptAtMs: null,
        nextAttemptAtMs: now(),
        lastStatus: null,
        lastError: null,
      };
      enqueue(item);
      notifyChange();
      return item.deliveryId;
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
      enqueue({
        deliveryId: failedEvent!.deliveryId,
        event: failedEvent!.event,
        target: { ...target },
        bytes: serializePayload(failedEvent!.payload),
        attempts: 0,
        firstAttemptAtMs: null,
        lastAttemptAtMs: null,
        nextAttemptAtMs: now(),
        lastStatus: null,
        lastError: null,
      });
      notifyChange();
      return true;
    },

    idle() {
      if (closed || pendingCount() === 0) return Promise.resolve();
      return new Promise<void>((resolve) => idleWaiters.push(resolve));
    },

    snapshot(): WebhookDispatcherState {
      return { pending: snapshotPending(), failed: failedCopy(), attempts: history.list() };
    },

    restore(state) {
      if (closed) return;
      const known = new Set<string>();
      for (const item of inFlight.keys()) known.add(item.deliveryId);
      for (let i = readyHead; i < ready.length; i += 1) known.add(ready[i]!.deliveryId);
      for (const item of waiting.items()) known.add(item.deliveryId);
      for (const saved of Array.isArray(state.pending) ? state.pending : []) {
        if (!isPendingDelivery(saved) || known.has(saved.deliveryId)) continue;
        known.add(saved.deliveryId);
        enqueue(fromSaved(saved));
      }
      failedEvents = (Array.isArray(state.failed) ? state.failed : []).filter(isFailedEvent).map((f) => ({ ...f }));
      history.replace((Array.isArray(state.attempts) ? state.attempts : []).filter(isDeliveryAttempt));
      notifyChange();
      settleIdleWaiters();
    },

    async close() {
      if (closed) return;
      closed = true;
      clearTimeout(timer);
      timer = undefined;
      for (const posts of inFlight.values()) for (const post of posts) post.abort();
      await Promise.allSettled([...inFlightRuns]);
      agents.destroy();
      settleIdleWaiters();
    },
  };
}

function deliveryHeaders(item: QueuedDelivery): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {
    'Content-Type': 'application/json',
    'User-Agent': WEBHOOK_USER_AGENT,
    [WEBHOOK_EVENT_HEADER]: item.event,
    [WEBHOOK_DELIVERY_HEADER]: item.deliveryId,
  };
  const { secret, basicAuthUsername: username, basicAuthPassword: password } = item.target;
  if (secret !== undefined && secret !== '') headers[WEBHOOK_SIGNATURE_HEADER] = signBody(item.bytes, secret);
  if ((username ?? '') !== '' || (password ?? '') !== '') {
    headers['Authorization'] = `Basic ${Buffer.from(`${username ?? ''}:${password ?? ''}`, 'utf8').toString('base64')}`;
  }
  return headers;
}

/** Why this target must not be called at all, or null (checked again before every attempt). */
function targetRefusal(target: WebhookTarget): string | null {
  if (target.primaryUri === undefined || target.primaryUri === '') return 'refused: the tenant has no webhook primary URI';
  const primary = webhookUriRefusal(target.primaryUri);
  if (primary !== null) return primary;
  if (target.secondaryUri === undefined || target.secondaryUri === '') return null;
  return webhookUriRefusal(target.secondaryUri);
}

/**
 * When the primary and the secondary fail differently, the 5xx cap (1 min) wins if either
 * failure was server-side (5xx, timeout, connection error): that endpoint may be back soon,
 * and the event should not wait 30 min because the other one answered 4xx.
 */
function capDecidingStatus(outcomes: readonly AttemptOutcome[]): number | null {
  const serverSide = outcomes.find((o) => isServerSideFailure(o.status));
  return (serverSide ?? outcomes[outcomes.length - 1]!).status;
}

function longestRetryAfterMs(outcomes: readonly AttemptOutcome[], nowMs: number): number | null {
  let longest: number | null = null;
  for (const outcome of outcomes) {
    const value = parseRetryAfterMs(outcome.retryAfter, nowMs);
    if (value !== null && (longest === null || value > longest)) longest = value;
  }
  return longest;
}

function parseBody(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return body;
  }
}

function serializePayload(payload: unknown): Buffer {
  return Buffer.from(JSON.stringify(payload) ?? 'null', 'utf8');
}

function toSaved({ bytes, ...rest }: QueuedDelivery): PendingDelivery {
  return { ...rest, target: { ...rest.target }, body: bytes.toString('utf8') };
}

function fromSaved({ body, ...rest }: PendingDelivery): QueuedDelivery {
  return { ...rest, target: { ...rest.target }, bytes: Buffer.from(body, 'utf8') };
}

function assertPositive(name: string, value: number): void {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number, got ${value}`);
}

/** Attempts kept in a ring buffer, so that a long run costs a fixed amount of memory. */
class AttemptHistory {
  private readonly slots: DeliveryAttempt[] = [];
  private start = 0;

  constructor(private readonly limit: number) {}

  add(attempt: DeliveryAttempt): void {
    if (this.slots.length < this.limit) {
      this.slots.push(attempt);
      return;
    }
    this.slots[this.start] = attempt;
    this.start = (this.start + 1) % this.limit;
  }

  list(): DeliveryAttempt[] {
    return [...this.slots.slice(this.start), ...this.slots.slice(0, this.start)].map((a) => ({ ...a }));
  }

  replace(attempts: readonly DeliveryAttempt[]): void {
    this.slots.length = 0;
    this.start = 0;
    for (const attempt of attempts.slice(-this.limit)) this.slots.push({ ...attempt });
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isOptionalString(value: unknown): boolean {
  return value === undefined || value === null || typeof value === 'string';
}

function isNullableNumber(value: unknown): value is number | null {
  return value === null || (typeof value === 'number' && Number.isFinite(value));
}

function isNullableString(value: unknown): value is string | null {
  return value === null || typeof value === 'string';
}


export function isWebhookTarget(value: unknown): value is WebhookTarget {
  if (!isRecord(value) || typeof value['tenantId'] !== 'string') return false;
  const eventType = value['eventType'];
  return (
    ['primaryUri', 'secondaryUri', 'secret', 'basicAuthUsername', 'basicAuthPassword'].every((key) => isOptionalString(value[key])) &&
    (eventType === undefined || (typeof eventType === 'string' && (WEBHOOK_EVENT_TYPES as readonly string[]).includes(eventType)))
  );
}

/** Checks one saved pending event (restore() drops what a damaged state file got wrong). */
export function isPendingDelivery(value: unknown): value is PendingDelivery {
  return (
    isRecord(value) &&
    typeof value['deliveryId'] === 'string' &&
    isEventKind(value['event']) &&
    isWebhookTarget(value['target']) &&
    typeof value['body'] === 'string' &&
    typeof value['attempts'] === 'number' &&
    Number.isInteger(value['attempts']) &&
    value['attempts'] >= 0 &&
    isNullableNumber(value['firstAttemptAtMs']) &&
    isNullableNumber(value['lastAttemptAtMs']) &&
    typeof value['nextAttemptAtMs'] === 'number' &&
    Number.isFinite(value['nextAttemptAtMs']) &&
    isNullableNumber(value['lastStatus']) &&
    isNullableString(value['lastError'])
  );
}

function isFailedEvent(value: unknown): value is FailedEvent {
  return (
    isRecord(value) &&
    typeof value['deliveryId'] === 'string' &&
    isEventKind(value['event']) &&
    typeof value['tenantId'] === 'string' &&
    typeof value['attempts'] === 'number' &&
    typeof value['firstAttemptAt'] === 'string' &&
    typeof value['lastAttemptAt'] === 'string' &&
    isNullableNumber(value['lastStatus']) &&
    isNullableString(value['lastError']) &&
    'payload' in value
  );
}

function isDeliveryAttempt(value: unknown): value is DeliveryAttempt {
  return (
    isRecord(value) &&
    typeof value['deliveryId'] === 'string' &&
    isEventKind(value['event']) &&
    typeof value['tenantId'] === 'string' &&
    typeof value['attempt'] === 'number' &&
    typeof value['url'] === 'string' &&
    isNullableNumber(value['status']) &&
    isNullableString(value['error']) &&
    typeof value['at'] === 'string' &&
    typeof value['durationMs'] === 'number'
  );
}
