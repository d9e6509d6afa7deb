import type { CommandInput } from '../../commands/spec.js';
import type { InputSource } from '../input-source.js';
import { UsageError } from '../../errors.js';
import { readExcludeFile, type ExcludeList } from './exclude.js';
import { parseShard, type Shard } from './shard.js';
import { DEFAULT_MAX_STALL_SECONDS } from './stall.js';
import { checkTimeZone, parseWindow, WindowSchedule } from './window.js';

// The pace flags of `svc send` (cli-contract.md): --rate, --max-stall, --window with --tz,
// --exclude-file and --shard, all checked before anything is sent (exit 2 naming the value).

export interface PaceFlags {
  /** --rate: messages per second. */
  rate: number | undefined;
  maxStallMs: number;
  window: WindowSchedule | undefined;
  exclude: { path: string; list: ExcludeList; identity: InputSource['identity'] } | undefined;
  shard: Shard | undefined;
}

export const MAX_RATE = 100_000;

/**
 * `open` opens an input file the way --to-file is opened (a pipe, `-`, limits, refusals), so
 * that --exclude-file is read once, bounded, like every other input.
 */
export async function readPaceFlags(
  input: CommandInput<'rate' | 'maxStall' | 'window' | 'tz' | 'shard' | 'excludeFile'>, bulk: boolean, open: (path: string) => Promise<InputSource>): Promise<PaceFlags> {
  const rate = input.number('rate', '--rate', { min: 0.01, max: MAX_RATE });
  const maxStall = input.number('maxStall', '--max-stall', { min: 1, max: 7 * 86_400, integer: true });
  const windowText = input.string('window');
  const tz = input.string('tz');
  if (windowText === undefined && tz !== undefined) {
    checkTimeZone(tz);
    throw new UsageError('--tz goes with --window HH:MM-HH:MM: the hours it is the time zone of');
  }
  const window = windowText !== undefined ? new WindowSchedule(parseWindow(windowText, tz)) : undefined;
  const shardText = input.string('shard');
  const shard = shardText !== undefined ? parseShard(shardText) : undefined;
  const excludePath = input.string('excludeFile');
  if (!bulk) {
    const given = [
      rate !== undefined ? '--rate' : undefined,
      maxStall !== undefined ? '--max-stall' : undefined,
      window !== undefined ? '--window' : undefined,
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
  return { rate, maxStallMs: (maxStall ?? DEFAULT_MAX_STALL_SECONDS) * 1000, window, exclude, shard };
}
