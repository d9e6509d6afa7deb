import { PhoneNumberMap } from '../send/phone-number-map.js';
import { EVERY_NUMBER, readOptOutLog, type ConsentChange } from './log.js';

// The opt-out list: what the log of changes adds up to. Who is opted out of which sending number,
// each with the change that put them there (when, why, by whom).
//
// An opt-out of every number (STOPALL, a number's allText) is about the numbers of one tenant: the
// change carries the tenant the inbound message arrived for, and only a send for that tenant leaves
// the person out. One without a tenant (added by hand without --tenant, or kept before changes
// carried one) is about every number of every tenant: when it cannot be told whose it is, the
// person is left out everywhere.
//
// The rules of the fold:
// - `out` for (person, sending number) puts the person on that number's list (a repeat keeps the
//   first: the earliest refusal is the one that counts);
// - `out` for EVERY_NUMBER keeps the person from every number of its tenant (of all, without one);
// - `in` for a sending number lifts the person's opt-out of that number, the every-number one of
//   the change's tenant, and one without a tenant: who texts START to a number wants its messages
//   again, which a tenant-wide STOP would still block;
// - `in` for EVERY_NUMBER with a tenant (a number's optIn.allText, `optouts remove --tenant`) lifts
//   that tenant's every-number opt-out and the person's opt-outs recorded for that tenant;
// - `in` for EVERY_NUMBER without a tenant lifts every opt-out the person has.
// A send asks one question per recipient (`has`), answered from maps built once: O(1).

export interface OptOutEntry extends ConsentChange {
  op: 'out';
}

/** Who a send from one number leaves out (the list as it was when the lookup was made). */
export interface OptOutLookup {
  has(number: string): boolean;
  /** Entries that can apply: this number's and every number's. */
  readonly size: number;
}

type People = Map<string, OptOutEntry>;

/** The key of the people a change is about: a sending number, or every number of a tenant (or of all). */
function keyOf(change: Pick<ConsentChange, 'from' | 'tenant'>): string {
  return change.from === EVERY_NUMBER && change.tenant !== undefined ? everyNumberOf(change.tenant) : change.from;
}

/** The key of every number of a tenant; a GUID's letter case does not make it another tenant. */
function everyNumberOf(tenant: string): string {
  return `${EVERY_NUMBER}${tenant.toLowerCase()}`;
}

function isEveryNumberKey(key: string): boolean {
  return key.startsWith(EVERY_NUMBER);
}

export class OptOutList {
  /** Sending number, or EVERY_NUMBER followed by a tenant (nothing: every tenant) -> person -> the change that opted them out. */
  private readonly byKey = new Map<string, People>();

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
    if (change.op === 'out') return !(this.byKey.get(keyOf(change))?.has(change.number) ?? false);
    return this.liftedBy(change).length > 0;
  }

  apply(change: ConsentChange): void {
    if (change.op === 'out') {
      const key = keyOf(change);
      let people = this.byKey.get(key);
      if (people === undefined) this.byKey.set(key, (people = new Map()));
      if (!people.has(change.number)) people.set(change.number, change as OptOutEntry);
      return;
    }
    for (const people of this.liftedBy(change)) people.delete(change.number);
  }

  /** The maps an opt-in takes the person out of (only those that hold them). */
  private liftedBy(change: ConsentChange): People[] {
    const holding = (people: People | undefined): people is People => people?.has(change.number) ?? false;
    if (change.from !== EVERY_NUMBER) {
      const keys = [change.from, EVERY_NUMBER, ...(change.tenant !== undefined ? [everyNumberOf(change.tenant)] : [])];
      return keys.map((key) => this.byKey.get(key)).filter(holding);
    }
    if (change.tenant === undefined) return [...this.byKey.values()].filter(holding);
    const own = [...this.byKey.entries()].filter(([key, people]) => !isEveryNumberKey(key) && people.get(change.number)?.tenant?.toLowerCase() === change.tenant?.toLowerCase());
    return [this.byKey.get(keyOf(change)), ...own.map(([, people]) => people)].filter(holding);
  }

  /** The every-number maps a send for `tenant` honours: its tenant's and the untenanted; all of them when the tenant is not known. */
  private everyNumberFor(tenant: string | undefined): People[] {
    const keys = [...this.byKey.keys()].filter((key) => (tenant === undefined ? isEveryNumberKey(key) : key === EVERY_NUMBER || key === everyNumberOf(tenant)));
    return keys.map((key) => this.byKey.get(key)!).filter((people) => people.size > 0);
  }

  /**
   * Who a send from `from` for `tenant` leaves out. Without a tenant every tenant's every-number
   * opt-outs apply: a person who opted out cannot be sent because the send did not say whose it is.
   */
  lookupFor(from: string, tenant?: string): OptOutLookup {
    const maps = [this.byKey.get(from), ...this.everyNumberFor(tenant)].filter((people): people is People => people !== undefined && people.size > 0);
    const size = maps.reduce((total, people) => total + people.size, 0);
    if (maps.length === 0) return { has: () => false, size };
    // The people's numbers alone, as they are now, in a table outside the JavaScript heap: a send
    // keeps its lookup for the whole run. Holding the maps would hold every entry (the change
    // with its time, cause and author); even a Set of the numbers costs some 60 bytes a person
    // on the heap. What the heap keeps for the whole run sets how far the garbage collector lets
    // it grow between full collections (up to four times that), so at a million recipients it
    // shows in the process's peak size several times over.
    const numbers = new PhoneNumberMap(size);
    for (const people of maps) for (const number of people.keys()) numbers.set(number, 1);
    return { has: (number) => numbers.has(number), size };
  }

  /** The entry that keeps `number` from `from`, if any (the number's own before every number's). */
  entryFor(from: string, number: string, tenant?: string): OptOutEntry | undefined {
    for (const people of [this.byKey.get(from), ...this.everyNumberFor(tenant)]) {
      const entry = people?.get(number);
      if (entry !== undefined) return entry;
    }
    return undefined;
  }

  /**
   * Every entry, or those that can apply to a send from `from` (its own and every number's) and
   * for `tenant` (every number's of that tenant and of none in particular, as lookupFor has it;
   * without `from`, a number's own only when recorded for that tenant or for none), every
   * number's first, then by sending number and person.
   */
  entries(from?: string, tenant?: string): OptOutEntry[] {
    const everyNumber = new Set(tenant === undefined ? [] : [EVERY_NUMBER, everyNumberOf(tenant)]);
    const keys = [...this.byKey.keys()].filter((key) => {
      if (isEveryNumberKey(key)) return tenant === undefined || everyNumber.has(key);
      return from === undefined || key === from;
    });
    // A number's own entry names its tenant when the message that made it did; one for another tenant is not this tenant's.
    const ofTenant = (entry: OptOutEntry): boolean =>
      tenant === undefined || from !== undefined || isEveryNumberKey(entry.from) || entry.tenant === undefined || entry.tenant.toLowerCase() === tenant.toLowerCase();
    const list: OptOutEntry[] = [];
    for (const key of keys.sort(compareKeys)) {
      const people = this.byKey.get(key)!;
      for (const number of [...people.keys()].sort()) {
        const entry = people.get(number)!;
        if (ofTenant(entry)) list.push(entry);
      }
    }
    return list;
  }

  get size(): number {
    let size = 0;
    for (const people of this.byKey.values()) size += people.size;
    return size;
  }
}

/** Every number's entries first (of every tenant, then by tenant), then by sending number. */
function compareKeys(a: string, b: string): number {
  if (a === b) return 0;
  const everyA = isEveryNumberKey(a);
  if (everyA !== isEveryNumberKey(b)) return everyA ? -1 : 1;
  return a < b ? -1 : 1;
}
