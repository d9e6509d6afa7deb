// The sandbox's OpenAPI 3.1 document: the API as the document gives it and as the sandbox
// implements it (with the picks of decisions.md where the document says "not shown"), its error
// shapes, the sandbox-only endpoints, and the webhook payloads under `webhooks`. Served at
// GET /api/v1/openapi.json (no authentication: it describes, it holds nothing) and printed by
// `svc sandbox openapi`. Built from the same tables the sandbox validates with, so they agree.

import { NUMBER_SETTINGS_SCHEMA, type SettingsGroup, type SettingType } from '../domain/settings-schema.js';
import { MAX_MEDIA_PER_MESSAGE, MEDIA_FORMATS } from '../domain/media-formats.js';
import {
  BILLING_PLAN_NAMES,
  ORDER_ACTIONS,
  PLATFORM_TYPES,
  PROVISION_CLASSES,
  PROVISION_TYPES,
  WEBHOOK_EVENT_TYPES,
} from '../domain/validate.js';

type Json = Record<string, unknown>;

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const E164 = '^\\+[1-9]\\d{7,14}$';
const GUID = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const e164 = (description?: string): Json => ({ type: 'string', pattern: E164, ...(description ? { description } : {}) });
const guid = (description?: string): Json => ({ type: 'string', pattern: GUID, ...(description ? { description } : {}) });
const dateTime = (description?: string): Json => ({ type: 'string', format: 'date-time', ...(description ? { description } : {}) });
const str = (description?: string): Json => ({ type: 'string', ...(description ? { description } : {}) });
const nullableStr = (description: string): Json => ({ type: ['string', 'null'], description });
const enumOf = (values: readonly string[], description?: string): Json => ({ type: 'string', enum: [...values], ...(description ? { description } : {}) });
const json = (schema: Json, description: string, headers?: Json): Json => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema } },
});
const body = (schema: Json, description?: string): Json => ({
  required: true,
  ...(description ? { description } : {}),
  content: { 'application/json': { schema } },
});
const errorAnswer = (description: string): Json => json(ref('Error'), description);
const DEFAULT_ERROR = errorAnswer(
  'Any other error, in the 401 shape: 401 authentication, 403, 404 (also for a resource of another owner), 405, 409, 413, 415, 429 RATE_LIMITED (with Retry-After), and 500/503 under --faults.',
);

function settingSchema(type: SettingType): Json {
  switch (type) {
    case 'boolean':
      return { type: 'boolean' };
    case 'integer':
      return { type: 'integer' };
    case 'string':
      return { type: 'string' };
    case 'datetime':
      return { type: 'string', format: 'date-time' };
    case 'cron':
      return { type: 'string', description: 'cron expression (5 fields)' };
    case 'string[]':
      return { type: 'array', items: { type: 'string' } };
    case 'email[]':
      return { type: 'array', items: { type: 'string', format: 'email' } };
  }
}

/** The phone-number settings object; `nullable` for updates, where null removes a leaf. */
function settingsSchema(group: SettingsGroup, nullable: boolean): Json {
  const properties: Json = {};
  for (const [key, value] of Object.entries(group)) {
    const schema = typeof value === 'string' ? settingSchema(value) : settingsSchema(value, nullable);
    properties[key] = nullable ? { anyOf: [schema, { type: 'null' }] } : schema;
  }
  return { type: 'object', properties, additionalProperties: false };
}

const tenantSettingsProperties = (input: boolean): Json => {
  const s = (description: string): Json => (input ? { type: ['string', 'null'], description: `${description} null or "" removes it.` } : str(description));
  return {
    webhookPrimaryUri: s('https:// URL (http:// only for a loopback host, in the sandbox).'),
    webhookSecondaryUri: s('Fallback endpoint, same rules.'),
    webhookSecret: s(input ? 'HMAC-SHA256 signing secret; "********" (what a read shows) keeps the stored one.' : 'Always "********" when set: never shown in clear.'),
    webhookBasicAuthUsername: s('Basic auth user for calls to the endpoint.'),
    webhookBasicAuthPassword: s(input ? 'Basic auth password; "********" keeps the stored one.' : 'Always "********" when set.'),
    webhookEventType: input
      ? { anyOf: [enumOf(WEBHOOK_EVENT_TYPES), { type: 'null' }, { const: '' }], description: 'Event filter.' }
      : enumOf(WEBHOOK_EVENT_TYPES, 'Event filter (All when never set).'),
  };
};

function schemas(): Json {
  const mediaTypes = MEDIA_FORMATS.map((f) => f.contentType);
  return {
    Error: {
      type: 'object',
      description: 'Every error answer (the document gives it for 401; decisions.md for all).',
      required: ['message', 'title', 'errorCode'],
      properties: {
        message: str(),
        title: str(),
        errorCode: enumOf([
          'MISSING_AUTHORIZATION',
          'INVALID_CREDENTIALS',
          'INVALID_AUTHORIZATION_FORMAT',
          'VALIDATION_ERROR',
          'INVALID_JSON',
          'FORBIDDEN',
          'NOT_FOUND',
          'METHOD_NOT_ALLOWED',
          'CONFLICT',
          'FILE_TOO_LARGE',
          'UNSUPPORTED_MEDIA_TYPE',
          'RATE_LIMITED',
          'INTERNAL_ERROR',
          'SERVICE_UNAVAILABLE',
        ]),
      },
      additionalProperties: false,
    },
    Health: {
      type: 'object',
      required: ['status', 'totalDuration', 'entries'],
      properties: {
        status: str('Healthy when OK.'),
        totalDuration: { type: 'string', pattern: '^\\d{2}:\\d{2}:\\d{2}\\.\\d{7}$', description: '.NET time span.' },
        entries: {
          type: 'array',
          items: {
            type: 'object',
            required: ['name', 'status', 'duration'],
            properties: { name: str(), status: str(), duration: str(), data: { type: 'object', additionalProperties: { type: 'number' } } },
          },
        },
      },
    },
    TenantSettings: { type: 'object', properties: tenantSettingsProperties(false), additionalProperties: false, description: 'Unset fields are left out.' },
    TenantSettingsInput: { type: 'object', properties: tenantSettingsProperties(true), additionalProperties: false },
    Tenant: {
      type: 'object',
      required: ['tenantId', 'owner', 'billableOwner', 'createdDate', 'settings'],
      properties: {
        tenantId: guid(),
        owner: str('Read-only: the account that created it.'),
        billableOwner: str('Read-only.'),
        domain: str('Left out when unset.'),
        createdDate: dateTime(),
        settings: ref('TenantSettings'),
      },
      additionalProperties: false,
    },
    TenantWrite: {
      type: 'object',
      description:
        'Create (all optional) or update body. Webhook fields are accepted in settings and at the top level; each is validated wherever it is given, and a field given in both places must carry the same value (else 400). owner and billableOwner are read-only (refused unless unchanged).',
      properties: {
        tenantId: guid('Create: generated when left out. Update: must be the path id.'),
        domain: { type: ['string', 'null'] },
        settings: { anyOf: [ref('TenantSettingsInput'), { type: 'null' }] },
        ...tenantSettingsProperties(true),
      },
    },
    PhoneNumberSettings: { ...settingsSchema(NUMBER_SETTINGS_SCHEMA, false), description: 'rateLimit: sends per second, enforced by the sandbox (429 beyond).' },
    PhoneNumberSettingsInput: settingsSchema(NUMBER_SETTINGS_SCHEMA, true),
    PhoneNumber: {
      type: 'object',
      description: 'The read shape; unset optional fields are left out.',
      required: [
        'phoneNumberId',
        'phoneNumber',
        'friendlyName',
        'status',
        'provisionType',
        'provisionClass',
        'capabilities',
        'createdAt',
        'tenantId',
        'owner',
        'billableOwner',
        'provider',
        'isActivated',
        'isMMSEnabled',
        'settings',
      ],
      properties: {
        phoneNumberId: guid(),
        phoneNumber: e164(),
        friendlyName: str(),
        email: str(),
        status: enumOf(['Pending', 'Active', 'Failed', 'Released']),
        provisionType: enumOf(PROVISION_TYPES),
        provisionClass: enumOf(PROVISION_CLASSES),
        capabilities: { type: 'object', required: ['sms', 'mms'], properties: { sms: { type: 'boolean' }, mms: { type: 'boolean' } }, additionalProperties: false },
        createdAt: dateTime(),
        activatedAt: dateTime(),
        tenantId: guid(),
        owner: str(),
        billableOwner: str(),
        provider: str(),
        description: str(),
        domain: str(),
        platformType: enumOf(PLATFORM_TYPES),
        campaignId: str(),
        brandId: str(),
        loaUrl: str(),
        billingPlan: str(),
        billingPlanName: enumOf(BILLING_PLAN_NAMES),
        userId: str(),
        externalId: str(),
        isActivated: { type: 'boolean' },
        isMMSEnabled: { type: 'boolean' },
        settings: ref('PhoneNumberSettings'),
      },
      additionalProperties: false,
    },
    PhoneNumberUpdate: {
      type: 'object',
      description: 'Any updatable fields; null clears a text field. Other fields are refused (400).',
      properties: {
        userId: { type: ['string', 'null'] },
        platformType: { anyOf: [enumOf(PLATFORM_TYPES), { type: 'null' }] },
        description: { type: ['string', 'null'] },
        externalId: { type: ['string', 'null'] },
        campaignId: { type: ['string', 'null'] },
        brandId: { type: ['string', 'null'] },
        loaUrl: { type: ['string', 'null'] },
        isActivated: { type: ['boolean', 'null'] },
        isMMSEnabled: { type: ['boolean', 'null'] },
        billingPlanName: { anyOf: [enumOf(BILLING_PLAN_NAMES), { type: 'null' }] },
        settings: { anyOf: [ref('PhoneNumberSettingsInput'), { type: 'null' }] },
      },
      additionalProperties: false,
    },
    ActivePhoneNumbers: {
      type: 'object',
      required: ['items', 'page', 'limit', 'total'],
      properties: {
        items: { type: 'array', items: ref('PhoneNumber') },
        page: { type: 'integer', minimum: 1 },
        limit: { type: 'integer', minimum: 1, maximum: 100 },
        total: { type: 'integer', minimum: 0 },
      },
      additionalProperties: false,
    },
    ProvisionEntry: {
      type: 'object',
      required: ['number'],
      properties: {
        number: e164(),
        email: str(),
        description: str(),
        domain: str('Defaults to the domain of the email.'),
        platformType: enumOf(PLATFORM_TYPES),
        campaignId: str('A2P only (required there).'),
        brandId: str('A2P only (required there).'),
        loaUrl: str(),
        messagingFeature: {
          type: 'object',
          required: ['provisionType', 'provisionClass'],
          properties: { provisionType: enumOf(PROVISION_TYPES), provisionClass: enumOf(PROVISION_CLASSES) },
        },
        billingPlan: str('Open-ended list, e.g. P2P250, A2P250.'),
        settings: ref('PhoneNumberSettingsInput'),
      },
    },
    ProvisionRequest: {
      type: 'object',
      required: ['action', 'tenantId', 'phoneNumbers'],
      properties: {
        action: enumOf(ORDER_ACTIONS),
        tenantId: guid(),
        phoneNumbers: { type: 'array', minItems: 1, maxItems: 100, items: ref('ProvisionEntry') },
      },
      if: { properties: { action: { const: 'Provision' } } },
      then: { properties: { phoneNumbers: { items: { required: ['number', 'messagingFeature'] } } } },
    },
    Order: {
      type: 'object',
      description: 'Pending -> Processing -> Completed or Failed. Also the OrderStatus webhook payload.',
      required: ['orderId', 'status', 'action', 'tenantId', 'provisionClass', 'provisionType', 'createDate', 'phoneNumbers'],
      properties: {
        orderId: { type: 'integer' },
        status: enumOf(['Pending', 'Processing', 'Completed', 'Failed']),
        action: enumOf(ORDER_ACTIONS),
        tenantId: guid(),
        provisionClass: enumOf(PROVISION_CLASSES),
        provisionType: enumOf(PROVISION_TYPES),
        createDate: dateTime(),
        completionDate: dateTime('Left out until the order is final.'),
        phoneNumbers: {
          type: 'array',
          items: {
            type: 'object',
            required: ['number', 'phoneNumberId', 'status'],
            properties: {
              number: e164(),
              phoneNumberId: guid(),
              status: enumOf(['Pending', 'Active', 'Failed', 'Released']),
              email: str(),
              errorMessage: str('Why provisioning failed.'),
            },
            additionalProperties: false,
          },
        },
      },
      additionalProperties: false,
    },
    SendRequest: {
      type: 'object',
      required: ['from', 'to'],
      properties: {
        from: e164('An active provisioned number of yours.'),
        to: { type: 'array', minItems: 1, maxItems: 1000, items: e164(), description: 'One message per recipient.' },
        body: { type: ['string', 'null'], description: 'Required and non-empty unless mediaUrls is given.' },
        mediaUrls: { type: ['array', 'null'], maxItems: MAX_MEDIA_PER_MESSAGE, items: { type: 'string', pattern: '^https?://', description: 'https:// (http:// only for a loopback host); parsed as WHATWG URLs are.' } },
      },
    },
    SendAnswer: {
      type: 'object',
      description: 'For one recipient the fields of its message; for several, the first one plus `messages`.',
      required: ['messageId', 'status', 'queuedAt'],
      properties: {
        messageId: guid(),
        status: enumOf(['queued', 'sending', 'sent', 'delivered', 'failed']),
        queuedAt: dateTime(),
        sentAt: dateTime('Synchronous sends.'),
        segmentCount: { type: 'integer', minimum: 0 },
        encoding: enumOf(['GSM-7', 'UCS-2']),
        errorCode: { type: ['string', 'null'] },
        errorMessage: { type: ['string', 'null'] },
        messages: {
          type: 'array',
          items: {
            type: 'object',
            required: ['messageId', 'to', 'status'],
            properties: { messageId: guid(), to: e164(), status: str() },
            additionalProperties: false,
          },
        },
      },
      additionalProperties: false,
    },
    Message: {
      type: 'object',
      required: ['messageId', 'from', 'to', 'body', 'mediaUrls', 'status', 'segmentCount', 'encoding', 'queuedAt', 'errorCode', 'errorMessage'],
      properties: {
        messageId: guid(),
        from: e164(),
        to: e164(),
        body: str(),
        mediaUrls: { type: 'array', items: str() },
        status: enumOf(['queued', 'sending', 'sent', 'delivered', 'failed']),
        segmentCount: { type: 'integer', minimum: 0 },
        encoding: enumOf(['GSM-7', 'UCS-2']),
        queuedAt: dateTime(),
        sentAt: dateTime('Left out until sent.'),
        deliveredAt: dateTime('Left out until delivered.'),
        errorCode: nullableStr('Set when failed.'),
        errorMessage: nullableStr('Set when failed.'),
      },
      additionalProperties: false,
    },
    MediaUploadA: {
      type: 'object',
      required: ['phoneNumber', 'fileName', 'contentType', 'data', 'tenantId'],
      properties: {
        phoneNumber: e164(),
        fileName: str('With the extension of its format.'),
        contentType: enumOf(mediaTypes),
        data: { anyOf: [{ type: 'string', contentEncoding: 'base64' }, { type: 'array', items: { type: 'integer', minimum: 0, maximum: 255 } }] },
        tenantId: guid(),
      },
    },
    MediaUploadB: {
      type: 'object',
      required: ['phoneNumberId', 'fileName', 'mimeType', 'content'],
      properties: {
        phoneNumberId: guid(),
        fileName: str(),
        mimeType: enumOf(mediaTypes),
        content: { type: 'string', contentEncoding: 'base64' },
      },
    },
    MediaAnswerA: {
      type: 'object',
      required: ['uri', 'fileName'],
      properties: { uri: { type: 'string', format: 'uri', description: 'Signed link, valid 99 years; the file name is percent-encoded.' }, fileName: str() },
      additionalProperties: false,
    },
    MediaAnswerB: {
      type: 'object',
      required: ['url', 'fileName', 'mimeType', 'expiresAt'],
      properties: { url: { type: 'string', format: 'uri' }, fileName: str(), mimeType: str(), expiresAt: dateTime() },
      additionalProperties: false,
    },
    IncomingMessage: {
      type: 'object',
      description: 'The MessageReceived webhook payload.',
      required: ['messageId', 'from', 'tos', 'message', 'type', 'tenantId', 'sentDate', 'targetNumber', 'phoneNumberId', 'threadId', 'threadKey', 'dlrId', 'segmentCount', 'tag', 'attachments'],
      properties: {
        messageId: guid(),
        from: str('Sender, E.164.'),
        tos: { type: 'array', items: str() },
        message: str(),
        type: { type: 'integer', enum: [0, 1, 2], description: '0 inbound, 1 outbound, 2 the service.' },
        tenantId: guid(),
        sentDate: dateTime(),
        targetNumber: str(),
        phoneNumberId: guid(),
        threadId: str(),
        threadKey: str(),
        dlrId: str(),
        segmentCount: { type: 'integer' },
        tag: { type: ['string', 'null'] },
        attachments: {
          type: 'array',
          items: {
            type: 'object',
            required: ['name', 'url', 'contentType', 'size'],
            properties: { name: str(), url: str(), contentType: str(), size: { type: 'integer', minimum: 0 } },
          },
        },
      },
    },
    DeliveryReceipt: {
      type: 'object',
      description: 'The DeliveryReceipt webhook payload, one per status change of an outbound message.',
      required: ['messageId', 'status', 'statusReason', 'errorCode', 'errorMessage'],
      properties: {
        messageId: guid(),
        status: enumOf(['queued', 'sending', 'sent', 'delivered', 'failed']),
        statusReason: { type: ['string', 'null'] },
        deliveredAt: dateTime('Only once delivered.'),
        errorCode: { type: ['string', 'null'] },
        errorMessage: { type: ['string', 'null'] },
      },
    },
    Overrides: {
      type: 'object',
      description: 'Payload fields to set (any field, any JSON value), applied after the event is built.',
      additionalProperties: true,
    },
    InboundRequest: {
      type: 'object',
      required: ['to', 'from'],
      properties: {
        to: e164('Your active number that receives it.'),
        from: e164('The sender.'),
        body: { type: ['string', 'null'], description: 'Required unless mediaUrls is given.' },
        mediaUrls: { type: ['array', 'null'], maxItems: MAX_MEDIA_PER_MESSAGE, items: { type: 'string', pattern: '^https?://', description: 'https:// (http:// only for a loopback host); parsed as WHATWG URLs are.' } },
        set: ref('Overrides'),
      },
    },
    TriggerAnswer: {
      type: 'object',
      required: ['deliveryId', 'event', 'payload'],
      properties: {
        deliveryId: { type: ['string', 'null'], description: "null when the tenant's event filter or missing URI means nothing is sent." },
        event: enumOf(['MessageReceived', 'DeliveryReceipt', 'OrderStatus']),
        payload: { type: 'object' },
      },
      additionalProperties: false,
    },
    DeliveryAttempt: {
      type: 'object',
      required: ['deliveryId', 'event', 'tenantId', 'attempt', 'url', 'status', 'error', 'at', 'durationMs'],
      properties: {
        deliveryId: str(),
        event: enumOf(['MessageReceived', 'DeliveryReceipt', 'OrderStatus']),
        tenantId: guid(),
        attempt: { type: 'integer', minimum: 1 },
        url: str('Credentials in the URL are redacted.'),
        status: { type: ['integer', 'null'] },
        error: { type: ['string', 'null'] },
        at: dateTime(),
        durationMs: { type: 'number' },
      },
      additionalProperties: false,
    },
    FailedEvent: {
      type: 'object',
      required: ['deliveryId', 'event', 'tenantId', 'attempts', 'firstAttemptAt', 'lastAttemptAt', 'lastStatus', 'lastError', 'payload'],
      properties: {
        deliveryId: str(),
        event: enumOf(['MessageReceived', 'DeliveryReceipt', 'OrderStatus']),
        tenantId: guid(),
        attempts: { type: 'integer', minimum: 0 },
        firstAttemptAt: dateTime(),
        lastAttemptAt: dateTime(),
        lastStatus: { type: ['integer', 'null'] },
        lastError: { type: ['string', 'null'] },
        payload: {},
      },
      additionalProperties: false,
    },
  };
}

function operation(summary: string, op: Json, tag: string): Json {
  return { summary, tags: [tag], ...op, responses: { ...(op['responses'] as Json), default: DEFAULT_ERROR } };
}

const pathParam = (name: string, schema: Json, description: string): Json => ({ name, in: 'path', required: true, description, schema });
const tenantIdParam = pathParam('tenantId', guid(), 'Tenant GUID (400 when not a GUID).');
const numberParam = pathParam('phoneNumber', e164(), 'E.164, URL-encoded (+ as %2B).');
const NO_CONTENT = { description: 'Done; no body.' };

function paths(): Json {
  const retryAfter = { 'Retry-After': { description: 'With 429: whole seconds until the request would be accepted.', schema: { type: 'string', pattern: '^\\d+$' } } };
  return {
    '/openapi.json': {
      get: {
        summary: 'This document',
        tags: ['sandbox'],
        operationId: 'getOpenApi',
        security: [],
        responses: { '200': json({ type: 'object' }, 'The OpenAPI 3.1 document of the sandbox.') },
      },
    },
    '/health': {
      get: operation('Service health', { operationId: 'getHealth', responses: { '200': json(ref('Health'), 'Healthy.') } }, 'health'),
    },
    '/tenants': {
      get: operation('Tenants of the caller', { operationId: 'listTenants', responses: { '200': json({ type: 'array', items: ref('Tenant') }, 'A bare array.') } }, 'tenants'),
      post: operation(
        'Create a tenant',
        {
          operationId: 'createTenant',
          requestBody: body(ref('TenantWrite')),
          responses: {
            '201': json(ref('Tenant'), 'Created.', { Location: { schema: { type: 'string' } } }),
            '400': errorAnswer('Invalid JSON or fields (VALIDATION_ERROR, INVALID_JSON).'),
            '409': errorAnswer('The tenantId exists.'),
          },
        },
        'tenants',
      ),
    },
    '/tenants/{tenantId}': {
      parameters: [tenantIdParam],
      get: operation('Read a tenant', { operationId: 'getTenant', responses: { '200': json(ref('Tenant'), 'The tenant; secrets hidden.') } }, 'tenants'),
      put: operation(
        'Update a tenant',
        { operationId: 'updateTenant', requestBody: body(ref('TenantWrite')), responses: { '204': NO_CONTENT, '400': errorAnswer('Invalid fields.') } },
        'tenants',
      ),
    },
    '/phone-numbers/provision': {
      post: operation(
        'Provision or unprovision numbers (an order)',
        {
          operationId: 'provisionNumbers',
          requestBody: body(ref('ProvisionRequest')),
          responses: {
            '202': json(ref('Order'), 'The new order, Pending.', { Location: { schema: { type: 'string' } } }),
            '400': errorAnswer('Invalid fields.'),
            '409': errorAnswer('A number is already provisioned, or in an order.'),
          },
        },
        'numbers',
      ),
    },
    '/phone-numbers/loa': {
      post: operation(
        'Upload a letter of authorization (PDF)',
        {
          operationId: 'uploadLoa',
          requestBody: {
            required: true,
            content: {
              'multipart/form-data': {
                schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', contentMediaType: 'application/pdf' } } },
              },
            },
          },
          responses: {
            '201': json({ type: 'object', required: ['loaUrl'], properties: { loaUrl: { type: 'string', format: 'uri' } }, additionalProperties: false }, 'Stored; loaUrl serves it.'),
            '413': errorAnswer('Larger than 5 MB.'),
            '415': errorAnswer('Not a PDF.'),
          },
        },
        'numbers',
      ),
    },
    '/phone-numbers/orders/{orderId}': {
      parameters: [pathParam('orderId', { type: 'string', pattern: '^\\d{1,15}$' }, 'Order id (an integer).')],
      get: operation('Read an order', { operationId: 'getOrder', responses: { '200': json(ref('Order'), 'The order.') } }, 'numbers'),
    },
    '/phone-numbers/active': {
      get: operation(
        'Active numbers of the caller, a page at a time',
        {
          operationId: 'listActiveNumbers',
          parameters: [
            { name: 'page', in: 'query', schema: { type: 'integer', minimum: 1, default: 1 } },
            { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, default: 20 }, description: 'At most 100 (larger is clamped).' },
          ],
          responses: { '200': json(ref('ActivePhoneNumbers'), 'One page.') },
        },
        'numbers',
      ),
    },
    '/phone-numbers/{phoneNumber}': {
      parameters: [numberParam],
      get: operation('Read a number', { operationId: 'getNumber', responses: { '200': json(ref('PhoneNumber'), 'The number.') } }, 'numbers'),
      put: operation(
        'Update a number',
        { operationId: 'updateNumber', requestBody: body(ref('PhoneNumberUpdate')), responses: { '204': NO_CONTENT, '400': errorAnswer('Invalid or immutable fields.') } },
        'numbers',
      ),
    },
    '/messages': {
      post: operation(
        'Send a message (one per recipient)',
        {
          operationId: 'sendMessage',
          parameters: [{ name: 'isAsync', in: 'query', schema: { type: 'boolean' }, description: 'true: queued, answered 202 at once.' }],
          requestBody: body(ref('SendRequest')),
          responses: {
            '200': json(ref('SendAnswer'), 'Synchronous: status sent (or failed).'),
            '202': json(ref('SendAnswer'), 'isAsync=true: status queued.'),
            '400': errorAnswer('Invalid fields, or from is not an active number of yours.'),
            '413': errorAnswer('Hosted media larger than 5 MB in total.'),
            '429': { ...errorAnswer("Over the account's --rate-limit or the number's settings.rateLimit (sends per second)."), headers: retryAfter },
          },
        },
        'messages',
      ),
    },
    '/messages/{messageId}': {
      parameters: [pathParam('messageId', guid(), 'Message GUID.')],
      get: operation('Read a message', { operationId: 'getMessage', responses: { '200': json(ref('Message'), 'The message.') } }, 'messages'),
    },
    '/media': {
      post: operation(
        'Upload media (either shape; the answer has the shape of the request)',
        {
          operationId: 'uploadMedia',
          requestBody: body({ oneOf: [ref('MediaUploadA'), ref('MediaUploadB')] }),
          responses: {
            '201': json({ oneOf: [ref('MediaAnswerA'), ref('MediaAnswerB')] }, 'Stored.'),
            '400': errorAnswer('Invalid fields.'),
            '413': errorAnswer('The file exceeds the maximum size of 5MB.'),
            '415': errorAnswer('Unsupported media type.'),
          },
        },
        'media',
      ),
    },
    '/sandbox/inbound': {
      post: operation(
        'Simulate an incoming message (= /sandbox/triggers/message-received)',
        { operationId: 'simulateInbound', requestBody: body(ref('InboundRequest')), responses: { '202': json(ref('TriggerAnswer'), 'Queued for the tenant.') } },
        'sandbox',
      ),
    },
    '/sandbox/triggers/message-received': {
      post: operation(
        'Trigger a MessageReceived webhook',
        { operationId: 'triggerMessageReceived', requestBody: body(ref('InboundRequest')), responses: { '202': json(ref('TriggerAnswer'), 'Queued for the tenant.') } },
        'sandbox',
      ),
    },
    '/sandbox/triggers/delivery-receipt': {
      post: operation(
        "Trigger a DeliveryReceipt webhook for one of your messages (its current receipt, with overrides); the message itself does not change",
        {
          operationId: 'triggerDeliveryReceipt',
          requestBody: body({ type: 'object', required: ['messageId'], properties: { messageId: guid(), set: ref('Overrides') } }),
          responses: { '202': json(ref('TriggerAnswer'), 'Queued for the tenant.') },
        },
        'sandbox',
      ),
    },
    '/sandbox/triggers/order-status': {
      post: operation(
        'Trigger an OrderStatus webhook for one of your orders (the order as it is, with overrides); the order itself does not change',
        {
          operationId: 'triggerOrderStatus',
          requestBody: body({ type: 'object', required: ['orderId'], properties: { orderId: { type: 'integer' }, set: ref('Overrides') } }),
          responses: { '202': json(ref('TriggerAnswer'), 'Queued for the tenant.') },
        },
        'sandbox',
      ),
    },
    '/sandbox/webhooks/deliveries': {
      get: operation(
        'Webhook attempts to your tenants, oldest first (the last 1,000)',
        { operationId: 'listDeliveries', responses: { '200': json({ type: 'array', items: ref('DeliveryAttempt') }, 'Attempts.') } },
        'sandbox',
      ),
    },
    '/sandbox/webhooks/failed': {
      get: operation(
        'Events that exhausted their retry window (the failure queue)',
        { operationId: 'listFailedEvents', responses: { '200': json({ type: 'array', items: ref('FailedEvent') }, 'Failed events.') } },
        'sandbox',
      ),
    },
    '/sandbox/webhooks/failed/{deliveryId}/replay': {
      parameters: [pathParam('deliveryId', { type: 'string' }, 'The failed event.')],
      post: operation(
        'Replay a failed event (same delivery id, fresh schedule)',
        {
          operationId: 'replayFailedEvent',
          responses: {
            '202': json({ type: 'object', required: ['deliveryId', 'replayed'], properties: { deliveryId: str(), replayed: { const: true } }, additionalProperties: false }, 'Queued again.'),
          },
        },
        'sandbox',
      ),
    },
  };
}

function webhook(event: 'MessageReceived' | 'DeliveryReceipt' | 'OrderStatus', schema: string, summary: string): Json {
  return {
    post: {
      summary,
      operationId: `webhook${event}`,
      parameters: [
        { name: 'X-Svc-Signature', in: 'header', required: false, description: 'Base64 HMAC-SHA256 of the raw body with the tenant webhookSecret (sent when a secret is set).', schema: { type: 'string' } },
        { name: 'X-Svc-Event', in: 'header', required: true, schema: { const: event } },
        { name: 'X-Svc-Delivery', in: 'header', required: true, description: 'Unique per event, the same on every retry.', schema: { type: 'string' } },
      ],
      requestBody: body(ref(schema)),
      responses: {
        '200': { description: 'Any 2xx acknowledges. Errors and timeouts (10 s) are retried with backoff for 24 h, then the event goes to the failure queue.' },
      },
    },
  };
}

/** The whole document; `apiUrl` is the server it describes (`{base}/api/v1`). */
export function openApiDocument(apiUrl = 'http://127.0.0.1:4010/api/v1'): Json {
  const base = apiUrl.replace(/\/api\/v1\/?$/, '');
  const document: Json = {
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
    tags: ['health', 'tenants', 'numbers', 'messages', 'media', 'sandbox'].map((name) => ({ name })),
    paths: {
      ...paths(),
    },
    webhooks: {
      MessageReceived: webhook('MessageReceived', 'IncomingMessage', 'An incoming message (filters All and MessageReceived)'),
      DeliveryReceipt: webhook('DeliveryReceipt', 'DeliveryReceipt', 'A status change of an outbound message (filter All)'),
      OrderStatus: webhook('OrderStatus', 'Order', 'A provisioning order update (filters All and OrderStatus)'),
    },
    components: {
      securitySchemes: { basicAuth: { type: 'http', scheme: 'basic', description: 'The account email and password.' } },
      schemas: schemas(),
    },
  };
  // Hosted media links sit beside the API, not under /api/v1.
  (document['paths'] as Json)['/media/{mediaId}/{fileName}'] = {
    servers: [{ url: base }],
    parameters: [
      pathParam('mediaId', guid(), 'Stored media id.'),
      pathParam('fileName', { type: 'string' }, 'The file name, percent-encoded.'),
    ],
    get: {
      summary: 'A hosted media link (no authentication: the signed token is the key)',
      operationId: 'getMedia',
      tags: ['media'],
      security: [],
      parameters: [
        { name: 'expires', in: 'query', required: true, schema: { type: 'string', pattern: '^\\d+$' } },
        { name: 'sig', in: 'query', required: true, schema: { type: 'string' } },
      ],
      responses: {
        '200': {
          description: "The bytes, with the file's content type; Content-Disposition carries the exact name (RFC 5987).",
          content: Object.fromEntries(MEDIA_FORMATS.map((f) => [f.contentType, { schema: { type: 'string', contentMediaType: f.contentType } }])),
        },
        '403': errorAnswer('Missing, forged or expired token.'),
        '404': errorAnswer('No such media.'),
        default: DEFAULT_ERROR,
      },
    },
  };
  return document;
}
