import type { ApiClient } from '../api/http.js';
import type { Clock } from '../clock.js';
import type { Asking } from '../output/ask.js';
import type { OutputFormat } from '../output/format.js';
import type { SpinnerHost } from '../output/spinner.js';

// What a send (and its report) needs from the command that runs it: the streams and the output
// format, the environment, the clock and the Ctrl-C signal, the API client, questions, and the lines of --debug and
// warnings. The command's Context is one as it is; src/send/ never sees the rest of it (settings,
// profiles, stdin claims), so that the pipeline stands below the commands.
export interface SendContext extends Asking, SpinnerHost {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly clock: Clock;
  /** Aborted on Ctrl-C. */
  readonly signal: AbortSignal;
  readonly globals: {
    readonly output: OutputFormat;
    readonly fields?: readonly string[] | undefined;
    readonly yes?: boolean | undefined;
    /** Carried into the commands a send suggests next. */
    readonly profile?: string | undefined;
    readonly baseUrl?: string | undefined;
  };
  api(): Promise<ApiClient>;
  /** One line of --debug trace on stderr (nothing without --debug). */
  debug(line: string): void;
  /** A warning on stderr. */
  warn(message: string): void;
}
