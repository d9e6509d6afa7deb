import { expect, it } from 'vitest';
import { createWebhookDispatcher, isPendingDelivery } from '../../../src/sandbox/webhooks/dispatcher.js';
import type { WebhookDispatcher } from '../../../src/sandbox/webhooks/types.js';
import { openHandleCounts, closedAfterEach } from './receiver.js';

// Bounded loads on loopback: counts are asserted, durations only printed.

const TENANT = 'f00dfeed-0000-4000-8000-00000000c0de';

const { cleanups, receiver } = closedAfterEach();

function dispatcher(options: Parameters<typeof createWebhookDispatcher>[0]): WebhookDispatcher {
  const d = createWebhookDispatcher(options);
  cleanups.push(() => d.close());
  return d;
}

it('delivers 5,000 events over a few keep-alive connections', async () => {
  const r = await receiver(() => ({ status: 200 }));
  const d = dispatcher({ maxConcurrentAttempts: 32, historyLimit: 1_000 });
  const target = { tenantId: TENANT, primaryUri: `${r.url}/hook`, secret: 'load-secret' };
  const started = performance.now();
  const ids = Array.from({ length: 5_000 }, (_, i) => d.dispatch(target, 'DeliveryReceipt', { messageId: `m-${i}`, status: 'delivered' }));
  await d.idle();
  const elapsed = performance.now() - started;
  console.log(`webhooks: 5000 deliveries in ${elapsed.toFixed(0)} ms (${((5000 / elapsed) * 1000).toFixed(0)}/s) over ${r.connections()} connections`);

  expect(r.received).toHaveLength(5_000);
  expect(new Set(r.received.map((q) => q.headers['x-svc-delivery']))).toEqual(new Set(ids));
  expect(r.connections()).toBeLessThanOrEqual(32);
  expect(d.deliveries()).toHaveLength(1_000);
  expect(d.failed()).toEqual([]);
}, 60_000);

it('keeps one timer for 2,000 events waiting to be retried', async () => {
  const r = await receiver(() => ({ status: 503 }));
  // The dispatcher's clock stands still: the retries, 5 s after each first attempt, never come
  // due however long the 2,000 first attempts take on a loaded machine (its one timer re-arms).
  // The per-attempt timeout is far beyond any queue the receiver could build up.
  const d = dispatcher({ maxConcurrentAttempts: 32, now: () => Date.UTC(2026, 0, 1), attemptTimeoutMs: 600_000 });
  const target = { tenantId: TENANT, primaryUri: r.url };
  for (let i = 0; i < 2_000; i += 1) d.dispatch(target, 'OrderStatus', { i });
  await r.waitForRequests(2_000);
  while (!d.snapshot().pending.filter(isPendingDelivery).every((p) => p.attempts === 1)) {
    await new Promise((resolve) => setImmediate(resolve));
  }
  expect(d.snapshot().pending).toHaveLength(2_000);

  // Retries are 5 s of a frozen clock away. Both counts are taken in one synchronous step (close() clears its
  // timer before its first await), so that no timer of the test runner can come or go between.
  const timersWhileWaiting = timeoutCount();
  const closing = d.close();
  const timersAfterClose = timeoutCount();
  await closing;
  expect(timersWhileWaiting - timersAfterClose).toBe(1);
  // No per-attempt timer outlived its attempt (2,000 of them would show): what is left belongs
  // to the test runner.
  expect(timersAfterClose).toBeLessThan(5);
}, 60_000);

function timeoutCount(): number {
  return openHandleCounts()['Timeout'] ?? 0;
}
