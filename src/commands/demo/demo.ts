import type { Context } from '../../context.js';
import { ReportedInterruption, runTour } from '../../demo/tour.js';
import { ExitCode, UsageError } from '../../errors.js';
import type { InputFor } from '../spec.js';
import type { demoCommands } from './index.js';
import { EXCHANGE_LOG_ENV, exchangeLogWriter } from '../../sandbox/exchange-log.js';
import { terminalPalette } from '../../output/palette.js';

export async function run(input: InputFor<typeof demoCommands, 'demo'>, ctx: Context): Promise<number> {
  if (ctx.globals.output !== 'table') throw new UsageError('svc demo prints a transcript for people; it has no --json or -o output');
  const timeScale = input.number('timeScale', '--time-scale', { min: 0.1, max: 1000 }) ?? 1;
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
      ...(ctx.env[EXCHANGE_LOG_ENV] ? { observe: exchangeLogWriter(ctx.env[EXCHANGE_LOG_ENV]) } : {}),
    });
  } catch (error) {
    // Said once, by the interrupted step's command, not again here.
    if (error instanceof ReportedInterruption) return ExitCode.Interrupted;
    throw error;
  }
  return 0;
}
