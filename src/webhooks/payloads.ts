// Recognises the three webhook payloads of the API document from their shape, or from the
// `X-Svc-Event` header when the sender names the event. Anything else is still an event: the
// listener accepts it and shows it as `unknown`, because the document leaves shapes open.

import { WEBHOOK_DELIVERY_KEY, WEBHOOK_EVENT_KEY, WEBHOOK_EVENT_KINDS, type WebhookEventKind as SentEventKind } from '../domain/webhooks.js';

/** Lower case, as Node's server hands headers over. */
export const EVENT_HEADER = WEBHOOK_EVENT_KEY;
export const DELIVERY_HEADER = WEBHOOK_DELIVERY_KEY;

export type WebhookEventKind = SentEventKind | 'unknown';

const KNOWN_EVENT_NAMES: readonly WebhookEventKind[] = WEBHOOK_EVENT_KINDS;

/** The few fields a person wants to see at a glance; every value comes from the payload. */
export interface WebhookEventSummary {
  /** messageId for messages and receipts, orderId for orders. */
  id?: string;
  from?: string;
  to?: string[];
  status?: string;
  /** Message text, or the reason/error of a receipt, or the numbers of an order. */
  text?: string;
  tenantId?: string;
  attachments?: number;
}

export interface ClassifiedEvent {
  kind: WebhookEventKind;
  summary: WebhookEventSummary;
}

type JsonObject = Record<string, unknown>;

/**
 * The JSON of a webhook body as received (throws when it is not JSON). A leading byte order mark
 * is kept in the body, so that what is stored, relayed and replayed is the bytes the signature
 * covers, but it is no part of the JSON text.
 */
export function parsePayload(raw: string): unknown {
  return JSON.parse(raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw) as unknown;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

function has(payload: JsonObject, key: string): boolean {
  return payload[key] !== undefined;
}

/** Shape first; the header, when it names a known event, overrides a guess. */
const KNOWN_BY_HEADER = new Map<string, WebhookEventKind>(KNOWN_EVENT_NAMES.flatMap((name) => [[name, name] as const, [name.toLowerCase(), name] as const]));

/** The kind an X-Svc-Event header names: as sent (the usual case, one lookup), or in any case and spacing. */
function namedKind(eventHeader: string | null | undefined): WebhookEventKind | undefined {
  if (eventHeader === undefined || eventHeader === null) return undefined;
  return KNOWN_BY_HEADER.get(eventHeader) ?? KNOWN_BY_HEADER.get(eventHeader.trim().toLowerCase());
}

export function classifyEvent(payload: unknown, eventHeader?: string | null): ClassifiedEvent {
  const named = namedKind(eventHeader);
  const kind = named ?? kindFromShape(payload);
  return { kind, summary: isObject(payload) ? summarise(kind, payload) : {} };
}

function kindFromShape(payload: unknown): WebhookEventKind {
  if (!isObject(payload)) return 'unknown';
  if (has(payload, 'from') && (has(payload, 'tos') || has(payload, 'message'))) return 'MessageReceived';
  if (has(payload, 'messageId') && has(payload, 'status') && !has(payload, 'from')) return 'DeliveryReceipt';
  if (has(payload, 'orderId')) return 'OrderStatus';
  return 'unknown';
}

function summarise(kind: WebhookEventKind, payload: JsonObject): WebhookEventSummary {
  // Members are set only when present (no undefined ones), in this order: the printed JSON follows it.
  const summary: WebhookEventSummary = {};
  const tenantId = text(payload['tenantId']);
  if (tenantId !== undefined) summary.tenantId = tenantId;
  switch (kind) {
    case 'MessageReceived': {
      const id = text(payload['messageId']);
      if (id !== undefined) summary.id = id;
      const from = text(payload['from']);
      if (from !== undefined) summary.from = from;
      const tos = payload['tos'] ?? payload['to'];
      if (Array.isArray(tos)) summary.to = tos.map((entry) => text(entry) ?? JSON.stringify(entry));
      else if (text(tos) !== undefined) summary.to = [text(tos) ?? ''];
      const message = text(payload['message']) ?? text(payload['body']);
      if (message !== undefined) summary.text = message;
      const attachments = payload['attachments'];
      if (Array.isArray(attachments) && attachments.length > 0) summary.attachments = attachments.length;
      break;
    }
    case 'DeliveryReceipt': {
      const id = text(payload['messageId']);
      if (id !== undefined) summary.id = id;
      const status = text(payload['status']);
      if (status !== undefined) summary.status = status;
      if (typeof payload['to'] === 'string') summary.to = [payload['to']];
      const details = [payload['statusReason'], payload['errorCode'], payload['errorMessage']]
        .map(text)
        .filter((part): part is string => part !== undefined && part !== '');
      if (details.length > 0) summary.text = details.join(': ');
      break;
    }
    case 'OrderStatus': {
      const id = text(payload['orderId']);
      if (id !== undefined) summary.id = id;
      const status = text(payload['status']);
      if (status !== undefined) summary.status = status;
      const numbers = payload['phoneNumbers'];
      if (Array.isArray(numbers) && numbers.length > 0) {
        summary.text = numbers
          .map((entry) => {
            if (!isObject(entry)) return text(entry) ?? '?';
            const number = text(entry['number']) ?? text(entry['phoneNumber']) ?? '?';
            const status = text(entry['status']);
            return status === undefined ? number : `${number} ${status}`;
          })
          .join(', ');
      }
      break;
    }
    case 'unknown': {
      const id = text(payload['id']) ?? text(payload['messageId']) ?? text(payload['orderId']);
      if (id !== undefined) summary.id = id;
      const status = text(payload['status']);
      if (status !== undefined) summary.status = status;
      const from = text(payload['from']);
      if (from !== undefined) summary.from = from;
      const event = text(payload['event']) ?? text(payload['type']);
      if (event !== undefined) summary.text = event;
      break;
    }
  }
  return summary;
}
