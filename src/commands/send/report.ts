import type { Context } from '../../context.js';
import { CliError, ExitCode, UsageError } from '../../errors.js';
import { runReport } from '../../send/report/run.js';
import type { InputFor } from '../spec.js';
import type { sendReportCommands } from './report-spec.js';

// `svc send report`: a thin shell over the report pipeline (src/send/report/run.ts). It reads and
// checks the options, runs the report, and turns a --watch that timed out into the timeout exit code.

export async function run(input: InputFor<typeof sendReportCommands, 'send report'>, ctx: Context): Promise<number> {
  const paths = input.strings('journal');
  if (paths.length === 0) throw new UsageError('give at least one --journal FILE (the journals of svc send, one per shard)');
  if (new Set(paths).size !== paths.length) throw new UsageError('a --journal is given twice');
  const watch = input.flag('watch');
  const timeoutS = input.number('timeout', '--timeout', { min: 0 });
  if (timeoutS !== undefined && !watch) throw new UsageError('--timeout goes with --watch');
  const failedTo = input.string('failedTo');
  const toFile = input.string('toFile');
  const excludeFile = input.string('excludeFile');

  const { notFinal } = await runReport({ journals: paths, watch, timeoutS, failedTo, toFile, excludeFile }, ctx);
  if (notFinal !== undefined) {
    throw new CliError(`--watch timed out: ${notFinal} message${notFinal === 1 ? '' : 's'} not yet delivered or failed`, ExitCode.Timeout);
  }
  return ExitCode.Ok;
}
