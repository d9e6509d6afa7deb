import type { InputFor } from '../spec.js';
import type { sendCommands } from './index.js';
import type { Context } from '../../context.js';
import { CliError, ExitCode, stopExitCode } from '../../errors.js';
import { sendPipeline, type SendResult } from '../../send/pipeline.js';
import { checkSendFields } from '../../send/results.js';
import { askSendInputs, fromNumberHints } from './shared/ask-send-inputs.js';
import { sendRequestOf } from './shared/send-request.js';

// `svc send`: a thin shell over the send pipeline (src/send/pipeline.ts). It checks --fields,
// asks on a terminal for what is missing, reads the command line into the pipeline's request,
// runs the pipeline, and maps its outcome to an exit code.

export async function run(given: InputFor<typeof sendCommands, 'send'>, ctx: Context): Promise<number> {
  // A misspelt --fields is exit 2 before any question or request (a dry run checks its own document).
  if (!given.flag('dryRun')) checkSendFields(ctx.globals.fields);
  const input = await askSendInputs(given, ctx);
  const result = await sendPipeline(sendRequestOf(input, ctx), ctx);
  return result.dryRun ? ExitCode.Ok : exitCodeOf(result, ctx);
}

function exitCodeOf(result: Extract<SendResult, { dryRun: false }>, ctx: Context): number {
  const { summary, recipientsAccepted, recipientsFailed } = result;
  const failed = summary.rejected + summary.unknown;
  if (summary.interrupted) return stopExitCode(ctx.signal);
  // The summary said why it stopped and how to resume: the service is down, not the recipients.
  if (summary.unreachable !== undefined) return ExitCode.Failure;
  if (failed === 0 && recipientsFailed.length > 0) {
    // Accepted requests whose answer says some recipients failed: they are journaled as accepted
    // (sending again could reach the others twice), but the exit code tells the truth.
    const shown = recipientsFailed.slice(0, 5).join(', ') + (recipientsFailed.length > 5 ? `, and ${recipientsFailed.length - 5} more` : '');
    if (recipientsFailed.length < recipientsAccepted) {
      ctx.warn(`the service reports ${recipientsFailed.length} of ${recipientsAccepted} recipients failed: ${shown}`);
      return ExitCode.Partial;
    }
    throw new CliError(`The service accepted the send but reports every recipient failed: ${shown}`, ExitCode.Failure);
  }
  if (failed === 0) return ExitCode.Ok;
  if (summary.accepted > 0) return ExitCode.Partial;
  const first = summary.firstFailure!;
  const message = summary.requests === 1 ? first.error.message : `All ${summary.requests} requests failed; the first: ${first.error.message}`;
  throw new CliError(message, first.exitCode, {
    hints: fromNumberHints(result.from, first.error),
    status: first.error.status,
    ...(first.error.title !== null ? { title: first.error.title } : {}),
    ...(first.error.errorCode !== null ? { errorCode: first.error.errorCode } : {}),
  });
}
