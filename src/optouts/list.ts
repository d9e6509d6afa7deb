import { EVERY_NUMBER, readOptOutLog, type ConsentChange } from './log.js';

// The opt-out list: what the log of changes adds up to. Who is opted out of which sending number,
// each with the change that put them there (when, why, by whom).
//
// The rules of the fold:
// - `out` for (person, sending number) puts the person on that number's list (a repeat keeps the
//   first: the earliest refusal is the one that counts);
// - `out` for EVERY_NUMBER (STOPALL, a number's allText, an opt-out added without --number) keeps
//   the person from every sending number;
// - `in` for a sending number lifts the person's opt-out of that number and of every number: who
//   texts START to a number wants its messages again, which a tenant-wide STOP would still block;
// - `in` for EVERY_NUMBER lifts every opt-out the person has.
// A send asks one question per recipient (`has`), answered from two maps built once: O(1).

export interface OptOutEntry extends ConsentChange {
  op: 'out';
}

/** Who a send from one number leaves out. */
export interface OptOutLookup {
  has(number: string): boolean;
  /** Entries that can apply: this number's and every number's. */
  readonly size: number;
}

const EMPTY: ReadonlyMap<string, OptOutEntry> = new Map();

export class OptOutList {
  /** Sending number (or EVERY_NUMBER) -> person -> the change that opted them out. */
  private readonly bySender = new Map<string, Map<string, OptOutEntry>>();

  constructor(changes: Iterable<ConsentChange> = []) {
    for (const change of changes) this.apply(change);
  }

  /** The list as the log in `dir` has it; `damaged` names the log's lines that could not be read. */
  static read(dir: string): { list: OptOutList; damaged: number[] } {
    const { changes, damaged } = readOptOutLog(dir);
    return { list: new OptOutList(changes), damaged };
  }

  /** True when the change would alter the list (a repeated STOP, or START of someone not out, would not). */
  changes(change: ConsentChange): boolean {
    if (change.op === 'out') return !(this.bySender.get(change.from)?.has(change.number) ?? false);
    if (change.from === EVERY_NUMBER) {
      for (const people of this.bySender.values()) if (people.has(change.number)) return true;
      return false;
    }
    return (this.bySender.get(change.from)?.has(change.number) ?? false) || (this.bySender.get(EVERY_NUMBER)?.has(change.number) ?? false);
  }

  apply(change: ConsentChange): void {
    if (change.op === 'out') {
      let people = this.bySender.get(change.from);
      if (people === undefined) this.bySender.set(change.from, (people = new Map()));
      if (!people.has(change.number)) people.set(change.number, change as OptOutEntry);
      return;
    }
    if (change.from === EVERY_NUMBER) {
      for (const people of this.bySender.values()) people.delete(change.number);
      return;
    }
    this.bySender.get(change.from)?.delete(change.number);
    this.bySender.get(EVERY_NUMBER)?.delete(change.number);
  }

  /** Who a send from `from` leaves out. */
  lookupFor(from: string): OptOutLookup {
    const own = this.bySender.get(from) ?? EMPTY;
    const every = this.bySender.get(EVERY_NUMBER) ?? EMPTY;
    if (every.size === 0) return { has: (number) => own.has(number), size: own.size };
    if (own.size === 0) return { has: (number) => every.has(number), size: every.size };
    return { has: (number) => own.has(number) || every.has(number), size: own.size + every.size };
  }

  /** The entry that keeps `number` from `from`, if any (the number's own before every number's). */
  entryFor(from: string, number: string): OptOutEntry | undefined {
    return this.bySender.get(from)?.get(number) ?? this.bySender.get(EVERY_NUMBER)?.get(number);
  }

  /** Every entry, or those that apply to `from` (its own and every number's), by sending number then person. */
  entries(from?: string): OptOutEntry[] {
    const senders = from === undefined ? [...this.bySender.keys()] : from === EVERY_NUMBER ? [from] : [from, EVERY_NUMBER];
    const list: OptOutEntry[] = [];
    for (const sender of senders.sort(compareSenders)) {
      const people = this.bySender.get(sender);
      if (people === undefined) continue;
      for (const number of [...people.keys()].sort()) list.push(people.get(number)!);
    }
    return list;
  }

  get size(): number {
    let size = 0;
    for (const people of this.bySender.values()) size += people.size;
    return size;
  }
}

/** Every number's entries first, then by sending number. */
function compareSenders(a: string, b: string): number {
  if (a === b) return 0;
  if (a === EVERY_NUMBER) return -1;
  if (b === EVERY_NUMBER) return 1;
  return a < b ? -1 : 1;
}
