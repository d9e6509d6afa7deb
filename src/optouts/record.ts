import type { StoredRecord } from '../events/store/record.js';
import { EVERY_NUMBER, type ConsentChange } from './log.js';

// A change of the opt-out list as a record of the event store, so that `svc events list` and
// `svc thread NUMBER` show when someone opted out or back in, and why, beside their messages.
// Its type is OptOut or OptIn; its body the change as the log keeps it; its id is derived from the
// event that caused it, so that recording it twice (a retried delivery) keeps one copy.

export const CONSENT_EVENT_TYPES = ['OptOut', 'OptIn'] as const;

export function consentRecord(change: ConsentChange): StoredRecord {
  const type = change.op === 'out' ? 'OptOut' : 'OptIn';
  const sender = change.from === EVERY_NUMBER ? [] : [change.from];
  return {
    id: `${type.toLowerCase()}:${change.event ?? `${change.number}:${change.at}`}`,
    kind: 'event',
    type,
    at: change.at,
    numbers: [change.number, ...sender],
    from: change.number,
    to: sender,
    body: JSON.stringify(change),
  };
}

/** `opted out of +15551230000 (STOP)`, `opted out of every number of tenant GUID (STOPALL)`, `opted back in to every number`. */
export function describeConsentRecord(type: string, body: string): string | undefined {
  let change: Partial<ConsentChange>;
  try {
    change = JSON.parse(body) as Partial<ConsentChange>;
  } catch {
    return undefined;
  }
  const sender = change.from !== EVERY_NUMBER ? (change.from ?? '?') : change.tenant !== undefined ? `every number of tenant ${change.tenant}` : 'every number';
  const why = change.keyword !== undefined ? ` (${change.keyword})` : change.reason !== undefined ? ` (${change.reason})` : '';
  return type === 'OptOut' ? `opted out of ${sender}${why}` : `opted back in to ${sender}${why}`;
}
