// A binary min-heap of items keyed by due time, so that the dispatcher needs one timer (on the
// earliest due time) however many retries are waiting. Ties keep insertion order, so that
// events due at the same moment go out first-come first-served.

interface Entry<T> {
  dueAt: number;
  seq: number;
  item: T;
}

export class DueQueue<T> {
  private readonly heap: Entry<T>[] = [];
  private nextSeq = 0;

  get size(): number {
    return this.heap.length;
  }

  push(dueAt: number, item: T): void {
    this.heap.push({ dueAt, seq: this.nextSeq++, item });
    this.siftUp(this.heap.length - 1);
  }

  /** The earliest due time, or undefined when empty. */
  peekDueAt(): number | undefined {
    return this.heap[0]?.dueAt;
  }

  /** Removes and returns every item due at or before `now`, earliest first. */
  popDue(now: number): T[] {
    const due: T[] = [];
    while (this.heap.length > 0 && this.heap[0]!.dueAt <= now) due.push(this.popTop());
    return due;
  }

  /** Every item, in no particular order (for snapshots). */
  items(): T[] {
    return this.heap.map((e) => e.item);
  }

  clear(): void {
    this.heap.length = 0;
  }

  private popTop(): T {
    const top = this.heap[0]!;
    const last = this.heap.pop()!;
    if (this.heap.length > 0) {
      this.heap[0] = last;
      this.siftDown(0);
    }
    return top.item;
  }

  private before(a: Entry<T>, b: Entry<T>): boolean {
    return a.dueAt < b.dueAt || (a.dueAt === b.dueAt && a.seq < b.seq);
  }

  private siftUp(index: number): void {
    const heap = this.heap;
    let i = index;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  private siftDown(index: number): void {
    const heap = this.heap;
    let i = index;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < heap.length && this.before(heap[left]!, heap[smallest]!)) smallest = left;
      if (right < heap.length && this.before(heap[right]!, heap[smallest]!)) smallest = right;
      if (smallest === i) return;
      [heap[i], heap[smallest]] = [heap[smallest]!, heap[i]!];
      i = smallest;
    }
  }
}
