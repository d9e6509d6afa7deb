import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { verifySignature } from '../../src/domain/signature.js';
import { eventually, obj, request } from './helpers.js';
import { ExchangeLog } from './openapi-check.js';

// The API wired to the real dispatcher: events reach a local listener, signed, with Basic auth.

interface Received {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

let listener: Server;
let listenerUrl: string;
const received: Received[] = [];
let sandbox: RunningSandbox;
const exchanges = new ExchangeLog();

beforeAll(async () => {
  listener = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  listenerUrl = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/hook`;
  sandbox = await startSandbox({ port: 0, timeScale: 50, observe: exchanges.observe });
});
afterAll(async () => {
  await sandbox.close();
  exchanges.assertClean();
  listener.closeAllConnections();
  await new Promise<void>((resolve) => listener.close(() => resolve()));
});

describe('webhooks through the real dispatcher', () => {
  it('delivers order status, delivery receipts and an inbound message to the tenant’s listener', async () => {
    const tenant = obj(await request(sandbox.apiUrl, 'POST', '/tenants', {
      settings: {
        webhookPrimaryUri: listenerUrl,
        webhookSecret: 'wire-secret',
        webhookBasicAuthUsername: 'hook-user',
        webhookBasicAuthPassword: 'hook-pass',
        webhookEventType: 'All',
      },
    }));
    const tenantId = tenant['tenantId'] as string;
    await request(sandbox.apiUrl, 'POST', '/phone-numbers/provision', {
      action: 'Provision',
      tenantId,
      phoneNumbers: [{ number: '+14155550800', messagingFeature: { provisionType: 'SMS', provisionClass: 'P2P' } }],
    });
    await eventually(async () => (obj(await request(sandbox.apiUrl, 'GET', '/phone-numbers/%2B14155550800'))['status'] === 'Active' ? true : undefined));
    const sent = obj(await request(sandbox.apiUrl, 'POST', '/messages?isAsync=true', { from: '+14155550800', to: ['+14155559800'], body: 'hi' }));
    await request(sandbox.apiUrl, 'POST', '/sandbox/inbound', { to: '+14155550800', from: '+14155559801', body: 'hello back' });

    const events = await eventually(() => {
      const kinds = received.map((r) => r.headers['x-svc-event']);
      const delivered = received.some((r) => r.headers['x-svc-event'] === 'DeliveryReceipt' && (JSON.parse(r.body.toString()) as Record<string, unknown>)['status'] === 'delivered');
      return kinds.includes('OrderStatus') && kinds.includes('MessageReceived') && delivered ? received : undefined;
    });
    for (const event of events) {
      expect(verifySignature(event.body, event.headers['x-svc-signature'] as string | undefined, 'wire-secret').valid).toBe(true);
      expect(event.headers['authorization']).toBe(`Basic ${Buffer.from('hook-user:hook-pass').toString('base64')}`);
    }
    const inbound = events.find((e) => e.headers['x-svc-event'] === 'MessageReceived');
    expect(JSON.parse(inbound?.body.toString() ?? '{}')).toMatchObject({ type: 0, message: 'hello back', tenantId, tos: ['+14155550800'] });
    const receipt = events.find((e) => e.headers['x-svc-event'] === 'DeliveryReceipt');
    expect(JSON.parse(receipt?.body.toString() ?? '{}')).toMatchObject({ messageId: sent['messageId'] });

    const deliveries = await request(sandbox.apiUrl, 'GET', '/sandbox/webhooks/deliveries');
    expect((deliveries.json as unknown[]).length).toBeGreaterThanOrEqual(events.length);
  });
});
