// How stored records look to people and programs. An event's JSON carries its payload as parsed
// JSON, with the fields a script filters on beside it.

import { formatEventLine, type LineFormatOptions } from '../../../webhooks/format.js';
import type { AcceptedWebhookEvent } from '../../../webhooks/types.js';
import { classifyEvent, parsePayload } from '../../../webhooks/payloads.js';
import type { StoredRecord } from '../../../events/store/record.js';
import { WEBHOOK_EVENT_KEY } from '../../../domain/webhooks.js';

export interface EventJson {
  id: string;
  type: string;
  receivedAt: string;
  messageId: string | null;
  from: string | null;
  to: string[];
  status: string | null;
  /**
   * An event: whether its signature was checked when it was received (false: by `webhook listen
   * --no-verify`); null for an event stored before this was recorded. Not on sent messages.
   */
  verified?: boolean | null;
  payload: unknown;
  headers?: Record<string, string>;
}

function parsedBody(record: StoredRecord): unknown {
  try {
    return parsePayload(record.body);
  } catch {
    return record.body;
  }
}

export function eventJson(record: StoredRecord, withHeaders = false): EventJson {
  const json: EventJson = {
    id: record.id,
    type: record.type,
    receivedAt: record.at,
    messageId: record.messageId ?? null,
    from: record.from ?? null,
    to: record.to ?? [],
    status: record.status ?? null,
    ...(record.kind === 'event' ? { verified: record.verified ?? null } : {}),
    payload: parsedBody(record),
  };
  if (withHeaders) json.headers = record.headers ?? {};
  return json;
}

/** The listener's own line for a stored event. */
export function eventLine(record: StoredRecord, options: LineFormatOptions = {}): string {
  const payload = parsedBody(record);
  const { kind, summary } = classifyEvent(payload, record.headers?.[WEBHOOK_EVENT_KEY] ?? record.type);
  const event: AcceptedWebhookEvent = {
    receivedAt: new Date(record.at),
    method: 'POST',
    path: '/',
    kind,
    eventHeader: record.headers?.[WEBHOOK_EVENT_KEY] ?? null,
    summary,
    payload,
    raw: record.body,
    deliveryId: record.id,
    dedupeKey: record.id,
    duplicate: false,
    stored: true,
    signature: record.verified === true ? 'valid' : 'unchecked',
    secretIndex: null,
    status: 200,
    forward: null,
  };
  return formatEventLine(event, options);
}
