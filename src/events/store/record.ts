// One record of the event store and its line: what `svc webhook listen` accepted and what `svc
// send` sent, kept so that `svc events`, `svc thread` and `svc send report` can look back. A segment
// file holds one JSON record a line (NDJSON), which `cat`, `grep` and `jq` read as they are.

import { jsonString, jsonStrings } from '../../output/json-text.js';

export type StoredKind = 'event' | 'sent';

export interface StoredRecord {
  /** Events: the delivery id (X-Svc-Delivery), or `sha256:<hex>` of the body when none was sent. Sent: `sent:<messageId>`. */
  id: string;
  kind: StoredKind;
  /** MessageReceived, DeliveryReceipt, OrderStatus, unknown, or `sent`. */
  type: string;
  /** ISO 8601 time the event was received or the message sent. */
  at: string;
  /** The numbers the record concerns (from, to). */
  numbers: string[];
  messageId?: string;
  /** A receipt's or a sent message's status. */
  status?: string;
  from?: string;
  to?: string[];
  /**
   * An event: whether its X-Svc-Signature was checked (false: accepted by `webhook listen
   * --no-verify`). Absent from sent records, and from events stored before the mark was kept.
   */
  verified?: boolean;
  /** The delivery headers of an event (never Authorization). */
  headers?: Record<string, string>;
  /** An event: its body exactly as received. A sent message: its text. */
  body: string;
}

/** Headers never kept: credentials, and what belongs to one connection. */
export const NOT_KEPT_HEADERS: ReadonlySet<string> = new Set(['authorization', 'proxy-authorization', 'cookie', 'host', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

/** The kept headers as a JSON object, in their order (what JSON.stringify of the kept ones gives). */
function jsonHeaders(headers: Readonly<Record<string, string | string[] | undefined>>, filter: boolean): string {
  let text = '{';
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (value === undefined || (filter && NOT_KEPT_HEADERS.has(name))) continue;
    const member = `${jsonString(name)}:${jsonString(typeof value === 'string' ? value : value.join(', '))}`;
    text += text.length === 1 ? member : `,${member}`;
  }
  return `${text}}`;
}

/**
 * One line: the id first, so that a reader can take it without parsing the rest. The members in
 * a fixed order, undefined ones left out: the text JSON.stringify gives for the record (a test
 * holds the two equal), built from its parts.
 */
export function recordLine(record: StoredRecord): string {
  let line = `{"id":${jsonString(record.id)},"kind":${jsonString(record.kind)},"type":${jsonString(record.type)},"at":${jsonString(record.at)},"numbers":${jsonStrings(record.numbers)}`;
  if (record.messageId !== undefined) line += `,"messageId":${jsonString(record.messageId)}`;
  if (record.status !== undefined) line += `,"status":${jsonString(record.status)}`;
  if (record.from !== undefined) line += `,"from":${jsonString(record.from)}`;
  if (record.to !== undefined) line += `,"to":${jsonStrings(record.to)}`;
  if (record.verified !== undefined) line += `,"verified":${record.verified}`;
  if (record.headers !== undefined) line += `,"headers":${jsonHeaders(record.headers, false)}`;
  return `${line},"body":${JSON.stringify(record.body)}}`;
}

/**
 * A received webhook event as the listener has it: what `eventRecord` (records.ts) makes a
 * StoredRecord of, here written straight to its line without one.
 */
export interface IncomingEvent {
  id: string;
  type: string;
  /** Milliseconds since the epoch, and the same time in ISO 8601. */
  time: number;
  at: string;
  from?: string | undefined;
  to?: readonly string[] | undefined;
  messageId?: string | undefined;
  status?: string | undefined;
  /** Whether the signature was checked (see StoredRecord.verified). */
  verified?: boolean | undefined;
  /** The request's headers as Node gives them; the ones never kept (credentials) are left out here. */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  raw: string;
}

/** The line of `recordLine(eventRecord(event))`, without building the record. */
export function eventLine(event: IncomingEvent): string {
  const { from, to } = event;
  let numbers = from === undefined ? '' : jsonString(from);
  if (to !== undefined) for (let i = 0; i < to.length; i++) numbers += numbers === '' ? jsonString(to[i]!) : `,${jsonString(to[i]!)}`;
  let line = `{"id":${jsonString(event.id)},"kind":"event","type":${jsonString(event.type)},"at":${jsonString(event.at)},"numbers":[${numbers}]`;
  if (event.messageId !== undefined) line += `,"messageId":${jsonString(event.messageId)}`;
  if (event.status !== undefined) line += `,"status":${jsonString(event.status)}`;
  if (from !== undefined) line += `,"from":${jsonString(from)}`;
  if (to !== undefined) line += `,"to":${jsonStrings(to)}`;
  if (event.verified !== undefined) line += `,"verified":${event.verified}`;
  return `${line},"headers":${jsonHeaders(event.headers, true)},"body":${JSON.stringify(event.raw)}}`;
}

export function parseRecord(line: string): StoredRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const r = value as Record<string, unknown>;
  if (typeof r['id'] !== 'string' || (r['kind'] !== 'event' && r['kind'] !== 'sent') || typeof r['type'] !== 'string') return undefined;
  if (typeof r['at'] !== 'string' || !Array.isArray(r['numbers']) || typeof r['body'] !== 'string') return undefined;
  return value as StoredRecord;
}
