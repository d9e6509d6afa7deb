// Which deliveries the listener has seen: acknowledged ones (a retry is answered 200 again and
// neither stored nor relayed twice), stored ones, and the ones still being handled (a retry that
// arrives meanwhile waits for the outcome).

import { SeenDeliveries } from './seen-deliveries.js';

export class Deliveries {
  private readonly acknowledged: SeenDeliveries;
  /** With a relay, an event can be stored but not acknowledged (the app refused it): its retry is relayed again but not stored twice. */
  private readonly stored: SeenDeliveries;
  private readonly handling = new Map<string, Claim>();

  constructor(capacity: number, relaying: boolean, storedIds: readonly string[]) {
    this.acknowledged = new SeenDeliveries(capacity);
    this.stored = relaying ? new SeenDeliveries(capacity) : this.acknowledged;
    for (const id of storedIds) this.stored.add(id.startsWith('sha256:') ? id : `delivery:${id}`);
  }

  isAcknowledged(key: string): boolean {
    return this.acknowledged.has(key);
  }

  markAcknowledged(key: string): void {
    this.acknowledged.add(key);
  }

  isStored(key: string): boolean {
    return this.stored.has(key);
  }

  markStored(key: string): void {
    this.stored.add(key);
  }

  /**
   * The handling of an earlier delivery of the key still under way, if any. The caller awaits it
   * in a loop and then, with no await in between, decides and claims the key: checking and
   * claiming a key in one synchronous step is what keeps two deliveries from both storing it.
   */
  pending(key: string): Promise<void> | undefined {
    const claim = this.handling.get(key);
    if (claim === undefined) return undefined;
    // Made only when a retry waits (rare), not for every delivery.
    claim.waiting ??= new Promise<void>((resolve) => (claim.release = resolve));
    return claim.waiting;
  }

  /** Holds back the retries of a key's delivery until `release` (claims the key at once, synchronously). */
  claim(key: string): Claim {
    const claim: Claim = { key };
    this.handling.set(key, claim);
    return claim;
  }

  release(claim: Claim): void {
    if (this.handling.get(claim.key) === claim) this.handling.delete(claim.key);
    claim.release?.();
  }
}

/** A delivery being handled: what its retries wait on. */
export interface Claim {
  readonly key: string;
  waiting?: Promise<void>;
  release?: () => void;
}
