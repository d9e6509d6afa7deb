// The concurrency bound of the dispatcher: at most `limit` events in an HTTP attempt at once,
// the next ready event started as soon as a slot frees up. close() aborts every request under
// way and waits for the attempts to end.

import type { AttemptResult } from './deliver.js';
import { move, type DeliveryRecord } from './delivery-record.js';
import type { InFlightPost } from './post-webhook.js';

export interface AttemptPoolParts {
  limit: number;
  /** The next ready event, or undefined when none is ready. */
  next: () => DeliveryRecord | undefined;
  /** One attempt at an event; `posts` sees each request while it is under way. */
  attempt: (record: DeliveryRecord, posts: Set<InFlightPost>) => Promise<AttemptResult>;
  /** What the result makes of the event, called once the event has left the in-flight set. */
  settle: (record: DeliveryRecord, result: AttemptResult) => void;
  /** After every attempt, settled or not. */
  afterAttempt: () => void;
}

export class AttemptPool {
  /** The events in an attempt, with the requests under way. */
  private readonly inFlight = new Map<DeliveryRecord, Set<InFlightPost>>();
  private readonly runs = new Set<Promise<void>>();
  private closed = false;

  constructor(private readonly parts: AttemptPoolParts) {}

  /** Starts ready events while there are free slots. */
  pump(): void {
    while (!this.closed && this.inFlight.size < this.parts.limit) {
      const record = this.parts.next();
      if (record === undefined) return;
      const run = this.run(record);
      this.runs.add(run);
      void run.finally(() => this.runs.delete(run));
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const posts of this.inFlight.values()) for (const post of posts) post.abort();
    await Promise.allSettled([...this.runs]);
  }

  private async run(record: DeliveryRecord): Promise<void> {
    move(record, 'start');
    const posts = new Set<InFlightPost>();
    this.inFlight.set(record, posts);
    try {
      const result = await this.parts.attempt(record, posts);
      // Out of the in-flight set before its state changes, so that a snapshot taken by the
      // change hook sees the event once, as it now is.
      this.inFlight.delete(record);
      this.parts.settle(record, result);
    } finally {
      this.inFlight.delete(record);
      if (!this.closed) this.pump();
      this.parts.afterAttempt();
    }
  }
}
