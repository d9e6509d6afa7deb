import type { ExcludeList } from './exclude.js';
import { inShard, type Shard } from './shard.js';

// Which recipients of the file this run sends to: not on the suppression list, and in its shard.
// Counted, so that the summary and the dry run can say how many were left out and why.

export class RecipientFilter {
  excluded = 0;
  otherShards = 0;

  constructor(
    private readonly exclude: ExcludeList | undefined,
    private readonly shard: Shard | undefined,
  ) {}

  get active(): boolean {
    return this.exclude !== undefined || (this.shard !== undefined && this.shard.n > 1);
  }

  /** True when `to` is to be sent to by this run. */
  admits(to: string): boolean {
    if (this.shard !== undefined && !inShard(to, this.shard)) {
      this.otherShards++;
      return false;
    }
    if (this.exclude?.has(to)) {
      this.excluded++;
      return false;
    }
    return true;
  }
}
