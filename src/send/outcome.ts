import { CliError, describeError, exitCodeFor, InterruptedError, NetworkError, UnexpectedAnswerError, type ExitCodeValue } from '../errors.js';
import type { JournalOutcome } from './journal/format.js';

// What a failed send means for its recipients. Nobody is `accepted` without a 2xx answer holding
// a readable JSON object (sendMessage resolves on nothing else); this file sorts the failures:
//   - `rejected`: the server refused the request without acting on it (a 4xx), or the request
//     never left this machine (no connection, a refused certificate);
//   - `unknown`: the request may have been acted on and no verdict came back. That is a timeout
//     or reset after the request went out, Ctrl-C between attempts, a gateway's 502/504 (the
//     service behind it may have taken the request), and every UnexpectedAnswerError: a 2xx with
//     a body we cannot read, a 204, and also a 1xx or 3xx. A redirect to a POST is most often a
//     wrong base URL (nothing sent), but 303 is exactly how a server says "done, see there", and a
//     proxy or gateway may have forwarded the request before answering, so it is not proof that
//     nothing was sent: `--resume` asks before sending to those people again.
//
// Each rule is one entry of FAILURE_RULES, first match wins, so that a new kind of failure (429
// and 503 with Retry-After as `throttled`, say) is one more entry.

export interface SendFailure {
  outcome: Exclude<JournalOutcome, 'accepted'>;
  error: { status: number | null; message: string; title: string | null; errorCode: string | null };
  exitCode: ExitCodeValue;
}

type FailureOutcome = SendFailure['outcome'];

interface FailureRule {
  /** Why this rule exists, for the reader. */
  why: string;
  matches(error: unknown): boolean;
  outcome: FailureOutcome | ((error: unknown) => FailureOutcome);
}

/** Gateway answers: the service behind the gateway may have received the request. */
const GATEWAY_STATUSES = new Set([502, 504]);

export const FAILURE_RULES: FailureRule[] = [
  {
    why: 'an answer that is not what POST /messages promises may have been acted on',
    matches: (error) => error instanceof UnexpectedAnswerError,
    outcome: 'unknown',
  },
  {
    why: 'a connection failure is unknown once the request may have left, rejected before',
    matches: (error) => error instanceof NetworkError,
    outcome: (error) => ((error as NetworkError).sent ? 'unknown' : 'rejected'),
  },
  {
    why: 'Ctrl-C (or a signal) between attempts: an earlier attempt may have been acted on',
    matches: (error) => error instanceof InterruptedError,
    outcome: 'unknown',
  },
  {
    why: 'a gateway error: the service behind it may have taken the request',
    matches: (error) => error instanceof CliError && error.status !== null && GATEWAY_STATUSES.has(error.status),
    outcome: 'unknown',
  },
  {
    why: 'the server answered with an error status: it refused the request',
    matches: (error) => error instanceof CliError && error.status !== null && error.status >= 400,
    outcome: 'rejected',
  },
];

export function classifyFailure(error: unknown): SendFailure {
  const described = describeError(error);
  const shown = { status: described.status, message: described.message, title: described.title, errorCode: described.errorCode };
  const rule = FAILURE_RULES.find((r) => r.matches(error));
  // Anything no rule knows (a bug, a new error) is treated as possibly sent.
  const outcome = rule === undefined ? 'unknown' : typeof rule.outcome === 'function' ? rule.outcome(error) : rule.outcome;
  return { outcome, error: shown, exitCode: exitCodeFor(error) };
}
