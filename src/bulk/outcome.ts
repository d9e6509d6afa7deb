import { CliError, describeError, exitCodeFor, InterruptedError, NetworkError, type ExitCodeValue } from '../errors.js';
import type { JournalOutcome } from '../send/journal.js';

// What a failed send means for the recipients: `rejected` when the server answered with an error
// (nothing was sent) or the request never left this machine; `unknown` when it may have reached
// the server and no verdict came back (timeout, reset, an unreadable success answer, Ctrl-C
// between attempts), so the service may have sent it.

export interface SendFailure {
  outcome: Exclude<JournalOutcome, 'accepted'>;
  error: { status: number | null; message: string; title: string | null; errorCode: string | null };
  exitCode: ExitCodeValue;
}

export function classifyFailure(error: unknown): SendFailure {
  const described = describeError(error);
  const shown = { status: described.status, message: described.message, title: described.title, errorCode: described.errorCode };
  let outcome: SendFailure['outcome'] = 'unknown';
  if (error instanceof NetworkError) outcome = error.sent ? 'unknown' : 'rejected';
  else if (error instanceof InterruptedError) outcome = 'unknown';
  else if (error instanceof CliError && error.status !== null && error.status >= 400) outcome = 'rejected';
  return { outcome, error: shown, exitCode: exitCodeFor(error) };
}
