// One ticking scheduler for every sandbox delay (order progress, message steps): a min-heap of
// due tasks behind a single timer, so that thousands of in-flight messages cost one setTimeout,
// not one per message per step. Tasks due within the same couple of milliseconds run in one tick.

interface Task<S = unknown> {
  due: number;
  seq: number;
  run: (subject: S) => void;
  subject: S;
}

const COALESCE_MS = 2;
// setTimeout fires at once for anything longer (and warns); tick() then simply re-arms for the rest.
const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

export class TickScheduler {
  private readonly heap: Task[] = [];
  private timer: NodeJS.Timeout | undefined;
  private armedFor = Number.POSITIVE_INFINITY;
  private seq = 0;
  private closed = false;

  constructor(
    private readonly onError: (error: unknown) => void = () => {},
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.heap.length;
  }

  /** Runs `run(subject)` at wall-clock time `due` (ms since the epoch), or soon after. */
  at<S>(due: number, run: (subject: S) => void, subject: S): void {
    if (this.closed) return;
    this.push({ due, seq: this.seq++, run: run as (s: unknown) => void, subject });
    if (due < this.armedFor) this.arm();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.heap.length = 0;
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const next = this.heap[0];
    if (!next || this.closed) {
      this.armedFor = Number.POSITIVE_INFINITY;
      return;
    }
    this.armedFor = next.due;
    this.timer = setTimeout(() => this.tick(), Math.min(MAX_TIMER_DELAY_MS, Math.max(0, next.due - this.now())));
  }

  private tick(): void {
    this.timer = undefined;
    this.armedFor = Number.POSITIVE_INFINITY;
    const limit = this.now() + COALESCE_MS;
    while (!this.closed && this.heap.length > 0 && (this.heap[0] as Task).due <= limit) {
      const task = this.pop();
      try {
        task.run(task.subject);
      } catch (error) {
        this.onError(error);
      }
    }
    this.arm();
  }

  private less(a: Task, b: Task): boolean {
    return a.due < b.due || (a.due === b.due && a.seq < b.seq);
  }

  private push(task: Task): void {
    const heap = this.heap;
    heap.push(task);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(heap[i] as Task, heap[parent] as Task)) break;
      [heap[i], heap[parent]] = [heap[parent] as Task, heap[i] as Task];
      i = parent;
    }
  }

  private pop(): Task {
    const heap = this.heap;
    const top = heap[0] as Task;
    const last = heap.pop() as Task;
    if (heap.length > 0) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let smallest = i;
        if (left < heap.length && this.less(heap[left] as Task, heap[smallest] as Task)) smallest = left;
        if (right < heap.length && this.less(heap[right] as Task, heap[smallest] as Task)) smallest = right;
        if (smallest === i) break;
        [heap[i], heap[smallest]] = [heap[smallest] as Task, heap[i] as Task];
        i = smallest;
      }
    }
    return top;
  }
}
