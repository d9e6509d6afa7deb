import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { openApiDocument } from '../../src/sandbox/openapi.js';
import type { HttpExchange } from '../../src/sandbox/index.js';
import { checkExchange } from './openapi-check.js';
import { startHarness, type Harness } from './helpers.js';

// The sandbox's OpenAPI 3.1 document: valid by the OpenAPI schema, served without
// authentication, and strict enough that the exchange checker (helpers.ts runs it on every
// request of every sandbox test) catches what does not conform.

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

function exchange(over: Partial<HttpExchange> & { answer?: unknown; request?: unknown }): HttpExchange {
  const { answer, request, ...rest } = over;
  return {
    method: 'GET',
    url: '/api/v1/health',
    requestHeaders: {},
    requestBody: request === undefined ? null : Buffer.from(JSON.stringify(request)),
    status: 200,
    responseHeaders: { 'content-type': 'application/json; charset=utf-8' },
    responseBody: Buffer.from(answer === undefined ? '' : JSON.stringify(answer)),
    ...rest,
  };
}

describe('the OpenAPI document', () => {
  it('passes the OpenAPI 3.1 schema (the linter)', async () => {
    const validator = new Validator();
    const result = await validator.validate(openApiDocument() as unknown as Parameters<Validator["validate"]>[0]);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('is served at GET /api/v1/openapi.json without authentication, naming this sandbox as its server', async () => {
    const answer = await h.api('GET', '/openapi.json', undefined, { auth: null });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.json).toEqual(openApiDocument(h.sandbox.apiUrl));
    const doc = answer.json as { openapi: string; servers: { url: string }[]; paths: Record<string, unknown>; webhooks: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers[0]?.url).toBe(h.sandbox.apiUrl);
    expect(Object.keys(doc.webhooks).sort()).toEqual(['DeliveryReceipt', 'MessageReceived', 'OrderStatus']);
    // Every endpoint of the API document, and the sandbox's own.
    for (const path of [
      '/health',
      '/tenants',
      '/tenants/{tenantId}',
      '/phone-numbers/provision',
      '/phone-numbers/loa',
      '/phone-numbers/orders/{orderId}',
      '/phone-numbers/active',
      '/phone-numbers/{phoneNumber}',
      '/messages',
      '/messages/{messageId}',
      '/media',
      '/sandbox/inbound',
      '/sandbox/triggers/message-received',
      '/sandbox/triggers/delivery-receipt',
      '/sandbox/triggers/order-status',
      '/sandbox/webhooks/deliveries',
      '/sandbox/webhooks/failed',
      '/sandbox/webhooks/failed/{deliveryId}/replay',
      '/media/{mediaId}/{fileName}',
    ]) {
      expect(doc.paths, path).toHaveProperty([path]);
    }
    // Other paths still need credentials.
    expect((await h.api('GET', '/health', undefined, { auth: null })).status).toBe(401);
  });

  it('makes the exchange checker catch answers and accepted requests that do not conform', () => {
    const health = { status: 'Healthy', totalDuration: '00:00:00.0012345', entries: [] };
    expect(checkExchange(exchange({ answer: health }))).toEqual([]);
    expect(checkExchange(exchange({ answer: { ...health, totalDuration: 5 } }))[0]).toMatch(/totalDuration/);
    // null where the document types a string
    const tenant = { tenantId: '00000000-0000-4000-8000-000000000000', owner: 'a', billableOwner: 'a', createdDate: '2030-01-01T00:00:00.000Z', settings: {} };
    const read = { url: '/api/v1/tenants/00000000-0000-4000-8000-000000000000' };
    expect(checkExchange(exchange({ ...read, answer: tenant }))).toEqual([]);
    expect(checkExchange(exchange({ ...read, answer: { ...tenant, domain: null } }))[0]).toMatch(/domain/);
    // An error that is not in the error shape
    expect(checkExchange(exchange({ status: 404, answer: { error: 'nope' } })).length).toBeGreaterThan(0);
    // A 2xx to a request the document refuses; the same request refused with 400 is fine.
    const send = { method: 'POST', url: '/api/v1/messages', request: { from: 'nope', to: [] } };
    const sent = { messageId: '00000000-0000-4000-8000-000000000000', status: 'queued', queuedAt: '2030-01-01T00:00:00.000Z' };
    expect(checkExchange(exchange({ ...send, status: 202, answer: sent }))[0]).toMatch(/accepted a request the document refuses/);
    expect(checkExchange(exchange({ ...send, status: 400, answer: { message: 'x', title: 'Bad Request', errorCode: 'VALIDATION_ERROR' } }))).toEqual([]);
    // 429 needs a Retry-After; 204 has no body
    expect(checkExchange(exchange({ ...send, request: undefined, status: 429, answer: { message: 'x', title: 'Too Many Requests', errorCode: 'RATE_LIMITED' } }))[0]).toMatch(/Retry-After/);
    expect(checkExchange(exchange({ method: 'PUT', url: read.url, status: 204, answer: {} }))[0]).toMatch(/no body/);
    // A literal path wins over a template: /phone-numbers/active is the list, not a number.
    expect(checkExchange(exchange({ url: '/api/v1/phone-numbers/active', answer: { items: [], page: 1, limit: 20, total: 0 } }))).toEqual([]);
  });
});

describe('exchange logs of sandboxes in other processes', () => {
  it('validates each logged line, and fails on a logged answer the document refuses', async () => {
    const { ExchangeLogFiles } = await import('./openapi-check.js');
    const { exchangeLogWriter, EXCHANGE_LOG_ENV } = await import('../../src/sandbox/exchange-log.js');
    const files = new ExchangeLogFiles();
    try {
      const failed = (error: unknown): never => {
        throw error;
      };
      const write = exchangeLogWriter(files.env()[EXCHANGE_LOG_ENV] as string, failed);
      write(exchange({ answer: { status: 'Healthy', totalDuration: '00:00:00.0012345', entries: [] }, requestHeaders: { authorization: 'Basic c2VjcmV0OnNlY3JldA==' } }));
      expect(files.check()).toBe(1);
      const bad = files.env()[EXCHANGE_LOG_ENV] as string;
      exchangeLogWriter(bad, failed)(exchange({ answer: { status: 'Healthy', totalDuration: 5, entries: [] }, requestHeaders: { authorization: 'Basic c2VjcmV0OnNlY3JldA==' } }));
      // The request's headers (credentials) are never written.
      expect(readFileSync(bad, 'utf8')).not.toContain('c2VjcmV0');
      expect(() => files.check()).toThrow(/violate the OpenAPI document/);
    } finally {
      files.dispose();
    }
  });
});
