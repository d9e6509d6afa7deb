import type { Context } from '../../context.js';
import { CliError, ExitCode, UsageError } from '../../errors.js';
import { runReport } from '../../send/report/run.js';
import type { InputFor } from '../spec.js';
import type { sendCommands } from './index.js';

// `svc send report`: a thin shell over the report pipeline (src/send/report/run.ts). It reads and
// checks the options, runs the report, and turns what it could not finish into the exit code: a
// deadline (--timeout, or --watch's default) that came first is exit 5, as every wait of the
// contract; statuses a report without --watch could not read make it incomplete, exit 1 (the
// contract's code for a failed request). The report itself is on stdout either way.

export async function run(input: InputFor<typeof sendCommands, 'send report'>, ctx: Context): Promise<number> {
  const paths = input.strings('journal');
  if (paths.length === 0) throw new UsageError('give at least one --journal FILE (the journals of svc send, one per shard)');
  const watch = input.flag('watch');
  const timeoutS = input.number('timeout', '--timeout', { min: 0 });
  const failedTo = input.string('failedTo');
  const toFile = input.string('toFile');
  const excludeFile = input.string('excludeFile');

  const { notFinal, unread, messages } = await runReport({ journals: paths, watch, timeoutS, failedTo, toFile, excludeFile }, ctx);
  const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;
  if (notFinal !== undefined) {
    if (watch) throw new CliError(`--watch timed out: ${plural(notFinal, 'message')} not yet delivered or failed`, ExitCode.Timeout);
    throw new CliError(`--timeout ${timeoutS ?? ''} s ran out: the status of ${notFinal} of ${plural(messages, 'message')} not read (the report above is incomplete)`, ExitCode.Timeout);
  }
  if (!watch && unread > 0) {
    throw new CliError(`the status of ${unread} of ${plural(messages, 'message')} could not be read (network or server errors): the report above is incomplete; run it again, or with --watch`, ExitCode.Failure);
  }
  return ExitCode.Ok;
}
