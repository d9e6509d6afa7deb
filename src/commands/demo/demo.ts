import type { Context } from '../../context.js';
import { ReportedInterruption, runTour } from '../../demo/tour.js';
import { ExitCode, UsageError } from '../../errors.js';
import type { InputFor } from '../spec.js';
import type { demoCommands } from './index.js';
import { exchangeLogObserver } from '../sandbox/exchange-log.js';
import { terminalPalette } from '../../output/palette.js';

export async function run(input: InputFor<typeof demoCommands, 'demo'>, ctx: Context): Promise<number> {
  if (ctx.globals.output !== 'table') throw new UsageError('svc demo prints a transcript for people; it has no --json or -o output');
  const timeScale = input.number('timeScale', '--time-scale', { min: 0.1, max: 1000 }) ?? 1;
  // A log that cannot be written ends the command with exit 1 once the tour is over (it is short):
  // the failure is kept, not thrown inside the sandbox's answer to a request.
  let logFailure: Error | undefined;
  const observe = exchangeLogObserver(ctx.env, 'The tour ran to its end; the exchanges after this one are not in the log.', (error) => (logFailure = error));
  // The tour is a transcript for a person, on stdout: the commands' output and the webhooks are what it shows.
  try {
    const { main } = await import('../../cli.js');
    await runTour({
      runCommand: main,
      out: ctx.io.stdout,
      isTTY: ctx.io.stdoutIsTTY,
      columns: ctx.io.columns,
      color: ctx.io.colorStdout,
      palette: await terminalPalette(ctx.io.colorStdout),
      signal: ctx.signal,
      timeScale,
      // Test-only, as for `svc sandbox start` (docs/sandbox.md, "The OpenAPI document").
      ...(observe !== undefined ? { observe } : {}),
    });
  } catch (error) {
    // The tour's own failure is the outcome; the log's is still said.
    if (logFailure !== undefined) ctx.warn(logFailure.message);
    // Said once, by the interrupted step's command, not again here.
    if (error instanceof ReportedInterruption) return ExitCode.Interrupted;
    throw error;
  }
  if (logFailure !== undefined) throw logFailure;
  return 0;
}
