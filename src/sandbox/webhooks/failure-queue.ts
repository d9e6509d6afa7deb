// The failure queue: events that exhausted their retry window or were refused for good, kept
// until a replay takes one back. Callers get copies, so nothing outside changes what is kept.

import type { FailedEvent } from './types.js';

export class FailureQueue {
  private entries: FailedEvent[] = [];

  add(entry: FailedEvent): void {
    this.entries.push(entry);
  }

  /** Removes and returns the entry of this delivery, or undefined when there is none. */
  take(deliveryId: string): FailedEvent | undefined {
    const index = this.entries.findIndex((entry) => entry.deliveryId === deliveryId);
    return index < 0 ? undefined : this.entries.splice(index, 1)[0];
  }

  /** Copies, oldest first. */
  list(): FailedEvent[] {
    return this.entries.map((entry) => ({ ...entry }));
  }

  /** The queue as restored from saved state (copies of what is given). */
  replace(entries: readonly FailedEvent[]): void {
    this.entries = entries.map((entry) => ({ ...entry }));
  }
}
