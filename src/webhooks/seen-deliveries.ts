/**
 * The delivery keys the listener has acknowledged, newest last, bounded so that a listener left
 * running for days keeps a fixed footprint. A Map keeps insertion order, which is all an LRU of
 * keys needs: a hit is moved to the end, and the oldest key goes first when full.
 */
export class SeenDeliveries {
  private readonly keys = new Map<string, true>();

  constructor(readonly capacity = 10_000) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('capacity must be a positive integer');
  }

  get size(): number {
    return this.keys.size;
  }

  /** True when the key was seen before (and refreshes it). */
  has(key: string): boolean {
    if (!this.keys.has(key)) return false;
    this.keys.delete(key);
    this.keys.set(key, true);
    return true;
  }

  add(key: string): void {
    this.keys.delete(key);
    this.keys.set(key, true);
    while (this.keys.size > this.capacity) {
      const oldest = this.keys.keys().next();
      if (oldest.done === true) break;
      this.keys.delete(oldest.value);
    }
  }
}
