import type { CommandInput } from '../../spec.js';
import { UsageError } from '../../../errors.js';
import type { PaceOptions } from '../../../send/pace/options.js';
import { parseShard } from '../../../send/pace/shard.js';
import { checkTimeZone, parseWindow, parseWindowHours, WindowSchedule } from '../../../send/pace/window.js';

// The pace flags of `svc send` read from the command line: --rate,
// --max-stall, --window with --tz, --exclude-file and --shard, each value checked (exit 2 naming
// it). Whether they go with the send (a bulk send) is the plan's check (src/send/pace/options.ts).

export const MAX_RATE = 100_000;

export function readPaceOptions(input: CommandInput<'rate' | 'maxStall' | 'window' | 'tz' | 'tzColumn' | 'shard' | 'excludeFile'>): PaceOptions {
  const rate = input.number('rate', '--rate', { min: 0.01, max: MAX_RATE });
  const maxStall = input.number('maxStall', '--max-stall', { min: 1, max: 7 * 86_400, integer: true });
  const windowText = input.string('window');
  const tz = input.string('tz');
  const tzColumn = input.string('tzColumn');
  const auto = tz !== undefined && tz.trim().toLowerCase() === 'auto';
  if (tz !== undefined && tzColumn !== undefined) {
    throw new UsageError(`--tz ${tz} and --tz-column ${tzColumn} both say where the hours of --window are read: give one`);
  }
  if (tzColumn !== undefined && tzColumn.trim() === '') throw new UsageError('--tz-column needs the name of a column of --to-file, not a blank');
  if (windowText === undefined && (tz !== undefined || tzColumn !== undefined)) {
    if (tz !== undefined && !auto) checkTimeZone(tz);
    throw new UsageError(`${tz !== undefined ? '--tz' : '--tz-column'} goes with --window HH:MM-HH:MM: the hours it is the time zone of`);
  }
  let window: WindowSchedule | undefined;
  let recipientWindow: PaceOptions['recipientWindow'];
  if (windowText !== undefined && (auto || tzColumn !== undefined)) {
    recipientWindow = { hours: parseWindowHours(windowText), source: auto ? { kind: 'auto' } : { kind: 'column', column: tzColumn!.trim() } };
  } else if (windowText !== undefined) {
    if (tz === undefined) {
      parseWindowHours(windowText);
      throw new UsageError('--window needs --tz ZONE (the time zone the hours are in, such as America/New_York), --tz auto (each recipient\'s own, from the number) or --tz-column NAME (each recipient\'s, from the file)');
    }
    window = new WindowSchedule(parseWindow(windowText, tz));
  }
  const shardText = input.string('shard');
  const shard = shardText !== undefined ? parseShard(shardText) : undefined;
  return { rate, maxStall, window, recipientWindow, shard, excludeFile: input.string('excludeFile') };
}
