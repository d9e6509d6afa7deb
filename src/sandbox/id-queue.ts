// A FIFO of ids on a growable ring buffer: push and shift are O(1), so that evicting the oldest
// message costs the same with 100 or 1,000,000 stored (a Map walked from its start does not: it
// steps over every deleted slot before the first live one).

export class IdQueue<T> {
  private slots: (T | undefined)[];
  private head = 0;
  private count = 0;

  constructor(initialCapacity = 1024) {
    this.slots = new Array<T | undefined>(Math.max(2, initialCapacity));
  }

  get size(): number {
    return this.count;
  }

  push(value: T): void {
    if (this.count === this.slots.length) this.grow();
    this.slots[(this.head + this.count) % this.slots.length] = value;
    this.count++;
  }

  /** The oldest value, removed; undefined when empty. */
  shift(): T | undefined {
    if (this.count === 0) return undefined;
    const value = this.slots[this.head];
    this.slots[this.head] = undefined;
    this.head = (this.head + 1) % this.slots.length;
    this.count--;
    return value;
  }

  clear(): void {
    this.slots = new Array<T | undefined>(this.slots.length);
    this.head = 0;
    this.count = 0;
  }

  private grow(): void {
    const next = new Array<T | undefined>(this.slots.length * 2);
    for (let i = 0; i < this.count; i++) next[i] = this.slots[(this.head + i) % this.slots.length];
    this.slots = next;
    this.head = 0;
  }
}
