// Replaying a bulk send journal into each recipient's final state: what `--resume` and `send
// report` go by.

import { PhoneNumberMap } from '../phone-number-map.js';
import type { JournalBudgetStop, JournalExclude, JournalHeader, JournalOutcome, JournalOwnCounts } from './format.js';
import { readJournalRecords } from './parser.js';

export type RecipientState = 'accepted' | 'rejected' | 'unknown';

export interface JournalCounts {
  /** Distinct recipients accepted by some request. */
  accepted: number;
  /** Distinct recipients never accepted, whose every request was rejected (never sent). */
  rejected: number;
  /** Distinct recipients never accepted with an unknown answer or a request in flight at a crash. */
  unknown: number;
  /** Of `unknown`: recipients of requests launched and never answered in the file. */
  inFlight: number;
}

export interface JournalState {
  path: string;
  /** False when there is no journal yet (absent, empty, or only a torn header). */
  exists: boolean;
  header: JournalHeader | undefined;
  /** Records read, the header included. */
  records: number;
  /** The highest `seq` in the file (0 when none). */
  lastSeq: number;
  /** Bytes of whole records; beyond them only a torn last line. */
  validBytes: number;
  /**
   * A last line cut short (a crash mid-write, or a send writing it as this reads), if any;
   * `damaged` when it was whole but bad, which only a reading without the lock lets pass.
   */
  torn: { line: number; bytes: Buffer; damaged?: true } | undefined;
  counts: JournalCounts;
  /**
   * The exclude list the run keeps to now: the header's, or that of the last `resume` record that
   * grew it. Undefined when the run never had one.
   */
  exclude: JournalExclude | undefined;
  /** The run's own counts as last recorded (the header's, or a later resume record's); undefined in older journals. */
  own: JournalOwnCounts | undefined;
  /** Where --budget stopped the last session of the run (none when it was resumed since without a new stop). */
  budgetStop: JournalBudgetStop | undefined;
  /** The final state of one recipient, or undefined when the journal never names it. */
  stateOf(to: string): RecipientState | undefined;
  /** Every recipient the journal names, with its final state (in no particular order). */
  forEachRecipient(visit: (to: string, state: RecipientState) => void): void;
}

const ACCEPTED = 1;
const REJECTED = 2;
const UNKNOWN = 4;
const IN_FLIGHT = 8;
const OUTCOME_BITS: Readonly<Record<JournalOutcome, number>> = { accepted: ACCEPTED, rejected: REJECTED, unknown: UNKNOWN };

function stateFromBits(bits: number): RecipientState {
  if (bits & ACCEPTED) return 'accepted';
  if (bits & (UNKNOWN | IN_FLIGHT)) return 'unknown';
  return 'rejected';
}

function countStates(bits: PhoneNumberMap): JournalCounts {
  const counts: JournalCounts = { accepted: 0, rejected: 0, unknown: 0, inFlight: 0 };
  bits.forEachValue((value) => {
    const state = stateFromBits(value);
    counts[state]++;
    if (state === 'unknown' && value & IN_FLIGHT) counts.inFlight++;
  });
  return counts;
}

/**
 * Reads a journal whole (streamed) into each recipient's final state: accepted when any request
 * for it was accepted; else unknown when an answer was unreadable or a request was in flight at a
 * crash; else rejected. Memory grows with the distinct recipients only (about 24 bytes each).
 * `lockHeld`: this process holds the journal's lock (a send about to write it), so a damaged line
 * is refused at once; without it a send may be writing the journal meanwhile (parser.ts).
 */
export async function readJournal(path: string, options: { lockHeld?: boolean } = {}): Promise<JournalState> {
  const bits = new PhoneNumberMap();
  const open = new Map<number, string[]>();
  let header: JournalHeader | undefined;
  let exclude: JournalExclude | undefined;
  let own: JournalOwnCounts | undefined;
  let budgetStop: JournalBudgetStop | undefined;
  let records = 0;
  let lastSeq = 0;
  let validBytes = 0;
  let torn: JournalState['torn'];
  for await (const record of readJournalRecords(path, {
    lockHeld: options.lockHeld === true,
    onTorn: (t) => (torn = { line: t.line, bytes: t.bytes, ...(t.damaged ? { damaged: true as const } : {}) }),
    // Where the whole records read end: not the file's size, which a send may have grown since.
    onEnd: (end) => (validBytes = end),
  })) {
    records++;
    switch (record.type) {
      case 'header':
        header = record.header;
        exclude = record.header.exclude;
        own = record.header.own;
        break;
      case 'launch':
        lastSeq = record.seq;
        open.set(record.seq, record.to);
        break;
      case 'result': {
        open.delete(record.seq);
        const bit = OUTCOME_BITS[record.outcome];
        for (const to of record.to) bits.set(to, (bits.get(to) ?? 0) | bit);
        break;
      }
      case 'throttled':
        // Refused unprocessed: the launch is closed and its recipients are as if never sent.
        open.delete(record.seq);
        break;
      case 'resume':
        if (record.exclude !== undefined) exclude = record.exclude;
        if (record.own !== undefined) own = record.own;
        budgetStop = undefined;
        break;
      case 'stop':
        budgetStop = record;
        break;
      case 'pause':
        break;
    }
  }
  for (const to of open.values()) for (const number of to) bits.set(number, (bits.get(number) ?? 0) | IN_FLIGHT);

  const counts = countStates(bits);
  return {
    path,
    exists: header !== undefined,
    header,
    records,
    lastSeq,
    validBytes: header === undefined ? 0 : validBytes,
    torn: header === undefined ? undefined : torn,
    counts,
    exclude: header === undefined ? undefined : exclude,
    own: header === undefined ? undefined : own,
    budgetStop: header === undefined ? undefined : budgetStop,
    stateOf: (to) => {
      const value = bits.get(to);
      return value === undefined ? undefined : stateFromBits(value);
    },
    forEachRecipient: (visit) => bits.forEach((to, value) => visit(to, stateFromBits(value))),
  };
}
