// The component schemas of messaging, as data: sends and messages, media uploads, the webhook
// payloads, and the answers of the sandbox-only endpoints. Enumerations and patterns come from
// the contract (domain/api); every answer's schema is tied to its wire type.

import { MAX_MEDIA_PER_MESSAGE, MEDIA_FORMATS } from '../../domain/media-formats.js';
import { MESSAGE_DIRECTIONS, MESSAGE_STATUSES, SMS_ENCODINGS, WEBHOOK_EVENT_KINDS } from '../../domain/api/enums.js';
import type {
  DeliveryAttemptWire,
  DeliveryReceiptWire,
  FailedEventWire,
  IncomingMessageWire,
  MediaAnswerAWire,
  MediaAnswerBWire,
  MessageWire,
  SendAnswerWire,
  TriggerAnswerWire,
} from '../../domain/api/wire.js';
import { LINK_VALIDITY_YEARS, MAX_RECIPIENTS } from '../limits.js';
import { dateTime, e164, enumOf, guid, nullableStr, ref, str, wireObject, type Json } from './json-schema.js';

/** The media links of a send or a simulated inbound message. */
const MEDIA_URLS_INPUT: Json = {
  type: ['array', 'null'],
  maxItems: MAX_MEDIA_PER_MESSAGE,
  items: { type: 'string', pattern: '^https?://', description: 'https:// (http:// only for a loopback host); parsed as WHATWG URLs are.' },
};

const MEDIA_TYPES = MEDIA_FORMATS.map((format) => format.contentType);

const SEND_REQUEST: Json = {
  type: 'object',
  required: ['from', 'to'],
  properties: {
    from: e164('An active provisioned number of yours.'),
    to: { type: 'array', minItems: 1, maxItems: MAX_RECIPIENTS, items: e164(), description: 'One message per recipient.' },
    body: { type: ['string', 'null'], description: 'Required and non-empty unless mediaUrls is given.' },
    mediaUrls: MEDIA_URLS_INPUT,
  },
};

const SEND_ANSWER: Json = wireObject<SendAnswerWire>()({
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
      items: wireObject<NonNullable<SendAnswerWire['messages']>[number]>()({
        required: ['messageId', 'to', 'status'],
        properties: { messageId: guid(), to: e164(), status: str() },
      }),
    },
  },
});

const MESSAGE: Json = wireObject<MessageWire>()({
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
});

const MEDIA_UPLOAD_A: Json = {
  type: 'object',
  required: ['phoneNumber', 'fileName', 'contentType', 'data', 'tenantId'],
  properties: {
    phoneNumber: e164(),
    fileName: str('With the extension of its format.'),
    contentType: enumOf(MEDIA_TYPES),
    data: { anyOf: [{ type: 'string', contentEncoding: 'base64' }, { type: 'array', items: { type: 'integer', minimum: 0, maximum: 255 } }] },
    tenantId: guid(),
  },
};

const MEDIA_UPLOAD_B: Json = {
  type: 'object',
  required: ['phoneNumberId', 'fileName', 'mimeType', 'content'],
  properties: {
    phoneNumberId: guid(),
    fileName: str(),
    mimeType: enumOf(MEDIA_TYPES),
    content: { type: 'string', contentEncoding: 'base64' },
  },
};

const MEDIA_ANSWER_A: Json = wireObject<MediaAnswerAWire>()({
  required: ['uri', 'fileName'],
  properties: { uri: { type: 'string', format: 'uri', description: `Signed link, valid ${LINK_VALIDITY_YEARS} years; the file name is percent-encoded.` }, fileName: str() },
});

const MEDIA_ANSWER_B: Json = wireObject<MediaAnswerBWire>()({
  required: ['url', 'fileName', 'mimeType', 'expiresAt'],
  properties: { url: { type: 'string', format: 'uri' }, fileName: str(), mimeType: str(), expiresAt: dateTime() },
});

const INCOMING_MESSAGE: Json = wireObject<IncomingMessageWire>()({
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
      items: wireObject<IncomingMessageWire['attachments'][number]>()({
        required: ['name', 'url', 'contentType', 'size'],
        properties: { name: str(), url: str(), contentType: str(), size: { type: 'integer', minimum: 0 } },
        open: true,
      }),
    },
  },
  open: true,
});

const DELIVERY_RECEIPT: Json = wireObject<DeliveryReceiptWire>()({
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
  open: true,
});

const INBOUND_REQUEST: Json = {
  type: 'object',
  required: ['to', 'from'],
  properties: {
    to: e164('Your active number that receives it.'),
    from: e164('The sender.'),
    body: { type: ['string', 'null'], description: 'Required unless mediaUrls is given.' },
    mediaUrls: MEDIA_URLS_INPUT,
    set: ref('Overrides'),
  },
};

const TRIGGER_ANSWER: Json = wireObject<TriggerAnswerWire>()({
  required: ['deliveryId', 'event', 'payload'],
  properties: {
    deliveryId: { type: ['string', 'null'], description: "null when the tenant's event filter or missing URI means nothing is sent." },
    event: enumOf(WEBHOOK_EVENT_KINDS),
    payload: { type: 'object' },
  },
});

/** What names a delivery in the sandbox's webhook lists. */
const EVENT_FIELDS = { deliveryId: str(), event: enumOf(WEBHOOK_EVENT_KINDS), tenantId: guid() } satisfies { [K in keyof DeliveryAttemptWire & keyof FailedEventWire]: Json };

const DELIVERY_ATTEMPT: Json = wireObject<DeliveryAttemptWire>()({
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
});

const FAILED_EVENT: Json = wireObject<FailedEventWire>()({
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
});

/** Messaging's component schemas, by name, in the document's order. */
export const MESSAGING_SCHEMAS: Readonly<Record<string, Json>> = {
  SendRequest: SEND_REQUEST,
  SendAnswer: SEND_ANSWER,
  Message: MESSAGE,
  MediaUploadA: MEDIA_UPLOAD_A,
  MediaUploadB: MEDIA_UPLOAD_B,
  MediaAnswerA: MEDIA_ANSWER_A,
  MediaAnswerB: MEDIA_ANSWER_B,
  IncomingMessage: INCOMING_MESSAGE,
  DeliveryReceipt: DELIVERY_RECEIPT,
  Overrides: {
    type: 'object',
    description: 'Payload fields to set (any field, any JSON value), applied after the event is built.',
    additionalProperties: true,
  },
  InboundRequest: INBOUND_REQUEST,
  TriggerAnswer: TRIGGER_ANSWER,
  DeliveryAttempt: DELIVERY_ATTEMPT,
  FailedEvent: FAILED_EVENT,
};
