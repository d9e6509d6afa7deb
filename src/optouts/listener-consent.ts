import type { StoredRecord } from '../events/store/record.js';
import { ConsentFeed, inboundMessageOf, type ConsentFeedOptions } from './feed.js';
import type { ConsentChange } from './log.js';
import { consentRecord } from './record.js';

// What `svc webhook listen` does with each new inbound message for the opt-out list: a message
// short enough to be a keyword goes through the feed, and the change it makes (if any) is on disk,
// and stored as an OptOut/OptIn event, before the sender is answered; a change that cannot be
// recorded fails the request (503), so that the service delivers it again. Anything else (other
// event kinds, long texts) returns at once with nothing to wait for.

/** The longest text looked at: no keyword, a number's own included, is longer. */
const LONGEST = 256;

export interface ListenerConsentOptions extends ConsentFeedOptions {
  /** The listener's event store, to keep each change as an event (none with --no-store). */
  store?: { append(record: StoredRecord): Promise<void> } | undefined;
  /** Told of each change made (the command prints it). */
  changed?: (change: ConsentChange) => void;
}

export interface ConsentEvent {
  kind: string;
  payload: unknown;
  deliveryId: string | null;
  dedupeKey: string;
  receivedAt: Date;
}

/** The hook the request handler calls for every new verified event: a promise only when there is work. */
export function listenerConsent(options: ListenerConsentOptions): (event: ConsentEvent) => Promise<void> | undefined {
  const feed = new ConsentFeed(options);
  return (event) => {
    if (event.kind !== 'MessageReceived') return undefined;
    const message = inboundMessageOf(event.payload, event.deliveryId ?? event.dedupeKey, event.receivedAt);
    if (message === undefined || message.text.length > LONGEST) return undefined;
    return feed.inbound(message).then(async (change) => {
      if (change === undefined) return;
      await options.store?.append(consentRecord(change));
      options.changed?.(change);
    });
  };
}
