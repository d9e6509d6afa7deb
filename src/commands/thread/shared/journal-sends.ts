import { UsageError } from '../../../errors.js';
import { cannotRead } from '../../../input/file-errors.js';
import { normalizeNumber } from '../../../events/store/index-entries.js';
import { JournalFormatError } from '../../../send/journal/format.js';
import { readJournalRecords } from '../../../send/journal/parser.js';

// What send journals say was sent to one number: the accepted requests that named it. A journal
// keeps a digest of the body, not its text, so a send known only from its journal shows without
// a body; the event store's record of the same message (svc send writes one) wins when present.

export interface JournalSend {
  messageId: string | null;
  from: string;
  to: string;
  at: string;
  status: string | null;
  journal: string;
  /** The request's sequence number in its journal. */
  seq: number;
}

/** The accepted sends to `number` in the journals, in file order. */
export async function sendsInJournals(paths: readonly string[], number: string): Promise<JournalSend[]> {
  const sends: JournalSend[] = [];
  for (const path of paths) {
    let from: string | undefined;
    try {
      for await (const record of readJournalRecords(path)) {
        if (record.type === 'header') from = record.header.run.from;
        if (record.type !== 'result' || record.outcome !== 'accepted') continue;
        record.to.forEach((to, position) => {
          if (normalizeNumber(to) !== number) return;
          // Each recipient's own id (a journal before messageIds has only the first one's).
          const messageId = record.messageIds?.[position] ?? (position === 0 ? (record.messageId ?? null) : null);
          sends.push({ messageId, from: from ?? '', to, at: record.at, status: record.status ?? null, journal: path, seq: record.seq });
        });
      }
    } catch (error) {
      if (error instanceof JournalFormatError) throw new UsageError(error.message);
      throw cannotRead('--journal', path, error);
    }
    if (from === undefined) throw new UsageError(`--journal ${path}: no such send journal (or an empty file)`);
  }
  return sends;
}
