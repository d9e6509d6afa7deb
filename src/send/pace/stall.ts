// The run gives up on throttling only when it stops making progress (docs/decisions.md#retries: nothing
// accepted for --max-stall seconds, default 600): a service that lets a trickle through is slow,
// not failing, and a campaign should finish. Time spent outside the send window is not a stall.

export const DEFAULT_MAX_STALL_SECONDS = 600;

export class StallWatch {
  private lastProgress: number;

  constructor(
    readonly maxStallMs: number,
    now: number,
  ) {
    this.lastProgress = now;
  }

  /** An acceptance (or the window opening): the stall clock starts again. */
  progress(now: number): void {
    this.lastProgress = now;
  }

  /** The instant the run gives up unless something is accepted before. */
  deadline(): number {
    return this.lastProgress + this.maxStallMs;
  }

  stalled(now: number): boolean {
    return now >= this.deadline();
  }
}
