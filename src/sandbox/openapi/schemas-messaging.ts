// The component schemas of messaging: sends and messages, media uploads, the webhook payloads,
// and the answers of the sandbox-only endpoints. Enumerations and patterns come from the contract.

import { MAX_MEDIA_PER_MESSAGE, MEDIA_FORMATS } from '../../domain/media-formats.js';
import { MESSAGE_DIRECTIONS, MESSAGE_STATUSES, SMS_ENCODINGS, WEBHOOK_EVENT_KINDS } from '../../domain/api/enums.js';
import { dateTime, e164, enumOf, guid, nullableStr, ref, str, type Json } from './json-schema.js';

/** The media links of a send or a simulated inbound message. */
const MEDIA_URLS_INPUT: Json = {
  type: ['array', 'null'],
  maxItems: MAX_MEDIA_PER_MESSAGE,
  items: { type: 'string', pattern: '^https?://', description: 'https:// (http:// only for a loopback host); parsed as WHATWG URLs are.' },
};

/** What names a delivery in the sandbox's webhook lists. */
const EVENT_FIELDS: Json = { deliveryId: str(), event: enumOf(WEBHOOK_EVENT_KINDS), tenantId: guid() };

export function messagingSchemas(): Json {
  const mediaTypes = MEDIA_FORMATS.map((f) => f.contentType);
  return {
    SendRequest: {
      type: 'object',
      required: ['from', 'to'],
      properties: {
        from: e164('An active provisioned number of yours.'),
        to: { type: 'array', minItems: 1, maxItems: 1000, items: e164(), description: 'One message per recipient.' },
        body: { type: ['string', 'null'], description: 'Required and non-empty unless mediaUrls is given.' },
        mediaUrls: MEDIA_URLS_INPUT,
      },
    },
    SendAnswer: {
      type: 'object',
      description: 'For one recipient the fields of its message; for several, the first one plus `messages`.',
      required: ['messageId', 'status', 'queuedAt'],
      properties: {
        messageId: guid(),
        status: enumOf(MESSAGE_STATUSES),
        queuedAt: dateTime(),
        sentAt: dateTime('Synchronous sends.'),
        segmentCount: { type: 'integer', minimum: 0 },
        encoding: enumOf(SMS_ENCODINGS),
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
        status: enumOf(MESSAGE_STATUSES),
        segmentCount: { type: 'integer', minimum: 0 },
        encoding: enumOf(SMS_ENCODINGS),
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
        type: { type: 'integer', enum: [...MESSAGE_DIRECTIONS], description: '0 inbound, 1 outbound, 2 the service.' },
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
        status: enumOf(MESSAGE_STATUSES),
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
        mediaUrls: MEDIA_URLS_INPUT,
        set: ref('Overrides'),
      },
    },
    TriggerAnswer: {
      type: 'object',
      required: ['deliveryId', 'event', 'payload'],
      properties: {
        deliveryId: { type: ['string', 'null'], description: "null when the tenant's event filter or missing URI means nothing is sent." },
        event: enumOf(WEBHOOK_EVENT_KINDS),
        payload: { type: 'object' },
      },
      additionalProperties: false,
    },
    DeliveryAttempt: {
      type: 'object',
      required: ['deliveryId', 'event', 'tenantId', 'attempt', 'url', 'status', 'error', 'at', 'durationMs'],
      properties: {
        ...EVENT_FIELDS,
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
        ...EVENT_FIELDS,
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
