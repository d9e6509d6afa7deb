/**
 * The delivery keys the listener has acknowledged, bounded so that a listener left running for
 * days keeps a fixed footprint. A ring of keys beside a Set: adding past the capacity overwrites
 * the oldest slot and forgets that key, O(1) whatever the size (a Map evicted from its front walks
 * over the slots of deleted entries, which grew with every eviction).
 */
export class SeenDeliveries {
  private readonly keys = new Set<string>();
  private readonly ring: (string | undefined)[];
  private next = 0;

  constructor(readonly capacity = 10_000) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('capacity must be a positive integer');
    this.ring = new Array<string | undefined>(capacity);
  }

  get size(): number {
    return this.keys.size;
  }

  /** True when the key was seen (and not forgotten since). */
  has(key: string): boolean {
    return this.keys.has(key);
  }

  add(key: string): void {
    if (this.keys.has(key)) return;
    const oldest = this.ring[this.next];
    if (oldest !== undefined) this.keys.delete(oldest);
    this.ring[this.next] = key;
    this.keys.add(key);
    this.next = this.next + 1 === this.capacity ? 0 : this.next + 1;
  }
}
