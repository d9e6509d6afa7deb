import type { CommandInput } from '../../spec.js';
import { UsageError } from '../../../errors.js';
import type { PaceOptions } from '../../../send/pace/options.js';
import { parseShard } from '../../../send/pace/shard.js';
import { checkTimeZone, parseWindow, WindowSchedule } from '../../../send/pace/window.js';

// The pace flags of `svc send` read from the command line: --rate,
// --max-stall, --window with --tz, --exclude-file and --shard, each value checked (exit 2 naming
// it). Whether they go with the send (a bulk send) is the plan's check (src/send/pace/options.ts).

export const MAX_RATE = 100_000;

export function readPaceOptions(input: CommandInput<'rate' | 'maxStall' | 'window' | 'tz' | 'shard' | 'excludeFile'>): PaceOptions {
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
  return { rate, maxStall, window, shard, excludeFile: input.string('excludeFile') };
}
