import { describe, expect, it } from 'vitest';
import {
  createWebhookDispatcher,
  isPendingDelivery,
  type PendingDelivery,
} from '../../../src/sandbox/webhooks/dispatcher.js';
import type { WebhookDispatcher, WebhookDispatcherState } from '../../../src/sandbox/webhooks/types.js';
import { verifySignature } from '../../../src/domain/signature.js';
import { closedAfterEach } from './receiver.js';

const TENANT = 'c3d4e5f6-0000-4000-8000-0000000000aa';

const { cleanups, receiver } = closedAfterEach();

function dispatcher(options: Parameters<typeof createWebhookDispatcher>[0] = {}): WebhookDispatcher {
  const d = createWebhookDispatcher(options);
  cleanups.push(() => d.close());
  return d;
}

function pending(state: WebhookDispatcherState): PendingDelivery[] {
  return state.pending.filter(isPendingDelivery);
}

/** Through JSON, as the sandbox's state file does. */
function roundTrip(state: WebhookDispatcherState): WebhookDispatcherState {
  return JSON.parse(JSON.stringify(state)) as WebhookDispatcherState;
}

describe('snapshot() and restore()', () => {
  it('carries a waiting retry, the failure queue and the history into a new dispatcher', async () => {
    let answer = 503;
    const r = await receiver(() => ({ status: answer }));
    const refused = 'http://192.0.2.10/hook';

    // A retry 500 ms away (5 s at time scale 10): enough to save and close before it is due.
    let first!: WebhookDispatcher;
    let saved: WebhookDispatcherState | undefined;
    let savedResolve: () => void = () => undefined;
    const savedOnce = new Promise<void>((resolve) => (savedResolve = resolve));
    first = dispatcher({
      timeScale: 10,
      onChange() {
        const state = first.snapshot();
        if (saved === undefined && pending(state).some((p) => p.attempts === 1) && state.failed.length === 1) {
          saved = roundTrip(state);
          // close() clears the retry timer synchronously, before it can fire.
          void first.close();
          savedResolve();
        }
      },
    });
    const target = { tenantId: TENANT, primaryUri: `${r.url}/hook`, secret: 's3cret', basicAuthUsername: 'u', basicAuthPassword: 'p' };
    const waitingId = first.dispatch(target, 'DeliveryReceipt', { messageId: 'm-1', status: 'delivered' });
    const failedId = first.dispatch({ tenantId: TENANT, primaryUri: refused }, 'OrderStatus', { orderId: 'o-1' });
    await savedOnce;
    await first.idle();

    const state = saved!;
    expect(state.failed.map((f) => f.deliveryId)).toEqual([failedId]);
    expect(state.attempts.map((a) => [a.deliveryId, a.attempt, a.status])).toEqual([[waitingId, 1, 503]]);
    const [waiting] = pending(state);
    expect(state.pending).toHaveLength(1);
    expect(waiting).toMatchObject({
      deliveryId: waitingId,
      event: 'DeliveryReceipt',
      target,
      body: '{"messageId":"m-1","status":"delivered"}',
      attempts: 1,
      lastStatus: 503,
      lastError: 'answered HTTP 503',
    });
    expect(waiting!.nextAttemptAtMs - waiting!.lastAttemptAtMs!).toBeCloseTo(500, 2);

    answer = 200;
    const changes: string[] = [];
    const second = dispatcher({
      timeScale: 10,
      onChange: () => changes.push('change'),
    });
    second.restore(state);
    expect(changes.length).toBeGreaterThan(0);
    expect(second.failed()).toEqual(state.failed);
    expect(pending(second.snapshot()).map((p) => p.deliveryId)).toEqual([waitingId]);
    await second.idle();

    // The retry went out once, at its saved due time, with the same id and signed bytes.
    expect(r.received).toHaveLength(2);
    const retry = r.received[1]!;
    expect(retry.headers['x-svc-delivery']).toBe(waitingId);
    expect(verifySignature(retry.body, String(retry.headers['x-svc-signature']), 's3cret').valid).toBe(true);
    expect(second.deliveries().map((a) => [a.deliveryId, a.attempt, a.status])).toEqual([
      [waitingId, 1, 503],
      [waitingId, 2, 200],
    ]);
    expect(Date.parse(second.deliveries()[1]!.at)).toBeGreaterThanOrEqual(waiting!.nextAttemptAtMs);
    expect(second.snapshot().pending).toEqual([]);

    // A restored failure can be replayed like any other.
    expect(second.replay(failedId!, { tenantId: TENANT, primaryUri: `${r.url}/fixed` })).toBe(true);
    await second.idle();
    expect(r.received.map((q) => q.path)).toEqual(['/hook', '/hook', '/fixed']);
    expect(second.failed()).toEqual([]);
  });

  it('saves an attempt cut short by close() as due at once, and attempts it again after restore', async () => {
    let hang = true;
    const r = await receiver(() => (hang ? 'hang' : { status: 204 }));
    const first = dispatcher({ attemptTimeoutMs: 60_000 });
    const id = first.dispatch({ tenantId: TENANT, primaryUri: r.url }, 'MessageReceived', { m: 1 });
    await r.waitForRequests(1);
    const whileInFlight = pending(first.snapshot());
    expect(whileInFlight.map((p) => [p.deliveryId, p.attempts])).toEqual([[id, 0]]);
    await first.close();
    const state = roundTrip(first.snapshot());
    expect(pending(state).map((p) => [p.deliveryId, p.attempts, p.lastStatus])).toEqual([[id, 0, null]]);
    expect(state.attempts).toEqual([]);

    hang = false;
    const second = dispatcher();
    second.restore(state);
    await second.idle();
    expect(r.received).toHaveLength(2);
    expect(r.received[1]!.headers['x-svc-delivery']).toBe(id);
    expect(second.deliveries()).toMatchObject([{ deliveryId: id, attempt: 1, status: 204 }]);
  });

  it('drops what a damaged state file got wrong and keeps the rest', async () => {
    const r = await receiver(() => ({ status: 200 }));
    const d = dispatcher();
    const good: PendingDelivery = {
      deliveryId: 'dlv_good',
      event: 'OrderStatus',
      target: { tenantId: TENANT, primaryUri: r.url },
      body: '{"ok":true}',
      attempts: 2,
      firstAttemptAtMs: Date.now() - 1_000,
      lastAttemptAtMs: Date.now() - 500,
      nextAttemptAtMs: Date.now() - 1,
      lastStatus: 500,
      lastError: 'answered HTTP 500',
    };
    d.restore({
      pending: [good, { ...good, deliveryId: 'dlv_bad', event: 'Nope' }, { ...good, deliveryId: 'dlv_bad2', body: 7 }, null, 'x', good],
      failed: [{ deliveryId: 'half' }] as unknown as WebhookDispatcherState['failed'],
      attempts: [{ nonsense: true }] as unknown as WebhookDispatcherState['attempts'],
    });
    await d.idle();
    expect(r.received).toHaveLength(1);
    expect(r.received[0]!.body.toString('utf8')).toBe('{"ok":true}');
    expect(d.deliveries()).toMatchObject([{ deliveryId: 'dlv_good', attempt: 3, status: 200 }]);
    expect(d.failed()).toEqual([]);
  });

  it('keeps only the newest attempts in the history', async () => {
    const r = await receiver(() => ({ status: 200 }));
    const d = dispatcher({ historyLimit: 5, maxConcurrentAttempts: 1 });
    const ids = Array.from({ length: 12 }, (_, i) => d.dispatch({ tenantId: TENANT, primaryUri: r.url }, 'DeliveryReceipt', { i }));
    await d.idle();
    const history = d.deliveries();
    expect(history).toHaveLength(5);
    const order = r.received.map((q) => q.headers['x-svc-delivery']);
    expect(history.map((a) => a.deliveryId)).toEqual(order.slice(-5));
    expect(new Set(order)).toEqual(new Set(ids));
    expect(d.snapshot().attempts).toEqual(history);
  });
});
