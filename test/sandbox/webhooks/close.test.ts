import { expect, it } from 'vitest';
import { createWebhookDispatcher, isPendingDelivery, type PendingDelivery } from '../../../src/sandbox/webhooks/dispatcher.js';
import type { WebhookDispatcher } from '../../../src/sandbox/webhooks/types.js';
import { openHandleCounts, startReceiver } from './receiver.js';

// Alone in its file, so that no other test's sockets blur the count of open handles.

const TENANT = '0b6f0a54-8f3e-4a47-9a57-1c1b9f0f6d11';
const WATCHED = ['TCPSocketWrap', 'TCPServerWrap', 'Timeout'];

function pending(d: WebhookDispatcher): PendingDelivery[] {
  return d.snapshot().pending.filter(isPendingDelivery);
}

function watched(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(WATCHED.map((name) => [name, counts[name] ?? 0]));
}

// At most, not exactly: the test runner's own timers come and go between the two counts.
function expectNoMoreHandlesThan(after: Record<string, number>, limit: Record<string, number>): void {
  for (const name of WATCHED) expect(after[name] ?? 0, `${name}: ${JSON.stringify(watched(after))}`).toBeLessThanOrEqual(limit[name] ?? 0);
}

function noMoreThan(after: Record<string, number>, before: Record<string, number>): boolean {
  return WATCHED.every((name) => (after[name] ?? 0) <= (before[name] ?? 0));
}

it('aborts attempts in flight, clears the retry timer and leaves no open handle', async () => {
  const before = openHandleCounts();
  const hanging = await startReceiver(() => 'hang');
  const failing = await startReceiver(() => ({ status: 503 }));
  const d = createWebhookDispatcher({ attemptTimeoutMs: 120_000 });
  const inFlightId = d.dispatch({ tenantId: TENANT, primaryUri: hanging.url }, 'MessageReceived', { a: 1 });
  const retryingId = d.dispatch({ tenantId: TENANT, primaryUri: failing.url }, 'MessageReceived', { b: 2 });
  await Promise.all([hanging.waitForRequests(1), failing.waitForRequests(1)]);
  // Wait until the 503 has been recorded, so that a 5 s retry timer is armed.
  while (!pending(d).some((p) => p.attempts === 1)) await new Promise((resolve) => setImmediate(resolve));
  expect(openHandleCounts()['Timeout'] ?? 0).toBeGreaterThan(before['Timeout'] ?? 0);

  // With a 120 s attempt timeout, close() can only finish within the test's time by aborting.
  await d.close();
  expect(pending(d).map((p) => `${p.deliveryId}:${p.attempts}`).sort()).toEqual([`${inFlightId}:0`, `${retryingId}:1`].sort());
  expect(d.dispatch({ tenantId: TENANT, primaryUri: failing.url }, 'OrderStatus', {})).toBeNull();
  await d.idle();
  // The aborted attempt is not an attempt: nothing about it reaches the history.
  expect(d.deliveries().map((a) => a.deliveryId)).toEqual([retryingId]);

  // Both receivers still listen: any socket left now is a keep-alive or in-flight connection
  // the dispatcher failed to close (the receivers close their side when the client goes).
  const receiversOnly = { ...before, TCPServerWrap: (before['TCPServerWrap'] ?? 0) + 2 };
  expectNoMoreHandlesThan(await settledHandleCounts(receiversOnly), receiversOnly);

  await hanging.close();
  await failing.close();
  expectNoMoreHandlesThan(await settledHandleCounts(before), before);
}, 10_000);

/** Handle counts once they drop to `target`, or after a bounded number of event-loop turns. */
async function settledHandleCounts(target: Record<string, number>): Promise<Record<string, number>> {
  let counts = openHandleCounts();
  // Sockets finish closing on a later turn of the event loop; the count is polled, not timed.
  for (let turns = 0; turns < 1000 && !noMoreThan(counts, target); turns += 1) {
    await new Promise((resolve) => setImmediate(resolve));
    counts = openHandleCounts();
  }
  return counts;
}
