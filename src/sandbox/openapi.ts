// The sandbox's OpenAPI 3.1 document: the API as the document gives it and as the sandbox
// implements it (with the picks of docs/decisions.md where the document says "not shown"), its error
// shapes, the sandbox-only endpoints, and the webhook payloads under `webhooks`. Served at
// GET /api/v1/openapi.json (no authentication: it describes, it holds nothing) and printed by
// `svc sandbox openapi`. Its paths come from the contract (domain/api/endpoints.ts), its
// enumerations and patterns from the contract's tables, its settings from the tables the sandbox
// validates with, so they agree.

import { API_GROUPS, API_PREFIX } from '../domain/api/endpoints.js';
import { WEBHOOK_EVENT_KINDS, type WebhookEventKind } from '../domain/api/enums.js';
import { WEBHOOK_DELIVERY_HEADER, WEBHOOK_EVENT_HEADER, WEBHOOK_SIGNATURE_HEADER } from '../domain/webhooks.js';
import { body, ref, type Json } from './openapi/json-schema.js';
import { paths } from './openapi/paths.js';
import { RESOURCE_SCHEMAS } from './openapi/schemas-resources.js';
import { MESSAGING_SCHEMAS } from './openapi/schemas-messaging.js';

/** Each event's payload schema and what it is. */
const WEBHOOKS: Record<WebhookEventKind, { schema: string; summary: string }> = {
  MessageReceived: { schema: 'IncomingMessage', summary: 'An incoming message (filters All and MessageReceived)' },
  DeliveryReceipt: { schema: 'DeliveryReceipt', summary: 'A status change of an outbound message (filter All)' },
  OrderStatus: { schema: 'Order', summary: 'A provisioning order update (filters All and OrderStatus)' },
};

function webhook(event: WebhookEventKind): Json {
  const { schema, summary } = WEBHOOKS[event];
  return {
    post: {
      summary,
      operationId: `webhook${event}`,
      parameters: [
        { name: WEBHOOK_SIGNATURE_HEADER, in: 'header', required: false, description: 'Base64 HMAC-SHA256 of the raw body with the tenant webhookSecret (sent when a secret is set).', schema: { type: 'string' } },
        { name: WEBHOOK_EVENT_HEADER, in: 'header', required: true, schema: { const: event } },
        { name: WEBHOOK_DELIVERY_HEADER, in: 'header', required: true, description: 'Unique per event, the same on every retry.', schema: { type: 'string' } },
      ],
      requestBody: body(ref(schema)),
      responses: {
        '200': { description: 'Any 2xx acknowledges. Errors and timeouts (10 s) are retried with backoff for 24 h, then the event goes to the failure queue.' },
      },
    },
  };
}

/** The whole document; `apiUrl` is the server it describes (`{base}/api/v1`). */
export function openApiDocument(apiUrl = `http://127.0.0.1:4010${API_PREFIX}`): Json {
  // Hosted media links sit beside the API, not under /api/v1.
  const base = apiUrl.replace(/\/api\/v1\/?$/, '');
  return {
    openapi: '3.1.0',
    info: {
      title: 'Messaging service (svc sandbox)',
      version: '1.0.0',
      summary: 'Phone numbers, tenants, SMS/MMS, media and signed webhooks, as the svc sandbox implements them.',
      description:
        'The API of the messaging document, with the picks of the sandbox where the document says "not shown". Unset optional fields are left out of answers rather than null, except statusReason, errorCode, errorMessage and tag, which the document types "or null". Every error has the {message, title, errorCode} shape. Paths under /sandbox/ exist only in the sandbox.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: apiUrl }],
    security: [{ basicAuth: [] }],
    tags: API_GROUPS.map((name) => ({ name })),
    paths: paths(base),
    webhooks: Object.fromEntries(WEBHOOK_EVENT_KINDS.map((event) => [event, webhook(event)])),
    components: {
      securitySchemes: { basicAuth: { type: 'http', scheme: 'basic', description: 'The account email and password.' } },
      // A copy, so that whoever holds one document cannot change the next.
      schemas: structuredClone({ ...RESOURCE_SCHEMAS, ...MESSAGING_SCHEMAS }),
    },
  };
}
