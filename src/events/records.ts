// What goes into the store: a received webhook event, or a message `svc send` sent. Built here so
// that the listener, the send command and the tests make records the same way.

import type { IncomingHttpHeaders } from 'node:http';
import type { StoredRecord } from './store/record.js';
import { EventStoreWriter } from './store/writer.js';
import { NOT_KEPT_HEADERS } from './store/record.js';
import { defaultStoreDir } from './paths.js';
import { compactQuietly } from './store/compact.js';
import { jsonString } from '../output/json-text.js';

export function keptHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || NOT_KEPT_HEADERS.has(name)) continue;
    kept[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return kept;
}

export interface ReceivedEvent {
  id: string;
  type: string;
  receivedAt: Date;
  from?: string | undefined;
  to?: readonly string[] | undefined;
  messageId?: string | undefined;
  status?: string | undefined;
  /** Whether the signature was checked (see StoredRecord.verified). */
  verified?: boolean | undefined;
  headers: Record<string, string>;
  raw: string;
}

export function eventRecord(event: ReceivedEvent): StoredRecord {
  const numbers = [...(event.from === undefined ? [] : [event.from]), ...(event.to ?? [])];
  const record: StoredRecord = { id: event.id, kind: 'event', type: event.type, at: event.receivedAt.toISOString(), numbers, body: event.raw };
  if (event.messageId !== undefined) record.messageId = event.messageId;
  if (event.status !== undefined) record.status = event.status;
  if (event.from !== undefined) record.from = event.from;
  if (event.to !== undefined) record.to = [...event.to];
  if (event.verified !== undefined) record.verified = event.verified;
  record.headers = event.headers;
  return record;
}

export interface SentMessage {
  messageId: string;
  from: string;
  to: string;
  body: string;
  /** When it was sent (ISO 8601 or a Date). */
  at: string | Date;
  status?: string;
}

export function sentRecord(sent: SentMessage): StoredRecord {
  const record: StoredRecord = {
    id: `sent:${sent.messageId}`,
    kind: 'sent',
    type: 'sent',
    at: typeof sent.at === 'string' ? sent.at : sent.at.toISOString(),
    numbers: [sent.from, sent.to],
    messageId: sent.messageId,
    from: sent.from,
    to: [sent.to],
    body: sent.body,
  };
  if (sent.status !== undefined) record.status = sent.status;
  return record;
}

/**
 * recordLine(sentRecord(sent)), the same text, built by hand: a bulk send writes one a request,
 * and JSON.stringify of the whole record was most of the event store's cost in it.
 */
export function sentRecordLine(sent: SentMessage): string {
  const at = typeof sent.at === 'string' ? jsonString(sent.at) : `"${sent.at.toISOString()}"`;
  const from = jsonString(sent.from);
  const to = jsonString(sent.to);
  const status = sent.status !== undefined ? `,"status":${jsonString(sent.status)}` : '';
  return `{"id":${jsonString(`sent:${sent.messageId}`)},"kind":"sent","type":"sent","at":${at},"numbers":[${from},${to}],"messageId":${jsonString(sent.messageId)}${status},"from":${from},"to":[${to}],"body":${jsonString(sent.body)}}`;
}

/** Records one sent message; resolves once it is stored. */
export function recordSent(store: EventStoreWriter, sent: SentMessage): Promise<void> {
  return store.append(sentRecord(sent));
}

/** The messages an accepted send answer names: one per recipient (`messages`), or the one `messageId`. */
export function sentMessagesIn(answer: Readonly<Record<string, unknown>>, from: string, to: readonly string[], body: string, at: Date | string): SentMessage[] {
  const messages = answer['messages'];
  if (Array.isArray(messages)) {
    const sent: SentMessage[] = [];
    messages.forEach((entry: unknown, i) => {
      if (typeof entry !== 'object' || entry === null) return;
      const m = entry as Record<string, unknown>;
      const messageId = m['messageId'];
      const recipient = typeof m['to'] === 'string' ? m['to'] : to[i];
      if (typeof messageId !== 'string' || recipient === undefined) return;
      sent.push({ messageId, from, to: recipient, body, at, ...(typeof m['status'] === 'string' ? { status: m['status'] } : {}) });
    });
    if (sent.length > 0) return sent;
  }
  const messageId = answer['messageId'];
  if (typeof messageId !== 'string' || to.length === 0) return [];
  const status = typeof answer['status'] === 'string' ? answer['status'] : undefined;
  return [{ messageId, from, to: to[0]!, body, at, ...(status !== undefined ? { status } : {}) }];
}

/**
 * What `svc send` uses: records each accepted answer's messages without waiting (the send does not
 * slow down for the disk), and on close waits for them. A store that cannot be written is a warning
 * once, never a failed send.
 */
export interface SentRecorder {
  add(answer: Readonly<Record<string, unknown>>, from: string, to: readonly string[], body: string): void;
  close(): Promise<void>;
}

export function openSentRecorder(dir: string, warn: (message: string) => void, now: () => Date = () => new Date()): SentRecorder | undefined {
  let writer: EventStoreWriter;
  // Each send leaves a small segment: merge them once there are many (quick, and never an error).
  compactQuietly(dir);
  try {
    // The send's journal is what decides who was sent to; these records are for looking back, so
    // they are not synced one batch at a time during the send, only when it ends (close()).
    writer = EventStoreWriter.open(dir, { ack: 'write', lazy: true });
  } catch (error) {
    warn(`sent messages are not recorded in the event store ${dir}: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
  let warned = false;
  const onError = (error: unknown): void => {
    if (warned) return;
    warned = true;
    warn(`could not record sent messages in the event store ${dir}: ${error instanceof Error ? error.message : String(error)}`);
  };
  // A bulk send records thousands a second: the time is formatted once a millisecond, and the
  // records go in without a promise each.
  let lastMs = NaN;
  let lastIso = '';
  const at = (): string => {
    const date = now();
    const ms = date.getTime();
    if (ms !== lastMs) {
      lastMs = ms;
      lastIso = date.toISOString();
    }
    return lastIso;
  };
  return {
    add(answer, from, to, body) {
      for (const sent of sentMessagesIn(answer, from, to, body, at())) writer.add(sentRecord(sent), onError, sentRecordLine(sent));
    },
    close: () => writer.close().catch(onError),
  };
}

/**
 * The hook `svc send` calls: a recorder into the default store (the user data directory, or
 * $SVC_DATA_DIR/events), or none when SVC_NO_STORE is set.
 */
export function sentRecorderFor(ctx: { env: Readonly<Record<string, string | undefined>>; warn(message: string): void }): SentRecorder | undefined {
  const off = ctx.env['SVC_NO_STORE'];
  if (off !== undefined && off !== '' && off !== '0') return undefined;
  return openSentRecorder(defaultStoreDir(ctx.env), (message) => ctx.warn(message));
}
