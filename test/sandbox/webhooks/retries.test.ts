import { describe, expect, it } from 'vitest';
import {
  createWebhookDispatcher,
  isPendingDelivery,
  retryDelayMs,
  retryWindowMs,
  type DispatcherTuning,
} from '../../../src/sandbox/webhooks/dispatcher.js';
import type { WebhookDispatcher, WebhookDispatcherOptions } from '../../../src/sandbox/webhooks/types.js';
import { closedAfterEach, type Responder } from './receiver.js';

// The schedule is checked on the due times the dispatcher records (read through snapshot() at
// every onChange), not on wall-clock durations, so that a slow machine cannot make it fail.

const TENANT = '5d0c2a8e-7a43-4d1e-9a7e-3b1f2c4d5e6f';
const SECOND = 1_000;

interface ScheduledRetry {
  deliveryId: string;
  /** Attempts completed when the retry was scheduled. */
  attempts: number;
  firstAttemptAtMs: number;
  lastAttemptAtMs: number;
  nextAttemptAtMs: number;
}

interface Harness {
  d: WebhookDispatcher;
  scheduled: ScheduledRetry[];
  changes: () => number;
}

const { cleanups, receiver } = closedAfterEach();

function harness(options: WebhookDispatcherOptions & DispatcherTuning): Harness {
  const scheduled: ScheduledRetry[] = [];
  let changeCount = 0;
  const d: WebhookDispatcher = createWebhookDispatcher({
    ...options,
    onChange() {
      changeCount += 1;
      for (const p of d.snapshot().pending.filter(isPendingDelivery)) {
        if (p.lastAttemptAtMs === null || p.firstAttemptAtMs === null) continue;
        if (scheduled.some((s) => s.deliveryId === p.deliveryId && s.attempts === p.attempts)) continue;
        scheduled.push({
          deliveryId: p.deliveryId,
          attempts: p.attempts,
          firstAttemptAtMs: p.firstAttemptAtMs,
          lastAttemptAtMs: p.lastAttemptAtMs,
          nextAttemptAtMs: p.nextAttemptAtMs,
        });
      }
    },
  });
  cleanups.push(() => d.close());
  return { d, scheduled, changes: () => changeCount };
}

function waits(scheduled: readonly ScheduledRetry[]): number[] {
  return scheduled.map((s) => s.nextAttemptAtMs - s.lastAttemptAtMs);
}

// Due times are epoch milliseconds in doubles, exact to about 0.0002 ms at today's dates; two
// decimals is far finer than any difference between the rules being checked.
const DIGITS = 2;

function expectWaits(scheduled: readonly ScheduledRetry[], expected: readonly number[]): void {
  expect(scheduled.map((s) => s.attempts)).toEqual(expected.map((_, i) => i + 1));
  const actual = waits(scheduled);
  expected.forEach((ms, i) => expect(actual[i], `wait after attempt ${i + 1}`).toBeCloseTo(ms, DIGITS));
}

/** Every retry went out at or after its due time, never early. */
function expectAttemptsNotEarly(d: WebhookDispatcher, scheduled: readonly ScheduledRetry[]): void {
  const history = d.deliveries();
  for (const retry of scheduled) {
    const next = history.find((a) => a.deliveryId === retry.deliveryId && a.attempt === retry.attempts + 1);
    expect(next, `attempt ${retry.attempts + 1}`).toBeDefined();
    expect(Date.parse(next!.at)).toBeGreaterThanOrEqual(retry.nextAttemptAtMs);
  }
}

const failFirst = (count: number, answer: { status: number; headers?: Record<string, string> }): Responder =>
  (_request, index) => (index < count ? answer : { status: 200 });

describe('the retry schedule, end to end', () => {
  it('doubles from 5 s up to the 1 min cap after 5xx answers', async () => {
    const r = await receiver(failFirst(6, { status: 503 }));
    const { d, scheduled } = harness({ timeScale: 1000 });
    const id = d.dispatch({ tenantId: TENANT, primaryUri: r.url }, 'DeliveryReceipt', { status: 'delivered' });
    await d.idle();

    expectWaits(scheduled, [5, 10, 20, 40, 60, 60]);
    expect(r.received).toHaveLength(7);
    expect(new Set(r.received.map((q) => q.headers['x-svc-delivery']))).toEqual(new Set([id]));
    expect(new Set(r.received.map((q) => q.body.toString('utf8')))).toEqual(new Set(['{"status":"delivered"}']));
    expect(d.deliveries().map((a) => [a.attempt, a.status])).toEqual([
      [1, 503], [2, 503], [3, 503], [4, 503], [5, 503], [6, 503], [7, 200],
    ]);
    expectAttemptsNotEarly(d, scheduled);
    expect(d.failed()).toEqual([]);
    expect(d.snapshot().pending).toEqual([]);
  });

  it('doubles from 5 s up to the 30 min cap after 4xx answers', async () => {
    const r = await receiver(failFirst(11, { status: 404 }));
    const { d, scheduled } = harness({ timeScale: 10_000 });
    d.dispatch({ tenantId: TENANT, primaryUri: r.url }, 'OrderStatus', {});
    await d.idle();

    expectWaits(scheduled, [5, 10, 20, 40, 80, 160, 320, 640, 1280, 1800, 1800].map((s) => (s * SECOND) / 10_000));
    expect(r.received).toHaveLength(12);
    expectAttemptsNotEarly(d, scheduled);
  });

  it('uses the 5xx cap when the primary answers 4xx and the secondary 5xx', async () => {
    const primary = await receiver(() => ({ status: 404 }));
    const secondary = await receiver(failFirst(5, { status: 502 }));
    const { d, scheduled } = harness({ timeScale: 10_000 });
    d.dispatch({ tenantId: TENANT, primaryUri: primary.url, secondaryUri: secondary.url }, 'OrderStatus', {});
    await d.idle();

    // The fifth wait tells the caps apart: 60 s, where a 4xx cap would give 80 s.
    expectWaits(scheduled, [5, 10, 20, 40, 60].map((s) => (s * SECOND) / 10_000));
    expect(primary.received).toHaveLength(6);
    expect(secondary.received).toHaveLength(6);
  });

  it('uses the 5xx cap when the primary times out and the secondary answers 4xx', async () => {
    const primary = await receiver(() => 'hang');
    const secondary = await receiver(failFirst(5, { status: 410 }));
    const { d, scheduled } = harness({ timeScale: 10_000, attemptTimeoutMs: 50 });
    d.dispatch({ tenantId: TENANT, primaryUri: primary.url, secondaryUri: secondary.url }, 'OrderStatus', {});
    await d.idle();

    // On a busy machine the secondary may time out too (still the 5xx cap) and add retries.
    expectWaits(scheduled.slice(0, 5), [5, 10, 20, 40, 60].map((s) => (s * SECOND) / 10_000));
    expect(d.deliveries().filter((a) => a.status === null).every((a) => a.error === 'timed out after 50 ms')).toBe(true);
  });

  it('waits at least a Retry-After given in seconds, and the backoff when that is longer', async () => {
    const r = await receiver((_request, index) => {
      if (index === 0) return { status: 503, headers: { 'Retry-After': '120' } };
      if (index === 1) return { status: 429, headers: { 'Retry-After': '1' } };
      return { status: 200 };
    });
    const { d, scheduled } = harness({ timeScale: 1000 });
    d.dispatch({ tenantId: TENANT, primaryUri: r.url }, 'MessageReceived', {});
    await d.idle();

    expectWaits(scheduled, [120, 10]);
    expect(r.received).toHaveLength(3);
  });

  it('waits until a Retry-After given as an HTTP date', async () => {
    const sentDates: string[] = [];
    const r = await receiver((_request, index) => {
      if (index > 0) return { status: 200 };
      const date = new Date(Date.now() + 600 * SECOND).toUTCString();
      sentDates.push(date);
      return { status: 503, headers: { 'Retry-After': date } };
    });
    const timeScale = 10_000;
    const { d, scheduled } = harness({ timeScale });
    d.dispatch({ tenantId: TENANT, primaryUri: r.url }, 'MessageReceived', {});
    await d.idle();

    expect(scheduled).toHaveLength(1);
    const [retry] = scheduled;
    const expected = (Date.parse(sentDates[0]!) - retry!.lastAttemptAtMs) / timeScale;
    // About 60 ms: well above the 0.5 ms backoff, so the date is what set the wait.
    expect(expected).toBeGreaterThan(50);
    expect(waits(scheduled)[0]).toBeCloseTo(expected, DIGITS);
    expectAttemptsNotEarly(d, scheduled);
  });
});

describe('the 24 h window and the failure queue', () => {
  it('schedules nothing past 24 h from the first attempt, then moves the event to the failure queue', async () => {
    const timeScale = 100_000;
    const r = await receiver(() => ({ status: 400 }));
    const { d, scheduled } = harness({ timeScale });
    const payload = { orderId: '9e1d6f0a-0000-4000-8000-000000000001', status: 'Failed' };
    const id = d.dispatch({ tenantId: TENANT, primaryUri: r.url }, 'OrderStatus', payload);
    await d.idle();

    const [failed, ...others] = d.failed();
    expect(others).toEqual([]);
    expect(failed).toMatchObject({
      deliveryId: id,
      event: 'OrderStatus',
      tenantId: TENANT,
      attempts: r.received.length,
      lastStatus: 400,
      lastError: 'answered HTTP 400',
      payload,
    });
    expect(d.snapshot().pending).toEqual([]);

    const firstAttemptAtMs = Date.parse(failed!.firstAttemptAt);
    const windowEnd = firstAttemptAtMs + retryWindowMs(timeScale);
    // Many retries fit in the window (about 55 on an idle machine, fewer when each attempt takes
    // longer in scaled time), every one due inside it...
    expect(scheduled.length).toBeGreaterThan(10);
    expect(scheduled.length).toBe(failed!.attempts - 1);
    for (const retry of scheduled) {
      expect(retry.firstAttemptAtMs).toBe(firstAttemptAtMs);
      expect(retry.nextAttemptAtMs).toBeLessThanOrEqual(windowEnd);
    }
    // ...and the retry after the last attempt would have been past it.
    const lastAttemptAtMs = Date.parse(failed!.lastAttemptAt);
    expect(lastAttemptAtMs + retryDelayMs(failed!.attempts, 400, null, timeScale)).toBeGreaterThan(windowEnd);
    expect(new Set(r.received.map((q) => q.headers['x-svc-delivery']))).toEqual(new Set([id]));
  });

  it('fails at once when Retry-After asks for a wait beyond the window', async () => {
    const r = await receiver(() => ({ status: 503, headers: { 'Retry-After': String(25 * 3600) } }));
    const { d, scheduled } = harness({});
    d.dispatch({ tenantId: TENANT, primaryUri: r.url }, 'DeliveryReceipt', { n: 1 });
    await d.idle();
    expect(scheduled).toEqual([]);
    expect(d.failed()).toMatchObject([{ attempts: 1, lastStatus: 503, lastError: 'answered HTTP 503', payload: { n: 1 } }]);
  });
});

describe('replay', () => {
  it('re-queues a failed event with the same delivery id, a fresh schedule and a fresh window', async () => {
    const rejecting = await receiver(() => ({ status: 503, headers: { 'Retry-After': String(25 * 3600) } }));
    const accepting = await receiver(() => ({ status: 200 }));
    const { d, changes } = harness({});
    const payload = { messageId: 'b1e0c7d2-1111-4222-8333-444455556666', message: 'hi', type: 0 };
    const target = { tenantId: TENANT, primaryUri: rejecting.url, secret: 'old' };
    const id = d.dispatch(target, 'MessageReceived', payload)!;
    await d.idle();
    expect(d.failed().map((f) => f.deliveryId)).toEqual([id]);

    expect(d.replay('dlv_unknown', target)).toBe(false);

    // Replayed to the tenant's current settings, which now point at a working endpoint.
    const changesBefore = changes();
    expect(d.replay(id, { ...target, primaryUri: `${accepting.url}/new`, secret: 'new' })).toBe(true);
    expect(changes()).toBeGreaterThan(changesBefore);
    expect(d.failed()).toEqual([]);
    await d.idle();

    expect(accepting.received).toHaveLength(1);
    const delivered = accepting.received[0]!;
    expect(delivered.headers['x-svc-delivery']).toBe(id);
    expect(JSON.parse(delivered.body.toString('utf8'))).toEqual(payload);
    expect(d.deliveries().map((a) => [a.attempt, a.url, a.status])).toEqual([
      [1, rejecting.url + '/', 503],
      [1, `${accepting.url}/new`, 200],
    ]);
    expect(d.replay(id, target)).toBe(false);
  });

  it('counts attempts from one again after a replay', async () => {
    const r = await receiver(() => ({ status: 503, headers: { 'Retry-After': String(25 * 3600) } }));
    const { d } = harness({});
    const target = { tenantId: TENANT, primaryUri: r.url };
    const id = d.dispatch(target, 'OrderStatus', {})!;
    await d.idle();
    d.replay(id, target);
    await d.idle();
    expect(d.failed()).toMatchObject([{ deliveryId: id, attempts: 1 }]);
    expect(r.received).toHaveLength(2);
  });
});
