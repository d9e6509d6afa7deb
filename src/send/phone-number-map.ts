// A map from phone number to a small unsigned integer, sized for millions of recipients.
// Its memory is handed back to the system the moment it is outgrown or cleared (see resizable).
//
// Duplicate detection and the journal's "already accepted" set must hold every number of a bulk
// send. A Map<string, number> costs roughly 70-100 bytes per entry on V8 (string header, hash
// table entry, boxed value) and keeps the garbage collector busy. An E.164 number has at most 15
// digits, below 2^53, so its digits fit a float64 exactly and the first digit is never 0; an
// open-addressing table over a Float64Array and a Uint32Array then costs 12 bytes a slot, 16 to
// 32 bytes per entry at the load factors we keep (at most three quarters full). Strings that are not E.164 (which the callers
// reject anyway, but the journal may hold anything) go to an ordinary Map.

/**
 * The table is split in SHARDS tables by the top bits of the hash, each grown on its own: a
 * single table, doubled from 12 MB to 25 MB at a million numbers, left every smaller table it
 * had outgrown behind as garbage that the collector was in no hurry to free (typed arrays live
 * outside the heap), and that garbage was a third of a million-recipient send's peak memory.
 * A shard's growth leaves a sixty-fourth of that behind.
 */
const SHARD_BITS = 6;
const SHARDS = 1 << SHARD_BITS;
const INITIAL_SHARD_CAPACITY = 32;
const TWO_TO_32 = 4294967296;
const PLUS = 0x2b;
const ZERO = 0x30;

interface Shard {
  keys: Float64Array;
  values: Uint32Array;
  mask: number;
  count: number;
}

/**
 * A typed array whose memory can be handed back at once (see free): over a resizable
 * ArrayBuffer, which resize(0) decommits, where the collector would free an ordinary one only
 * when it next ran, after the send had started and grown to its own peak on top of it.
 */
function resizable<T>(View: new (buffer: ArrayBuffer, offset: number, length: number) => T, bytesPerElement: number, length: number): T {
  const Buffer = ArrayBuffer as unknown as new (bytes: number, options?: { maxByteLength: number }) => ArrayBuffer;
  return new View(new Buffer(length * bytesPerElement, { maxByteLength: length * bytesPerElement }), 0, length);
}

function free(array: Float64Array | Uint32Array): void {
  (array.buffer as ArrayBuffer & { resize?: (bytes: number) => void }).resize?.(0);
}

function newShard(capacity: number): Shard {
  return { keys: resizable(Float64Array, 8, capacity), values: resizable(Uint32Array, 4, capacity), mask: capacity - 1, count: 0 };
}

export class PhoneNumberMap {
  private readonly shards: Shard[] = [];
  private count = 0;
  private readonly others = new Map<string, number>();

  constructor(expectedSize = 0) {
    const capacity = capacityFor(expectedSize);
    for (let i = 0; i < SHARDS; i++) this.shards.push(newShard(capacity));
  }

  /**
   * Makes room for `expectedSize` numbers at once (a recipients file's size over the length of
   * its first rows): one step of growth instead of a dozen, so no outgrown tables are left as
   * garbage. A smaller guess only means growing later as usual.
   */
  reserve(expectedSize: number): void {
    const capacity = capacityFor(expectedSize);
    for (const shard of this.shards) if (shard.keys.length < capacity) grow(shard, capacity);
  }

  get size(): number {
    return this.count + this.others.size;
  }

  has(number: string): boolean {
    return this.get(number) !== undefined;
  }

  get(number: string): number | undefined {
    const key = numericKey(number);
    if (key === 0) return this.others.get(number);
    const h = hash(key);
    const shard = this.shards[h >>> (32 - SHARD_BITS)]!;
    const slot = findSlot(shard, key, h);
    return shard.keys[slot] === 0 ? undefined : shard.values[slot];
  }

  /** Stores a value (0 to 2^32-1) for the number, replacing any earlier one. */
  set(number: string, value: number): void {
    const key = numericKey(number);
    if (key === 0) {
      this.others.set(number, value);
      return;
    }
    const h = hash(key);
    const shard = this.shards[h >>> (32 - SHARD_BITS)]!;
    let slot = findSlot(shard, key, h);
    if (shard.keys[slot] === 0) {
      if ((shard.count + 1) * 4 > shard.keys.length * 3) {
        grow(shard, shard.keys.length * 2);
        slot = findSlot(shard, key, h);
      }
      shard.keys[slot] = key;
      shard.count++;
      this.count++;
    }
    shard.values[slot] = value;
  }

  /** Forgets every number and hands the memory back at once (a check done with its index). */
  clear(): void {
    for (let i = 0; i < SHARDS; i++) {
      const shard = this.shards[i]!;
      free(shard.keys);
      free(shard.values);
      this.shards[i] = newShard(INITIAL_SHARD_CAPACITY);
    }
    this.count = 0;
    this.others.clear();
  }

  /** Calls `visit` with each stored value (in no particular order). */
  forEachValue(visit: (value: number) => void): void {
    for (const { keys, values } of this.shards) {
      for (let i = 0; i < keys.length; i++) {
        if (keys[i] !== 0) visit(values[i]!);
      }
    }
    for (const value of this.others.values()) visit(value);
  }

  /** Calls `visit` with each number and its value (in no particular order). */
  forEach(visit: (number: string, value: number) => void): void {
    for (const { keys, values } of this.shards) {
      for (let i = 0; i < keys.length; i++) {
        if (keys[i] !== 0) visit(`+${keys[i]!}`, values[i]!);
      }
    }
    for (const [number, value] of this.others) visit(number, value);
  }
}

function findSlot(shard: Shard, key: number, h: number): number {
  const { keys, mask } = shard;
  let slot = h & mask;
  while (keys[slot] !== 0 && keys[slot] !== key) slot = (slot + 1) & mask;
  return slot;
}

/** Slots a shard needs for its share of `expectedSize` numbers, at most three quarters full. */
function capacityFor(expectedSize: number): number {
  let capacity = INITIAL_SHARD_CAPACITY;
  while (capacity * SHARDS * 3 < expectedSize * 4) capacity *= 2;
  return capacity;
}

function grow(shard: Shard, capacity: number): void {
  const oldKeys = shard.keys;
  const oldValues = shard.values;
  shard.keys = resizable(Float64Array, 8, capacity);
  shard.values = resizable(Uint32Array, 4, capacity);
  shard.mask = shard.keys.length - 1;
  for (let i = 0; i < oldKeys.length; i++) {
    const key = oldKeys[i]!;
    if (key === 0) continue;
    const slot = findSlot(shard, key, hash(key));
    shard.keys[slot] = key;
    shard.values[slot] = oldValues[i]!;
  }
  free(oldKeys);
  free(oldValues);
}

/**
 * The number's digits as a float64, or 0 when the string is not E.164 (a plus, a first digit
 * that is not 0, 8 to 15 digits in all: what isE164 accepts). Read digit by digit: it is asked
 * for every recipient, and a regular expression, a slice and a parse cost twice as much.
 */
function numericKey(number: string): number {
  const length = number.length;
  if (length < 9 || length > 16 || number.charCodeAt(0) !== PLUS) return 0;
  let key = 0;
  for (let i = 1; i < length; i++) {
    const digit = number.charCodeAt(i) - ZERO;
    if (digit < 0 || digit > 9) return 0;
    key = key * 10 + digit;
  }
  // A leading 0 would make "+01…" and "+1…" the same key; E.164 has none.
  return number.charCodeAt(1) === ZERO ? 0 : key;
}

function hash(key: number): number {
  const low = key >>> 0;
  const high = Math.floor(key / TWO_TO_32) >>> 0;
  let h = Math.imul(low ^ Math.imul(high, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
