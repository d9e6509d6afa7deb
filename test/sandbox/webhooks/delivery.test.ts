import { describe, expect, it } from 'vitest';
import { createWebhookDispatcher } from '../../../src/sandbox/webhooks/dispatcher.js';
import { webhookUriRefusal } from '../../../src/sandbox/webhooks/post-webhook.js';
import type { WebhookDispatcher, WebhookEventKind, WebhookTarget } from '../../../src/sandbox/webhooks/types.js';
import { verifySignature } from '../../../src/domain/signature.js';
import { closedAfterEach, unusedLoopbackUrl } from './receiver.js';

const TENANT = '0b6f0a54-8f3e-4a47-9a57-1c1b9f0f6d11';

const { cleanups, receiver } = closedAfterEach();

function dispatcher(options: Parameters<typeof createWebhookDispatcher>[0] = {}): WebhookDispatcher {
  const d = createWebhookDispatcher(options);
  cleanups.push(() => d.close());
  return d;
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

describe('webhook delivery', () => {
  it('posts the payload once with the event, delivery id, signature and Basic auth headers', async () => {
    const r = await receiver();
    const d = dispatcher();
    const target: WebhookTarget = {
      tenantId: TENANT,
      primaryUri: `${r.url}/hooks/in?tenant=a`,
      secret: 'whsec-ünïcode-secret',
      basicAuthUsername: 'hook-user',
      basicAuthPassword: 'p@ss:word',
    };
    const payload = { messageId: 'a4a3c9f5-1c44-4f5e-8b43-6a0f9b5e2c11', message: 'héllo ☃ 👋', type: 0 };

    const id = d.dispatch(target, 'MessageReceived', payload);
    expect(id).toMatch(/^dlv_[0-9a-f]{24}$/);
    await d.idle();

    expect(r.received).toHaveLength(1);
    const request = r.received[0]!;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/hooks/in?tenant=a');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['x-svc-event']).toBe('MessageReceived');
    expect(request.headers['x-svc-delivery']).toBe(id);
    expect(request.headers['user-agent']).toMatch(/^svc-sandbox-webhooks\//);
    expect(Number(request.headers['content-length'])).toBe(request.body.length);
    expect(JSON.parse(request.body.toString('utf8'))).toEqual(payload);

    const signature = header(request.headers['x-svc-signature']);
    expect(verifySignature(request.body, signature, 'whsec-ünïcode-secret')).toEqual({ valid: true, secretIndex: 0 });
    expect(verifySignature(request.body, signature, 'another-secret')).toEqual({ valid: false, reason: 'mismatch' });

    const authorization = header(request.headers.authorization) ?? '';
    expect(authorization.startsWith('Basic ')).toBe(true);
    expect(Buffer.from(authorization.slice(6), 'base64').toString('utf8')).toBe('hook-user:p@ss:word');

    const history = d.deliveries();
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ deliveryId: id, event: 'MessageReceived', tenantId: TENANT, attempt: 1, status: 200, error: null });
    expect(Number.isNaN(Date.parse(history[0]!.at))).toBe(false);
    expect(d.failed()).toEqual([]);
  });

  it('sends no signature without a secret and no Authorization without credentials', async () => {
    const r = await receiver();
    const d = dispatcher();
    d.dispatch({ tenantId: TENANT, primaryUri: r.url }, 'DeliveryReceipt', { status: 'delivered' });
    await d.idle();
    expect(r.received).toHaveLength(1);
    expect(r.received[0]!.headers['x-svc-signature']).toBeUndefined();
    expect(r.received[0]!.headers.authorization).toBeUndefined();
  });

  it('gives every event its own delivery id', async () => {
    const r = await receiver();
    const d = dispatcher();
    const target = { tenantId: TENANT, primaryUri: r.url };
    const ids = Array.from({ length: 50 }, (_, i) => d.dispatch(target, 'DeliveryReceipt', { i }));
    await d.idle();
    expect(new Set(ids).size).toBe(50);
    expect(new Set(r.received.map((q) => q.headers['x-svc-delivery']))).toEqual(new Set(ids));
  });

  it('applies the event filter: All (the default) sends everything, the others one kind', async () => {
    const r = await receiver();
    const d = dispatcher();
    const filters = ['All', 'MessageReceived', 'OrderStatus', undefined] as const;
    const events: WebhookEventKind[] = ['MessageReceived', 'DeliveryReceipt', 'OrderStatus'];
    const accepted: Record<string, WebhookEventKind[]> = {};
    for (const filter of filters) {
      const name = filter ?? 'default';
      accepted[name] = [];
      for (const event of events) {
        const target: WebhookTarget = { tenantId: TENANT, primaryUri: `${r.url}/${name}`, eventType: filter };
        if (d.dispatch(target, event, { event }) !== null) accepted[name]!.push(event);
      }
    }
    await d.idle();

    expect(accepted).toEqual({
      All: events,
      default: events,
      MessageReceived: ['MessageReceived'],
      OrderStatus: ['OrderStatus'],
    });
    const arrived = (path: string): unknown[] => r.received.filter((q) => q.path === path).map((q) => q.headers['x-svc-event']).sort();
    expect(arrived('/All')).toEqual(['DeliveryReceipt', 'MessageReceived', 'OrderStatus']);
    expect(arrived('/default')).toEqual(['DeliveryReceipt', 'MessageReceived', 'OrderStatus']);
    expect(arrived('/MessageReceived')).toEqual(['MessageReceived']);
    expect(arrived('/OrderStatus')).toEqual(['OrderStatus']);
  });

  it('sends nothing and returns null without a primary URI, even with a secondary', async () => {
    const r = await receiver();
    const d = dispatcher();
    expect(d.dispatch({ tenantId: TENANT }, 'OrderStatus', {})).toBeNull();
    expect(d.dispatch({ tenantId: TENANT, primaryUri: '', secondaryUri: r.url }, 'OrderStatus', {})).toBeNull();
    await d.idle();
    expect(r.received).toHaveLength(0);
    expect(d.snapshot()).toEqual({ pending: [], failed: [], attempts: [] });
  });

  it('falls back at once to the secondary URI when the primary answers an error', async () => {
    const primary = await receiver(() => ({ status: 500 }));
    const secondary = await receiver();
    const d = dispatcher();
    const id = d.dispatch(
      { tenantId: TENANT, primaryUri: `${primary.url}/p`, secondaryUri: `${secondary.url}/s`, secret: 'k' },
      'OrderStatus',
      { orderId: 'o-1', status: 'Completed' },
    );
    await d.idle();

    expect(primary.received).toHaveLength(1);
    expect(secondary.received).toHaveLength(1);
    const [p, s] = [primary.received[0]!, secondary.received[0]!];
    expect(s.body.equals(p.body)).toBe(true);
    expect(s.headers['x-svc-delivery']).toBe(id);
    expect(s.headers['x-svc-signature']).toBe(p.headers['x-svc-signature']);
    expect(verifySignature(s.body, header(s.headers['x-svc-signature']), 'k').valid).toBe(true);
    expect(d.deliveries().map((a) => [a.attempt, a.url, a.status])).toEqual([
      [1, `${primary.url}/p`, 500],
      [1, `${secondary.url}/s`, 200],
    ]);
    expect(d.snapshot().pending).toEqual([]);
    expect(d.failed()).toEqual([]);
  });

  it('falls back to the secondary when the primary refuses the connection', async () => {
    const secondary = await receiver();
    const d = dispatcher();
    const closedPort = await unusedLoopbackUrl();
    d.dispatch({ tenantId: TENANT, primaryUri: closedPort, secondaryUri: secondary.url }, 'DeliveryReceipt', {});
    await d.idle();
    expect(secondary.received).toHaveLength(1);
    const [first, second] = d.deliveries();
    expect(first).toMatchObject({ status: null });
    expect(first!.error).toMatch(/^connection failed: .*ECONNREFUSED/);
    expect(second).toMatchObject({ status: 200, error: null });
  });

  it('counts a timeout as a failure and moves on to the secondary', async () => {
    const primary = await receiver(() => 'hang');
    const secondary = await receiver();
    // Scaled retries, so that a secondary slowed past the timeout by a busy machine only adds a
    // quick retry instead of failing the test.
    const d = dispatcher({ attemptTimeoutMs: 150, timeScale: 1000 });
    const id = d.dispatch({ tenantId: TENANT, primaryUri: primary.url, secondaryUri: secondary.url }, 'MessageReceived', {});
    await d.idle();
    const history = d.deliveries();
    expect(history[0]).toMatchObject({ attempt: 1, url: `${primary.url}/`, status: null, error: 'timed out after 150 ms' });
    expect(history[1]).toMatchObject({ attempt: 1, url: `${secondary.url}/` });
    expect(history[history.length - 1]).toMatchObject({ deliveryId: id, url: `${secondary.url}/`, status: 200 });
    expect(history.filter((a) => a.url === `${primary.url}/`).every((a) => a.error === 'timed out after 150 ms')).toBe(true);
    expect(d.failed()).toEqual([]);
  });

  it('keeps credentials written into a URI out of the request and the history', async () => {
    const r = await receiver();
    const d = dispatcher();
    const port = new URL(r.url).port;
    d.dispatch({ tenantId: TENANT, primaryUri: `http://hook-user:uri-pw@127.0.0.1:${port}/in` }, 'OrderStatus', {});
    await d.idle();
    expect(r.received).toHaveLength(1);
    // Basic auth comes from the tenant's settings only.
    expect(r.received[0]!.headers.authorization).toBeUndefined();
    expect(d.deliveries().map((a) => a.url)).toEqual([`http://127.0.0.1:${port}/in`]);
  });

  it('never calls plain http:// outside loopback: the event fails for good with a clear reason', async () => {
    const loopback = await receiver();
    const d = dispatcher();
    const refusedPrimary = d.dispatch({ tenantId: TENANT, primaryUri: 'http://example.com/hook' }, 'OrderStatus', { n: 1 });
    const refusedSecondary = d.dispatch(
      { tenantId: TENANT, primaryUri: loopback.url, secondaryUri: 'http://user:pw@10.0.0.8:8080/hook' },
      'OrderStatus',
      { n: 2 },
    );
    const refusedScheme = d.dispatch({ tenantId: TENANT, primaryUri: 'ftp://127.0.0.1/hook' }, 'OrderStatus', { n: 3 });
    await d.idle();

    expect(loopback.received).toHaveLength(0);
    expect(d.deliveries()).toEqual([]);
    const failed = d.failed();
    expect(failed.map((f) => f.deliveryId).sort()).toEqual([refusedPrimary, refusedSecondary, refusedScheme].sort());
    const byPayload = (n: number) => failed.find((f) => (f.payload as { n: number }).n === n)!;
    expect(byPayload(1)).toMatchObject({ attempts: 0, lastStatus: null, tenantId: TENANT, event: 'OrderStatus' });
    expect(byPayload(1).lastError).toBe(
      'refused webhook URI http://example.com: only https:// URIs, or http:// URIs on a loopback host, are called',
    );
    expect(byPayload(2).lastError).toContain('http://10.0.0.8:8080');
    // Credentials in a URI never reach an error text.
    expect(byPayload(2).lastError).not.toContain('pw');
    expect(byPayload(3).lastError).toContain('ftp://127.0.0.1');
  });
});

describe('webhookUriRefusal', () => {
  it('allows https:// anywhere and http:// only on loopback hosts', () => {
    for (const allowed of [
      'https://hooks.example.com/in',
      'http://127.0.0.1:8080/hook',
      'http://127.9.8.7/hook',
      'http://localhost:3000/hook',
      'http://[::1]:3000/hook',
    ]) {
      expect(webhookUriRefusal(allowed), allowed).toBeNull();
    }
    for (const refused of [
      'http://example.com/hook',
      'http://10.0.0.1/hook',
      'http://128.0.0.1/hook',
      'http://localhost.example.com/hook',
      'ws://127.0.0.1/hook',
      'file:///etc/passwd',
      'not a url',
    ]) {
      expect(webhookUriRefusal(refused), refused).toMatch(/^refused webhook URI/);
    }
  });
});
