import { EventStoreReader } from '../events/store/reader.js';
import { EventStoreWriter } from '../events/store/writer.js';
import { parsePayload } from '../webhooks/payloads.js';
import { recordConsentChanges, type Recorded } from './change.js';
import { consentChangeOf, inboundMessageOf } from './feed.js';
import { ConsentKeywords, type ConsentSettings } from './keywords.js';
import { readOptOutLog, type ConsentChange } from './log.js';
import { consentRecord } from './record.js';

// The opt-out list rebuilt from the messages an event store already holds: for a store that
// predates the listener's keeping of opt-outs, or a list that was lost. Every stored
// MessageReceived is run through the same rules as the listener's, oldest first. Nothing is
// recorded twice: an event the log already names is skipped, and so is any change older than the
// newest the log holds for that person (a later decision, by keyword or by hand, stands). Each
// change made is also stored as an OptOut/OptIn event, as the listener stores it.

export interface Rebuilt extends Recorded {
  /** Inbound messages read. */
  messages: number;
}

export async function rebuildOptOuts(dir: string, options: { by: string; settingsOf?: (number: string) => Promise<ConsentSettings | undefined> }): Promise<Rebuilt> {
  const { changes: logged } = readOptOutLog(dir);
  const known = new Set(logged.map((change) => change.event).filter((event): event is string => event !== undefined));
  const newest = new Map<string, string>();
  for (const change of logged) if ((newest.get(change.number) ?? '') < change.at) newest.set(change.number, change.at);

  const keywords = new Map<string, ConsentKeywords>();
  const keywordsOf = async (number: string): Promise<ConsentKeywords> => {
    let table = keywords.get(number);
    if (table === undefined) {
      let settings: ConsentSettings | undefined;
      try {
        settings = await options.settingsOf?.(number);
      } catch {
        settings = undefined;
      }
      table = new ConsentKeywords(settings);
      keywords.set(number, table);
    }
    return table;
  };

  const records = new EventStoreReader(dir).query({ kinds: ['event'], types: ['MessageReceived'] });
  const changes: ConsentChange[] = [];
  for (const record of records) {
    if (known.has(record.id)) continue;
    let payload: unknown;
    try {
      payload = parsePayload(record.body);
    } catch {
      continue;
    }
    const message = inboundMessageOf(payload, record.id, new Date(record.at));
    if (message === undefined || message.text.length > 256) continue;
    const change = consentChangeOf(message, await keywordsOf(message.to), options.by);
    if (change === undefined || change.at <= (newest.get(change.number) ?? '')) continue;
    changes.push(change);
  }
  const recorded = recordConsentChanges(dir, changes);
  if (recorded.made.length > 0) {
    const writer = EventStoreWriter.open(dir, { ack: 'fsync' });
    try {
      await Promise.all(recorded.made.map((change) => writer.append(consentRecord(change))));
    } finally {
      await writer.close();
    }
  }
  return { ...recorded, messages: records.length };
}
