import type { OptOutLookup } from '../../optouts/list.js';
import type { ExcludeList } from './exclude.js';
import type { RecipientWindows } from './recipient-window.js';
import { inShard, type Shard } from './shard.js';

// Which recipients this run sends to: in its shard, not already accepted (--resume), not opted
// out of the sending number (the opt-out list kept beside the event store, read afresh by every
// run, a resumed one too), not on the suppression list, and not of unknown outcome when --unknown
// skip says so. Counted by reason,
// so that the summary, the dry run and the progress line can say how many were left out and why
// (the same rules for --to and --to-file).

/** Why --resume leaves a recipient out: the journal shows it accepted, or of unknown outcome with --unknown skip. */
export type SkipReason = 'accepted' | 'unknown';

/** What --resume leaves out (undefined: the recipient is sent to, as far as the journal goes). */
export type SkipRecipient = (to: string) => SkipReason | undefined;

const NO_FIELDS: Readonly<Record<string, string>> = Object.freeze({});
/** How many recipients of unknown zone a run names. */
const ZONE_UNKNOWN_NAMED = 20;

export class RecipientFilter {
  /** Recipients of the other shards (--shard). */
  otherShards = 0;
  /** Recipients the journal shows as accepted: already sent, never again (--resume). */
  accepted = 0;
  /** Recipients on the --exclude-file list (not already accepted). */
  excluded = 0;
  /** Recipients of unknown outcome left out by --unknown skip (not excluded). */
  unknownSkipped = 0;
  /** Recipients who opted out of the sending number (not already accepted). */
  optedOut = 0;
  /** Recipients held back because their time zone cannot be told (per-recipient --window). */
  zoneUnknown = 0;
  /** The first of them, to be named. */
  readonly zoneUnknownNumbers: string[] = [];
  private readonly optOuts: OptOutLookup | undefined;

  constructor(
    private readonly exclude: ExcludeList | undefined,
    private readonly shard: Shard | undefined,
    private readonly skip: SkipRecipient | undefined = undefined,
    optOuts: OptOutLookup | undefined = undefined,
    private readonly windows: RecipientWindows | undefined = undefined,
  ) {
    // An empty list leaves nobody out: the bulk path then asks nothing per recipient.
    this.optOuts = optOuts !== undefined && optOuts.size > 0 ? optOuts : undefined;
  }

  get active(): boolean {
    return (
      this.exclude !== undefined || (this.shard !== undefined && this.shard.n > 1) || this.skip !== undefined || this.optOuts !== undefined || this.windows !== undefined
    );
  }

  /** Left out by the journal: already accepted, or of unknown outcome by choice. */
  get skipped(): number {
    return this.accepted + this.unknownSkipped;
  }

  /** Admitted (sent to by this run), of all it was asked about. */
  admittedCount = 0;

  /** Left out for any reason. */
  get leftOut(): number {
    return this.otherShards + this.accepted + this.optedOut + this.excluded + this.unknownSkipped + this.zoneUnknown;
  }

  /**
   * True when `to` is to be sent to by this run. A recipient already accepted counts as such
   * even when it is on the list now (it was sent to before the list had it); one of unknown
   * outcome that is on the list counts as excluded (it is not sent to, whatever --unknown says).
   * Someone both opted out and on --exclude-file counts as opted out: their own request is the
   * reason that binds.
   */
  admits(to: string, fields: Readonly<Record<string, string>> = NO_FIELDS): boolean {
    if (this.shard !== undefined && !inShard(to, this.shard)) {
      this.otherShards++;
      return false;
    }
    const reason = this.skip?.(to);
    if (reason === 'accepted') {
      this.accepted++;
      return false;
    }
    if (this.optOuts?.has(to)) {
      this.optedOut++;
      return false;
    }
    if (this.exclude?.has(to)) {
      this.excluded++;
      return false;
    }
    if (reason === 'unknown') {
      this.unknownSkipped++;
      return false;
    }
    // Never sent by guess outside a window: a recipient whose zone cannot be told is held back.
    if (this.windows !== undefined && this.windows.groupOf(to, fields) === undefined) {
      this.zoneUnknown++;
      if (this.zoneUnknownNumbers.length < ZONE_UNKNOWN_NAMED) this.zoneUnknownNumbers.push(to);
      return false;
    }
    this.admittedCount++;
    return true;
  }
}
