import type { InputSource } from '../input-source.js';
import { UsageError } from '../../errors.js';
import { readExcludeFile, type ExcludeList } from './exclude.js';
import type { Shard } from './shard.js';
import { DEFAULT_MAX_STALL_SECONDS } from './stall.js';
import type { WindowHours, WindowSchedule } from './window.js';
import type { ZoneSource } from './recipient-window.js';

// The pace of a bulk send: --rate, --max-stall, --window with --tz,
// --exclude-file and --shard, all checked before anything is sent (exit 2 naming the value).
// The command parses the values (src/commands/send/shared/pace-flags.ts); the plan checks that they
// go with a bulk send and reads the exclusion list.

/** The pace a send was asked for, each value parsed and checked on its own. */
export interface PaceOptions {
  /** --rate: messages per second. */
  rate: number | undefined;
  /** --max-stall, in seconds. */
  maxStall: number | undefined;
  window: WindowSchedule | undefined;
  /** --window with --tz-column or --tz auto: the hours, in each recipient's own zone. */
  recipientWindow?: { hours: WindowHours; source: ZoneSource } | undefined;
  shard: Shard | undefined;
  /** --exclude-file, not yet read. */
  excludeFile: string | undefined;
}

export interface PaceFlags {
  /** --rate: messages per second. */
  rate: number | undefined;
  maxStallMs: number;
  window: WindowSchedule | undefined;
  recipientWindow: { hours: WindowHours; source: ZoneSource } | undefined;
  exclude: { path: string; list: ExcludeList; identity: InputSource['identity'] } | undefined;
  shard: Shard | undefined;
}

/**
 * `open` opens an input file the way --to-file is opened (a pipe, `-`, limits, refusals), so
 * that --exclude-file is read once, bounded, like every other input.
 */
export async function readPaceFlags(options: PaceOptions, bulk: boolean, open: (path: string) => Promise<InputSource>): Promise<PaceFlags> {
  const { rate, maxStall, window, shard, excludeFile: excludePath } = options;
  if (!bulk) {
    const given = [
      rate !== undefined ? '--rate' : undefined,
      maxStall !== undefined ? '--max-stall' : undefined,
      window !== undefined || options.recipientWindow !== undefined ? '--window' : undefined,
      shard !== undefined ? '--shard' : undefined,
    ].filter((flag): flag is string => flag !== undefined);
    if (given.length > 0) throw new UsageError(`${given.join(', ')} pace${given.length === 1 ? 's' : ''} a bulk send: it goes with --to-file, not --to`);
  }
  let exclude: PaceFlags['exclude'];
  if (excludePath !== undefined) {
    const source = await open(excludePath);
    try {
      exclude = { path: excludePath, list: await readExcludeFile(source), identity: source.identity };
    } finally {
      source.close();
    }
  }
  return { rate, maxStallMs: (maxStall ?? DEFAULT_MAX_STALL_SECONDS) * 1000, window, recipientWindow: options.recipientWindow, exclude, shard };
}
