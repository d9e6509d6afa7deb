// What the OpenAPI document says of each endpoint beyond the contract: its summary, query
// parameters, request body, and the description and body of each answer. Method, path, path
// parameters, tag and operation id come from the contract; an endpoint without an entry here, or
// an entry without one of its good statuses, does not compile.

import type { EndpointName, Endpoints } from '../../domain/api/endpoints.js';
import { MAX_MEDIA_BYTES, MAX_MEDIA_TOTAL_BYTES, MEDIA_FORMATS, MEDIA_TOO_LARGE_TEXT } from '../../domain/media-formats.js';
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT, WEBHOOK_HISTORY_LIMIT } from '../limits.js';
import { body, DEFAULT_ERROR, errorAnswer, guid, json, ref, str, type Json } from './json-schema.js';

export interface OperationDoc<K extends EndpointName> {
  summary: string;
  /** Query parameters. */
  query?: Json[];
  requestBody?: Json;
  /** The answer of each good status of the contract. */
  ok: { [S in Endpoints[K]['ok'][number]]: Json };
  /** Error answers worth their own description (every authenticated endpoint also gets the default one). */
  errors?: { [status: number]: Json; default?: Json };
}

const retryAfter = { 'Retry-After': { description: 'With 429: whole seconds until the request would be accepted.', schema: { type: 'string', pattern: '^\\d+$' } } };
const location = { Location: { schema: { type: 'string' } } };
const NO_CONTENT = { description: 'Done; no body.' };
const queued = json(ref('TriggerAnswer'), 'Queued for the tenant.');
/** A size limit as the document words it: 5 MB. */
const megabytes = (bytes: number): string => `${bytes / (1024 * 1024)} MB`;

export const OPERATIONS: { [K in EndpointName]: OperationDoc<K> } = {
  getOpenApi: {
    summary: 'This document',
    ok: { 200: json({ type: 'object' }, 'The OpenAPI 3.1 document of the sandbox.') },
  },
  getHealth: { summary: 'Service health', ok: { 200: json(ref('Health'), 'Healthy.') } },
  listTenants: { summary: 'Tenants of the caller', ok: { 200: json({ type: 'array', items: ref('Tenant') }, 'A bare array.') } },
  createTenant: {
    summary: 'Create a tenant',
    requestBody: body(ref('TenantWrite')),
    ok: { 201: json(ref('Tenant'), 'Created.', location) },
    errors: { 400: errorAnswer('Invalid JSON or fields (VALIDATION_ERROR, INVALID_JSON).'), 409: errorAnswer('The tenantId exists.') },
  },
  getTenant: { summary: 'Read a tenant', ok: { 200: json(ref('Tenant'), 'The tenant; secrets hidden.') } },
  updateTenant: { summary: 'Update a tenant', requestBody: body(ref('TenantWrite')), ok: { 204: NO_CONTENT }, errors: { 400: errorAnswer('Invalid fields.') } },
  provisionNumbers: {
    summary: 'Provision or unprovision numbers (an order)',
    requestBody: body(ref('ProvisionRequest')),
    ok: { 202: json(ref('Order'), 'The new order, Pending.', location) },
    errors: { 400: errorAnswer('Invalid fields.'), 409: errorAnswer('A number is already provisioned, or in an order.') },
  },
  uploadLoa: {
    summary: 'Upload a letter of authorization (PDF)',
    requestBody: {
      required: true,
      content: {
        'multipart/form-data': {
          schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', contentMediaType: 'application/pdf' } } },
        },
      },
    },
    ok: { 201: json({ type: 'object', required: ['loaUrl'], properties: { loaUrl: { type: 'string', format: 'uri' } }, additionalProperties: false }, 'Stored; loaUrl serves it.') },
    errors: { 413: errorAnswer(`Larger than ${megabytes(MAX_MEDIA_BYTES)}.`), 415: errorAnswer('Not a PDF.') },
  },
  getOrder: { summary: 'Read an order', ok: { 200: json(ref('Order'), 'The order.') } },
  listActiveNumbers: {
    summary: 'Active numbers of the caller, a page at a time',
    query: [
      { name: 'page', in: 'query', schema: { type: 'integer', minimum: 1, default: 1 } },
      { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, default: DEFAULT_PAGE_LIMIT }, description: `At most ${MAX_PAGE_LIMIT} (larger is clamped).` },
    ],
    ok: { 200: json(ref('ActivePhoneNumbers'), 'One page.') },
  },
  getNumber: { summary: 'Read a number', ok: { 200: json(ref('PhoneNumber'), 'The number.') } },
  updateNumber: { summary: 'Update a number', requestBody: body(ref('PhoneNumberUpdate')), ok: { 204: NO_CONTENT }, errors: { 400: errorAnswer('Invalid or immutable fields.') } },
  sendMessage: {
    summary: 'Send a message (one per recipient)',
    query: [{ name: 'isAsync', in: 'query', schema: { type: 'boolean' }, description: 'true: queued, answered 202 at once.' }],
    requestBody: body(ref('SendRequest')),
    ok: { 200: json(ref('SendAnswer'), 'Synchronous: status sent (or failed).'), 202: json(ref('SendAnswer'), 'isAsync=true: status queued.') },
    errors: {
      400: errorAnswer('Invalid fields, or from is not an active number of yours.'),
      413: errorAnswer(`Hosted media larger than ${megabytes(MAX_MEDIA_TOTAL_BYTES)} in total.`),
      429: { ...errorAnswer("Over the account's --rate-limit or the number's settings.rateLimit (sends per second)."), headers: retryAfter },
    },
  },
  getMessage: { summary: 'Read a message', ok: { 200: json(ref('Message'), 'The message.') } },
  uploadMedia: {
    summary: 'Upload media (either shape; the answer has the shape of the request)',
    requestBody: body({ oneOf: [ref('MediaUploadA'), ref('MediaUploadB')] }),
    ok: { 201: json({ oneOf: [ref('MediaAnswerA'), ref('MediaAnswerB')] }, 'Stored.') },
    errors: { 400: errorAnswer('Invalid fields.'), 413: errorAnswer(`${MEDIA_TOO_LARGE_TEXT}.`), 415: errorAnswer('Unsupported media type.') },
  },
  simulateInbound: {
    summary: 'Simulate an incoming message (= /sandbox/triggers/message-received)',
    requestBody: body(ref('InboundRequest')),
    ok: { 202: queued },
  },
  triggerMessageReceived: { summary: 'Trigger a MessageReceived webhook', requestBody: body(ref('InboundRequest')), ok: { 202: queued } },
  triggerDeliveryReceipt: {
    summary: 'Trigger a DeliveryReceipt webhook for one of your messages (its current receipt, with overrides); the message itself does not change',
    requestBody: body({ type: 'object', required: ['messageId'], properties: { messageId: guid(), set: ref('Overrides') } }),
    ok: { 202: queued },
  },
  triggerOrderStatus: {
    summary: 'Trigger an OrderStatus webhook for one of your orders (the order as it is, with overrides); the order itself does not change',
    requestBody: body({ type: 'object', required: ['orderId'], properties: { orderId: { type: 'integer' }, set: ref('Overrides') } }),
    ok: { 202: queued },
  },
  listDeliveries: {
    summary: `Webhook attempts to your tenants, oldest first (the last ${WEBHOOK_HISTORY_LIMIT.toLocaleString('en-US')})`,
    ok: { 200: json({ type: 'array', items: ref('DeliveryAttempt') }, 'Attempts.') },
  },
  listFailedEvents: {
    summary: 'Events that exhausted their retry window (the failure queue)',
    ok: { 200: json({ type: 'array', items: ref('FailedEvent') }, 'Failed events.') },
  },
  replayFailedEvent: {
    summary: 'Replay a failed event (same delivery id, fresh schedule)',
    ok: {
      202: json({ type: 'object', required: ['deliveryId', 'replayed'], properties: { deliveryId: str(), replayed: { const: true } }, additionalProperties: false }, 'Queued again.'),
    },
  },
  getMedia: {
    summary: 'A hosted media link (no authentication: the signed token is the key)',
    query: [
      { name: 'expires', in: 'query', required: true, schema: { type: 'string', pattern: '^\\d+$' } },
      { name: 'sig', in: 'query', required: true, schema: { type: 'string' } },
    ],
    ok: {
      200: {
        description: "The bytes, with the file's content type; Content-Disposition carries the exact name (RFC 5987).",
        content: Object.fromEntries(MEDIA_FORMATS.map((f) => [f.contentType, { schema: { type: 'string', contentMediaType: f.contentType } }])),
      },
    },
    errors: { 403: errorAnswer('Missing, forged or expired token.'), 404: errorAnswer('No such media.'), default: DEFAULT_ERROR },
  },
};
