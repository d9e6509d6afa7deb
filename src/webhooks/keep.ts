// Keeping a verified event: the record the event store holds for it, appended before the sender
// is answered. What cannot be kept is refused with 503, so that the sender tries again.

import type { IncomingHttpHeaders } from 'node:http';
import { eventRecord, keptHeaders } from '../events/records.js';
import type { IncomingEvent, StoredRecord } from '../events/store/record.js';
import type { Written } from '../events/store/writer.js';
import { describeError, Rejection } from './receive.js';
import type { WebhookEventKind, WebhookEventSummary } from './payloads.js';

/** The part of the event store the listener needs. */
export interface EventSink {
  append(record: StoredRecord): Promise<void>;
  /** The event store's way: no record object, no promise; `done` hears when it is kept (or why not). */
  addEvent?(event: IncomingEvent, done: Written): void;
}

export interface KeptEvent {
  /** The delivery id, or the dedupe key (`sha256:...`) when the sender named none. */
  id: string;
  kind: WebhookEventKind;
  summary: WebhookEventSummary;
  receivedAt: Date;
  /** receivedAt in ISO 8601 (formatted once for the store and the printed line). */
  at: string;
  headers: IncomingHttpHeaders;
  raw: string;
  /** False when the listener checks no signature (--no-verify): stored with the event. */
  verified: boolean;
}

export function recordOf(event: KeptEvent): StoredRecord {
  const { kind, summary } = event;
  const hasNumbers = kind === 'MessageReceived' || kind === 'DeliveryReceipt';
  return eventRecord({
    id: event.id,
    type: kind,
    receivedAt: event.receivedAt,
    from: hasNumbers ? summary.from : undefined,
    to: hasNumbers ? summary.to : undefined,
    messageId: hasNumbers ? summary.id : undefined,
    status: summary.status,
    verified: event.verified,
    headers: keptHeaders(event.headers),
    raw: event.raw,
  });
}

function notKept(error: unknown): Rejection {
  // Not kept, so not acknowledged: the sender will try again.
  return new Rejection(503, `the event could not be stored: ${describeError(error)}`, { 'Retry-After': '5' });
}

/** Resolves once the sink holds the event; a sink that fails becomes a 503 Rejection. */
export async function keepEvent(sink: EventSink, event: KeptEvent): Promise<void> {
  try {
    await sink.append(recordOf(event));
  } catch (error) {
    throw notKept(error);
  }
}

/** As keepEvent, with a callback: null once the sink holds the event, or the 503 Rejection. */
export function keepEventThen(sink: EventSink, event: KeptEvent, done: (rejection: Rejection | null) => void): void {
  if (sink.addEvent === undefined) {
    sink.append(recordOf(event)).then(
      () => done(null),
      (error: unknown) => done(notKept(error)),
    );
    return;
  }
  const { kind, summary } = event;
  const hasNumbers = kind === 'MessageReceived' || kind === 'DeliveryReceipt';
  sink.addEvent(
    {
      id: event.id,
      type: kind,
      time: event.receivedAt.getTime(),
      at: event.at,
      from: hasNumbers ? summary.from : undefined,
      to: hasNumbers ? summary.to : undefined,
      messageId: hasNumbers ? summary.id : undefined,
      status: summary.status,
      verified: event.verified,
      headers: event.headers,
      raw: event.raw,
    },
    (failed, error) => done(failed ? notKept(error) : null),
  );
}
