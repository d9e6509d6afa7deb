import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ENDPOINT_NAMES,
  ENDPOINTS,
  PATH_PARAMETERS,
  endpointPath,
  placeholders,
  type CalledEndpointName,
  type EndpointName,
} from '../../src/domain/api/endpoints.js';
import * as enums from '../../src/domain/api/enums.js';
import { MEDIA_FORMATS } from '../../src/domain/media-formats.js';
import { ApiClient } from '../../src/api/http.js';
import { getHealth } from '../../src/api/health.js';
import { getMessage, sendMessage } from '../../src/api/messages.js';
import { uploadMedia } from '../../src/api/media.js';
import { getPhoneNumber, listActiveNumbers, submitNumberOrder, updatePhoneNumber, uploadLoaDocument } from '../../src/api/numbers.js';
import { getOrder } from '../../src/api/orders.js';
import { listFailedWebhooks, listWebhookDeliveries, replayFailedWebhook, simulateInbound, triggerEvent } from '../../src/api/sandbox.js';
import { createTenant, getTenant, listTenants, updateTenant } from '../../src/api/tenants.js';
import { apiRoot } from '../../src/config/settings.js';
import type { ApiCall, RouteTable } from '../../src/sandbox/call.js';
import type { SandboxEngine } from '../../src/sandbox/engine.js';
import type { BasicAuthenticator } from '../../src/sandbox/auth.js';
import { openApiDocument } from '../../src/sandbox/openapi.js';
import { Router } from '../../src/sandbox/router.js';
import { fakeClock } from '../helpers/cli.js';
import { createMockApi, MOCK_ENV, MOCK_ORIGIN, type MockApi } from '../helpers/mock-api.js';

// The API is written down once, in src/domain/api/. These tests hold the three places built on it
// to it: the client calls every endpoint by the table's method and path, the sandbox routes every
// endpoint to its own handler, and the OpenAPI document has every endpoint and only those, with
// the contract's enumerations and nothing listed by hand.

const GUID = '0f8fad5b-d9cb-469f-a165-70867728950e';
/** A value for each path parameter, with characters that must be encoded. */
const SAMPLE: Record<keyof typeof PATH_PARAMETERS, string> = {
  tenantId: GUID,
  orderId: '42',
  phoneNumber: '+15551234567',
  messageId: GUID,
  deliveryId: 'dlv 1/2',
  mediaId: GUID,
  fileName: 'a b.png',
};

function sampleParams(name: EndpointName): Record<string, string> {
  return Object.fromEntries(placeholders(ENDPOINTS[name].path).map((p) => [p, SAMPLE[p]]));
}

describe('the path builder', () => {
  it('fills each parameter, percent-encoded', () => {
    expect(endpointPath('getNumber', { phoneNumber: '+15551234567' })).toBe('/phone-numbers/%2B15551234567');
    expect(endpointPath('replayFailedEvent', { deliveryId: 'dlv 1/2' })).toBe('/sandbox/webhooks/failed/dlv%201%2F2/replay');
    expect(endpointPath('listTenants', {})).toBe('/tenants');
  });

  it('knows every parameter a template names', () => {
    for (const name of ENDPOINT_NAMES) for (const param of placeholders(ENDPOINTS[name].path)) expect(PATH_PARAMETERS, `${name}: ${param}`).toHaveProperty(param);
  });
});

describe('the client', () => {
  let mock: MockApi;
  afterEach(async () => {
    await mock.agent.close();
  });

  const file = { fileName: 'a.png', contentType: 'image/png', bytes: new Uint8Array([1]) };
  // One client call per endpoint the CLI calls: leaving one out does not compile.
  const CALLS: { [K in CalledEndpointName]: { run: (api: ApiClient) => Promise<unknown>; query?: string } } = {
    getHealth: { run: (api) => getHealth(api) },
    listTenants: { run: (api) => listTenants(api) },
    createTenant: { run: (api) => createTenant(api, {}) },
    getTenant: { run: (api) => getTenant(api, SAMPLE.tenantId) },
    updateTenant: { run: (api) => updateTenant(api, SAMPLE.tenantId, {}) },
    provisionNumbers: { run: (api) => submitNumberOrder(api, { action: 'Unprovision', tenantId: GUID, phoneNumbers: [{ number: '+15551234567' }] }) },
    uploadLoa: { run: (api) => uploadLoaDocument(api, { body: new Uint8Array([1]), contentType: 'multipart/form-data; boundary=x' }) },
    getOrder: { run: (api) => getOrder(api, SAMPLE.orderId) },
    listActiveNumbers: { run: (api) => listActiveNumbers(api, { page: 2, limit: 5 }), query: '?page=2&limit=5' },
    getNumber: { run: (api) => getPhoneNumber(api, SAMPLE.phoneNumber) },
    updateNumber: { run: (api) => updatePhoneNumber(api, SAMPLE.phoneNumber, {}) },
    sendMessage: { run: (api) => sendMessage(api, { from: '+15551234567', to: ['+15557654321'], body: 'hi' }, { isAsync: true }), query: '?isAsync=true' },
    getMessage: { run: (api) => getMessage(api, SAMPLE.messageId) },
    uploadMedia: { run: (api) => uploadMedia(api, file, { number: '+15551234567', tenantId: GUID }, 'a') },
    simulateInbound: { run: (api) => simulateInbound(api, { to: '+15551234567', from: '+15557654321', body: 'hi' }) },
    triggerMessageReceived: { run: (api) => triggerEvent(api, 'message-received', {}) },
    triggerDeliveryReceipt: { run: (api) => triggerEvent(api, 'delivery-receipt', {}) },
    triggerOrderStatus: { run: (api) => triggerEvent(api, 'order-status', {}) },
    listDeliveries: { run: (api) => listWebhookDeliveries(api) },
    listFailedEvents: { run: (api) => listFailedWebhooks(api) },
    replayFailedEvent: { run: (api) => replayFailedWebhook(api, SAMPLE.deliveryId) },
  };

  it.each(Object.keys(CALLS) as CalledEndpointName[])('calls %s by the method and path of the contract', async (name) => {
    mock = createMockApi();
    const endpoint = ENDPOINTS[name];
    const answer = endpoint.answer === 'list' ? [] : { uri: 'https://x.test/m', fileName: 'a.png' };
    const call = CALLS[name];
    mock.expect(endpoint.method, `${endpointPath(name, sampleParams(name) as never)}${call.query ?? ''}`, { status: endpoint.ok[0] as number, body: answer });
    const api = new ApiClient({ root: apiRoot(MOCK_ORIGIN), username: MOCK_ENV.SVC_USERNAME, password: MOCK_ENV.SVC_PASSWORD, timeoutMs: 5_000, clock: fakeClock(), env: {}, dispatcher: mock.agent });
    await call.run(api);
    mock.verify();
  });

  it('takes the error statuses the contract accepts as answers (a health check 503)', async () => {
    mock = createMockApi();
    mock.expect('GET', '/health', { status: 503, body: { status: 'Unhealthy' } });
    const api = new ApiClient({ root: apiRoot(MOCK_ORIGIN), username: MOCK_ENV.SVC_USERNAME, password: MOCK_ENV.SVC_PASSWORD, timeoutMs: 5_000, clock: fakeClock(), env: {}, dispatcher: mock.agent });
    expect(await getHealth(api)).toEqual({ status: 'Unhealthy' });
  });
});

describe('the sandbox router', () => {
  /** A route table whose every handler says which endpoint it is. */
  function recordingTable(seen: { name: string; params: unknown }[]): RouteTable {
    return Object.fromEntries(ENDPOINT_NAMES.map((name) => [name, (call: ApiCall<EndpointName>) => void seen.push({ name, params: { ...call.params } })])) as unknown as RouteTable;
  }

  it.each(ENDPOINT_NAMES)('routes %s to its own handler, with its path parameters decoded', (name) => {
    const seen: { name: string; params: unknown }[] = [];
    const auth = { authenticate: () => 'owner@example.com' } as unknown as BasicAuthenticator;
    const router = new Router(recordingTable(seen), {} as SandboxEngine, auth, () => false);
    const endpoint = ENDPOINTS[name];
    const under = 'site' in endpoint ? '' : '/api/v1';
    const req = { method: endpoint.method, url: `${under}${endpointPath(name, sampleParams(name) as never)}?x=1`, headers: {} } as unknown as IncomingMessage;
    router.handle(req, {} as ServerResponse);
    expect(seen).toEqual([{ name, params: sampleParams(name) }]);
  });
});

describe('the OpenAPI document', () => {
  const doc = openApiDocument() as {
    paths: Record<string, Record<string, { operationId?: string; tags?: string[] } | unknown[]>>;
    webhooks: Record<string, unknown>;
    components: { schemas: Record<string, unknown> };
  };

  it('has every endpoint of the contract at its path and method, and nothing else', () => {
    const documented: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (method === 'parameters' || method === 'servers') continue;
        documented.push(`${(op as { operationId: string }).operationId} ${method.toUpperCase()} ${path}`);
      }
    }
    expect(documented.sort()).toEqual(ENDPOINT_NAMES.map((name) => `${name} ${ENDPOINTS[name].method} ${ENDPOINTS[name].path}`).sort());
  });

  it('answers each endpoint with the good statuses of the contract', () => {
    for (const name of ENDPOINT_NAMES) {
      const { method, path, ok } = ENDPOINTS[name];
      const op = doc.paths[path]?.[method.toLowerCase()] as { responses: Record<string, unknown> };
      expect(Object.keys(op.responses).filter((s) => /^2\d\d$/.test(s)), name).toEqual(ok.map(String));
    }
  });

  it('names the webhook events of the contract', () => {
    expect(Object.keys(doc.webhooks)).toEqual([...enums.WEBHOOK_EVENT_KINDS]);
  });

  it('lists no enumeration by hand: every enum in it is one of the contract', () => {
    const known = [
      ...(Object.values(enums) as unknown[]).filter((v): v is readonly (string | number)[] => Array.isArray(v)),
      MEDIA_FORMATS.map((f) => f.contentType),
    ].map((values) => JSON.stringify(values));
    const found: string[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (typeof node === 'object' && node !== null) {
        for (const [key, value] of Object.entries(node)) {
          if (key === 'enum') found.push(JSON.stringify(value));
          walk(value);
        }
      }
    };
    walk(doc);
    expect(found.length).toBeGreaterThan(15);
    for (const values of found) expect(known, values).toContain(values);
  });

  it('gives each status and kind field the contract enumeration', () => {
    const schemas = doc.components.schemas as Record<string, { properties: Record<string, { enum?: unknown; items?: { properties: Record<string, { enum?: unknown }> } }> }>;
    const enumOf = (schema: string, field: string): unknown => schemas[schema]?.properties[field]?.enum;
    for (const schema of ['Message', 'SendAnswer', 'DeliveryReceipt']) expect(enumOf(schema, 'status'), schema).toEqual([...enums.MESSAGE_STATUSES]);
    expect(enumOf('Order', 'status')).toEqual([...enums.ORDER_STATUSES]);
    expect(enumOf('PhoneNumber', 'status')).toEqual([...enums.NUMBER_STATUSES]);
    expect(schemas['Order']?.properties['phoneNumbers']?.items?.properties['status']?.enum).toEqual([...enums.NUMBER_STATUSES]);
    for (const schema of ['TriggerAnswer', 'DeliveryAttempt', 'FailedEvent']) expect(enumOf(schema, 'event'), schema).toEqual([...enums.WEBHOOK_EVENT_KINDS]);
    expect((schemas['Error']?.properties['errorCode'] as { enum: unknown }).enum).toEqual([...enums.ERROR_CODES]);
    expect(enumOf('Message', 'encoding')).toEqual([...enums.SMS_ENCODINGS]);
  });
});
