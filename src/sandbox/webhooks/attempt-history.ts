import type { DeliveryAttempt } from './types.js';

/** The attempts kept for deliveries(), in a ring buffer, so that a long run costs a fixed amount of memory. */
export class AttemptHistory {
  private readonly slots: DeliveryAttempt[] = [];
  private start = 0;

  constructor(private readonly limit: number) {}

  add(attempt: DeliveryAttempt): void {
    if (this.slots.length < this.limit) {
      this.slots.push(attempt);
      return;
    }
    this.slots[this.start] = attempt;
    this.start = (this.start + 1) % this.limit;
  }

  /** Copies, oldest first. */
  list(): DeliveryAttempt[] {
    return [...this.slots.slice(this.start), ...this.slots.slice(0, this.start)].map((a) => ({ ...a }));
  }

  replace(attempts: readonly DeliveryAttempt[]): void {
    this.slots.length = 0;
    this.start = 0;
    for (const attempt of attempts.slice(-this.limit)) this.slots.push({ ...attempt });
  }
}
