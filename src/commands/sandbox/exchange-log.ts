import type { CliError } from '../../errors.js';
import { cannotCreate, cannotWrite } from '../../input/file-errors.js';
import { EXCHANGE_LOG_ENV, exchangeLogWriter, openExchangeLog } from '../../sandbox/exchange-log.js';
import type { HttpExchange } from '../../sandbox/observe.js';

// The test-only exchange log (SVC_SANDBOX_EXCHANGE_LOG, docs/sandbox.md) of `svc sandbox start`
// and `svc demo`, under the file rule for writes: a log that cannot be created is refused before
// the sandbox listens (exit 2, as a bad flag value), and the first write that fails later becomes
// a failure naming the file (exit 1) that the command ends with.

/** How the file is named in messages: by the variable that asked for it. */
const WHAT = `the exchange log (${EXCHANGE_LOG_ENV})`;

/**
 * The observer for the sandbox when the environment asks for a log, else undefined. `hint` says
 * what the command does on a failed write; `onFailure` hears of it once.
 */
export function exchangeLogObserver(
  env: Readonly<Record<string, string | undefined>>,
  hint: string,
  onFailure: (error: CliError) => void,
): ((exchange: HttpExchange) => void) | undefined {
  const file = env[EXCHANGE_LOG_ENV] || undefined;
  if (file === undefined) return undefined;
  try {
    openExchangeLog(file);
  } catch (error) {
    throw cannotCreate(WHAT, file, error);
  }
  return exchangeLogWriter(file, (error) => onFailure(cannotWrite(WHAT, file, error, [hint])));
}
