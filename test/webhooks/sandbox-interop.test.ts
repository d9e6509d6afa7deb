import { afterEach, describe, expect, it } from 'vitest';
import { createWebhookDispatcher } from '../../src/sandbox/webhooks/dispatcher.js';
import type { WebhookDispatcher, WebhookTarget } from '../../src/sandbox/webhooks/types.js';
import { startWebhookListener } from '../../src/webhooks/listener.js';
import type { WebhookListener } from '../../src/webhooks/listener.js';
import { collectingSink, startFakeApp } from './helpers.js';
import type { FakeApp } from './helpers.js';
import { deliveryReceipt, incomingMessage, orderStatus } from './sample-payloads.js';

// The sandbox's dispatcher is our own model of the service's sender: what it sends, the listener
// must accept, recognise and deduplicate as a developer's receiver would.

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function pair(options: { forwardTo?: string } = {}): Promise<{
  listener: WebhookListener;
  dispatcher: WebhookDispatcher;
  sink: ReturnType<typeof collectingSink>;
  target: WebhookTarget;
}> {
  const sink = collectingSink();
  const listener = await startWebhookListener(
    { secrets: ['whsec-current', 'whsec-tenant'], basicAuth: { username: 'hooks', password: 'pw' }, ...options },
    sink,
  );
  cleanups.push(() => listener.close());
  // Retries 5 s x 2^n apart become milliseconds.
  const dispatcher = createWebhookDispatcher({ timeScale: 10_000 });
  cleanups.push(() => dispatcher.close());
  const target: WebhookTarget = {
    tenantId: orderStatus.tenantId,
    primaryUri: listener.url,
    secret: 'whsec-tenant',
    basicAuthUsername: 'hooks',
    basicAuthPassword: 'pw',
    eventType: 'All',
  };
  return { listener, dispatcher, sink, target };
}

async function fakeApp(): Promise<FakeApp> {
  const app = await startFakeApp();
  cleanups.push(() => app.close());
  return app;
}

describe('the sandbox dispatcher delivering to the listener', () => {
  it('is accepted: Basic auth, a signature under the previous secret, kind from X-Svc-Event, delivery ids', async () => {
    const { dispatcher, sink, target } = await pair();
    const ids = [
      dispatcher.dispatch(target, 'MessageReceived', incomingMessage),
      dispatcher.dispatch(target, 'DeliveryReceipt', deliveryReceipt),
      dispatcher.dispatch(target, 'OrderStatus', orderStatus),
    ];
    await dispatcher.idle();
    expect(sink.rejections).toEqual([]);
    expect(sink.events.map((event) => [event.kind, event.eventHeader, event.secretIndex, event.duplicate])).toEqual([
      ['MessageReceived', 'MessageReceived', 1, false],
      ['DeliveryReceipt', 'DeliveryReceipt', 1, false],
      ['OrderStatus', 'OrderStatus', 1, false],
    ]);
    expect(sink.events.map((event) => event.deliveryId)).toEqual(ids);
    expect(dispatcher.failed()).toEqual([]);
  });

  it('is refused with 401 when the tenant secret is not one the listener knows', async () => {
    const { dispatcher, sink, target } = await pair();
    dispatcher.dispatch({ ...target, secret: 'whsec-rotated-away' }, 'OrderStatus', orderStatus);
    // The dispatcher retries a 4xx; its first answer is enough here.
    for (;;) {
      if (dispatcher.deliveries().length > 0) break;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    expect(dispatcher.deliveries()[0]?.status).toBe(401);
    expect(sink.rejections[0]?.reason).toMatch(/signature mismatch/);
    expect(sink.events).toEqual([]);
  });

  it('relays through to an app that fails once: the retry reaches the app and is not a duplicate', async () => {
    const app = await fakeApp();
    const statuses = [503];
    app.respond = () => ({ status: statuses.shift() ?? 200, body: '' });
    const { dispatcher, sink, target } = await pair({ forwardTo: app.url });
    const id = dispatcher.dispatch(target, 'DeliveryReceipt', deliveryReceipt);
    await dispatcher.idle();
    expect(app.requests).toHaveLength(2);
    expect(app.requests.every((request) => request.headers['x-svc-delivery'] === id)).toBe(true);
    expect(sink.events.map((event) => [event.status, event.duplicate])).toEqual([
      [503, false],
      [200, false],
    ]);
    expect(dispatcher.deliveries().map((attempt) => attempt.status)).toEqual([503, 200]);
  });
});
