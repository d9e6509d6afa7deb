// When each event is attempted: events due later wait in one heap behind one timer on the
// earliest due time; due events line up in the ready list, from which the dispatcher takes as
// many as its concurrency allows. Thousands of waiting retries cost memory, not timers.

import { DueQueue } from './due-queue.js';
import { move, type DeliveryRecord } from './delivery-record.js';

// setTimeout fires at once for anything longer; onTimer() then re-arms for the rest.
const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

export class DeliverySchedule {
  private readonly waiting = new DueQueue<DeliveryRecord>();
  private readonly ready: DeliveryRecord[] = [];
  private readyHead = 0;
  private timer: NodeJS.Timeout | undefined;
  private timerDueAt = Infinity;
  private pumpScheduled = false;
  private closed = false;

  /** `onReady` runs when events became ready: at once from the timer, deferred after add(). */
  constructor(
    private readonly now: () => number,
    private readonly onReady: () => void,
  ) {}

  get readyCount(): number {
    return this.ready.length - this.readyHead;
  }

  /** A waiting record (new, restored or to be retried): ready now if due, else on the timer. */
  add(record: DeliveryRecord): void {
    if (record.nextAttemptAtMs <= this.now()) {
      this.makeReady(record);
      this.schedulePump();
    } else {
      this.waiting.push(record.nextAttemptAtMs, record);
      this.armTimer();
    }
  }

  /** A record back in line at once, without waking anyone (an attempt cut short by close()). */
  putBack(record: DeliveryRecord): void {
    this.ready.push(record);
  }

  /** The next ready record, or undefined. */
  take(): DeliveryRecord | undefined {
    if (this.readyCount === 0) return undefined;
    const record = this.ready[this.readyHead]!;
    this.readyHead += 1;
    // Reclaim the consumed head of the ready list now and then instead of shifting every time.
    if (this.readyHead > 1024 && this.readyHead * 2 > this.ready.length) {
      this.ready.splice(0, this.readyHead);
      this.readyHead = 0;
    }
    return record;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private makeReady(record: DeliveryRecord): void {
    move(record, 'due');
    this.ready.push(record);
  }

  private schedulePump(): void {
    if (this.pumpScheduled || this.closed) return;
    this.pumpScheduled = true;
    // One deferred wake-up per burst of dispatches, so that dispatch() returns before any I/O.
    setImmediate(() => {
      this.pumpScheduled = false;
      this.onReady();
    });
  }

  private armTimer(): void {
    if (this.closed) return;
    const earliest = this.waiting.peekDueAt();
    if (earliest === undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.timerDueAt = Infinity;
      return;
    }
    if (this.timer !== undefined && this.timerDueAt <= earliest) return;
    clearTimeout(this.timer);
    this.timerDueAt = earliest;
    this.timer = setTimeout(() => this.onTimer(), Math.min(MAX_TIMER_DELAY_MS, Math.max(0, earliest - this.now())));
  }

  private onTimer(): void {
    this.timer = undefined;
    this.timerDueAt = Infinity;
    const due = this.waiting.popDue(this.now());
    for (const record of due) this.makeReady(record);
    // A timer may fire a little before the clock agrees; armTimer() then simply waits again.
    this.armTimer();
    if (due.length > 0) this.onReady();
  }
}
