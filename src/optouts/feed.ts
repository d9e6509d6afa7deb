import { recordConsentChanges } from './change.js';
import { ConsentKeywords, type ConsentSettings } from './keywords.js';
import { EVERY_NUMBER, type ConsentChange } from './log.js';

// The opt-out list fed by inbound messages: `svc webhook listen` hands each MessageReceived event
// here; a text that is an opt-out or opt-in keyword of the receiving number becomes a change of
// the list (durable before the event is acknowledged) and a record of its own in the event store,
// so that `svc events` and `svc thread` show when and why. `svc optouts rebuild` runs the same
// rules over the events a store already holds.
//
// The receiving number's own words (settings.optOut/optIn text and allText) are read once per
// number and kept for the life of the listener; when they cannot be read (no credentials, the
// service unreachable) the standard words still apply, and that is said once.

/** The fields of a MessageReceived payload the feed reads. */
export interface InboundMessage {
  /** The event id (the delivery id). */
  id: string;
  at: Date;
  /** The person. */
  from: string;
  /** The number that received it (ours). */
  to: string;
  text: string;
  tenant?: string | undefined;
}

/** The text, sender, receiving number and tenant of a MessageReceived payload, or undefined. */
export function inboundMessageOf(payload: unknown, id: string, at: Date): InboundMessage | undefined {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return undefined;
  const p = payload as Record<string, unknown>;
  const text = typeof p['message'] === 'string' ? p['message'] : typeof p['body'] === 'string' ? p['body'] : undefined;
  const from = typeof p['from'] === 'string' ? p['from'] : undefined;
  const tos = Array.isArray(p['tos']) ? p['tos'].filter((t): t is string => typeof t === 'string') : typeof p['to'] === 'string' ? [p['to']] : [];
  const to = typeof p['targetNumber'] === 'string' && p['targetNumber'] !== '' ? p['targetNumber'] : tos[0];
  // Only messages coming in: type 0 (or no type at all, as some senders leave it out).
  if (p['type'] !== undefined && p['type'] !== 0 && p['type'] !== '0' && p['type'] !== 'Inbound') return undefined;
  if (text === undefined || from === undefined || to === undefined) return undefined;
  return { id, at, from, to, text, tenant: typeof p['tenantId'] === 'string' ? p['tenantId'] : undefined };
}

/** The change a message asks for under `keywords`, or undefined when it is no keyword. */
export function consentChangeOf(message: InboundMessage, keywords: ConsentKeywords, by: string): ConsentChange | undefined {
  const match = keywords.match(message.text);
  if (match === undefined) return undefined;
  return {
    op: match.action,
    number: message.from,
    from: match.scope === 'all' ? EVERY_NUMBER : message.to,
    at: message.at.toISOString(),
    cause: 'keyword',
    keyword: match.keyword,
    event: message.id,
    tenant: message.tenant,
    by,
  };
}

export interface ConsentFeedOptions {
  /** The event store directory the list is kept beside. */
  dir: string;
  /** Reads a receiving number's settings (undefined: they cannot be read, or it has none). */
  settingsOf?: ((number: string) => Promise<ConsentSettings | undefined>) | undefined;
  /** Who records the changes: `webhook listen on HOST`. */
  by: string;
  warn(message: string): void;
}

/**
 * How long an event may wait for its number's settings: the service gives a receiver 10 s to
 * answer, and a slow read must not cost the delivery (the standard words apply meanwhile).
 */
const SETTINGS_DEADLINE_MS = 3_000;

function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms);
    timer.unref?.();
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

export class ConsentFeed {
  private readonly keywords = new Map<string, Promise<ConsentKeywords>>();
  private warnedSettings = false;

  constructor(private readonly options: ConsentFeedOptions) {}

  private keywordsOf(number: string): Promise<ConsentKeywords> {
    let keywords = this.keywords.get(number);
    if (keywords === undefined) {
      const read = this.options.settingsOf;
      keywords =
        read === undefined
          ? Promise.resolve(new ConsentKeywords())
          : withDeadline(read(number), SETTINGS_DEADLINE_MS).then(
              (settings) => new ConsentKeywords(settings),
              (error: unknown) => {
                if (!this.warnedSettings) {
                  this.warnedSettings = true;
                  this.options.warn(
                    `the opt-out words of ${number} could not be read from its settings (${error instanceof Error ? error.message : String(error)}): STOP, START and the other standard words still apply`,
                  );
                }
                // Not kept: the next message tries again.
                this.keywords.delete(number);
                return new ConsentKeywords();
              },
            );
      this.keywords.set(number, keywords);
    }
    return keywords;
  }

  /** Records the change an inbound message asks for, on disk, before it returns; the change, or undefined. */
  async inbound(message: InboundMessage): Promise<ConsentChange | undefined> {
    // The standard words need no settings: a message that could be no keyword at all is not
    // worth a look-up of the number's own words unless it is short enough to be one.
    if (message.text.length > 256) return undefined;
    const change = consentChangeOf(message, await this.keywordsOf(message.to), this.options.by);
    if (change === undefined) return undefined;
    const recorded = recordConsentChanges(this.options.dir, [change]);
    return recorded.made[0];
  }
}
