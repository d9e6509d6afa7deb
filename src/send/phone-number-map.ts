// A map from phone number to a small unsigned integer, sized for millions of recipients.
//
// Duplicate detection and the journal's "already accepted" set must hold every number of a bulk
// send. A Map<string, number> costs roughly 70-100 bytes per entry on V8 (string header, hash
// table entry, boxed value) and keeps the garbage collector busy. An E.164 number has at most 15
// digits, below 2^53, so its digits fit a float64 exactly and the first digit is never 0; an
// open-addressing table over a Float64Array and a Uint32Array then costs 12 bytes a slot, about
// 24 bytes per entry at the load factor we keep. Strings that are not E.164 (which the callers
// reject anyway, but the journal may hold anything) go to an ordinary Map.

import { isE164 } from '../domain/validate.js';

const INITIAL_CAPACITY = 1024;
const TWO_TO_32 = 4294967296;

export class PhoneNumberMap {
  private keys: Float64Array;
  private values: Uint32Array;
  private mask: number;
  private count = 0;
  private readonly others = new Map<string, number>();

  constructor(expectedSize = 0) {
    let capacity = INITIAL_CAPACITY;
    while (capacity < expectedSize * 2) capacity *= 2;
    this.keys = new Float64Array(capacity);
    this.values = new Uint32Array(capacity);
    this.mask = capacity - 1;
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
    const slot = this.findSlot(key);
    return this.keys[slot] === 0 ? undefined : this.values[slot];
  }

  /** Stores a value (0 to 2^32-1) for the number, replacing any earlier one. */
  set(number: string, value: number): void {
    const key = numericKey(number);
    if (key === 0) {
      this.others.set(number, value);
      return;
    }
    let slot = this.findSlot(key);
    if (this.keys[slot] === 0) {
      if ((this.count + 1) * 2 > this.keys.length) {
        this.grow();
        slot = this.findSlot(key);
      }
      this.keys[slot] = key;
      this.count++;
    }
    this.values[slot] = value;
  }

  /** Calls `visit` with each stored value (in no particular order). */
  forEachValue(visit: (value: number) => void): void {
    const { keys, values } = this;
    for (let i = 0; i < keys.length; i++) {
      if (keys[i] !== 0) visit(values[i]!);
    }
    for (const value of this.others.values()) visit(value);
  }

  /** Calls `visit` with each number and its value (in no particular order). */
  forEach(visit: (number: string, value: number) => void): void {
    const { keys, values } = this;
    for (let i = 0; i < keys.length; i++) {
      if (keys[i] !== 0) visit(`+${keys[i]!}`, values[i]!);
    }
    for (const [number, value] of this.others) visit(number, value);
  }

  private findSlot(key: number): number {
    const { keys, mask } = this;
    let slot = hash(key) & mask;
    while (keys[slot] !== 0 && keys[slot] !== key) slot = (slot + 1) & mask;
    return slot;
  }

  private grow(): void {
    const oldKeys = this.keys;
    const oldValues = this.values;
    this.keys = new Float64Array(oldKeys.length * 2);
    this.values = new Uint32Array(oldKeys.length * 2);
    this.mask = this.keys.length - 1;
    for (let i = 0; i < oldKeys.length; i++) {
      const key = oldKeys[i]!;
      if (key === 0) continue;
      const slot = this.findSlot(key);
      this.keys[slot] = key;
      this.values[slot] = oldValues[i]!;
    }
  }
}

/** The number's digits as a float64, or 0 when the string is not E.164. */
function numericKey(number: string): number {
  return isE164(number) ? Number(number.slice(1)) : 0;
}

function hash(key: number): number {
  const low = key >>> 0;
  const high = Math.floor(key / TWO_TO_32) >>> 0;
  let h = Math.imul(low ^ Math.imul(high, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
