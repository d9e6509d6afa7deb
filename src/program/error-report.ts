// The one place where an error becomes a message and an exit code (commander's own signals too).

import { describeError, ExitCode } from '../errors.js';
import { writeExact, type IOStreams } from '../output/io.js';
import { sgr } from '../output/terminal.js';

/** Commander signals help, version and parse errors by throwing; turn them into exit codes. */
export function commanderExit(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error) || !('exitCode' in error)) return undefined;
  const code = (error as { code: unknown }).code;
  if (typeof code !== 'string' || !code.startsWith('commander.')) return undefined;
  if (code === 'commander.helpDisplayed' || code === 'commander.version') return ExitCode.Ok;
  // `svc help` asked for help (exit code 0); a bare `svc` or `svc tenant` lacked a command (1).
  if (code === 'commander.help') return (error as { exitCode: unknown }).exitCode === 0 ? ExitCode.Ok : ExitCode.Usage;
  return ExitCode.Usage;
}

export function reportError(io: IOStreams, error: unknown, json: boolean): void {
  const described = describeError(error);
  if (json) {
    const body = {
      error: {
        status: described.status,
        message: described.message,
        title: described.title,
        errorCode: described.errorCode,
        // What to do next is part of the error in JSON too (one string, a line per hint).
        ...(described.hints.length > 0 ? { hint: described.hints.join('\n') } : {}),
      },
    };
    writeExact(io.stderr, `${JSON.stringify(body)}\n`);
    return;
  }
  // The message is made terminal-safe at the output boundary; the colour is svc's own (sgr).
  io.stderr.write(`${io.colorStderr ? sgr(31, 39, 'error:') : 'error:'} ${described.message}\n`);
  for (const hint of described.hints) io.stderr.write(`  ${hint}\n`);
}
