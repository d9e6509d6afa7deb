import type { Writable } from 'node:stream';
import type { ContextDeps } from './context.js';
import { ExitCode, InterruptedError } from './errors.js';
import { VERSION } from './version.js';

// The entry point. main(argv) parses, runs one command and returns its exit code; it never calls
// process.exit, so tests run it in-process with injected streams. Only `svc --version` is
// answered here: everything else loads the program (src/program.ts), so that the version costs
// no more than a bare start of node.

export interface MainDeps extends Omit<ContextDeps, 'io'> {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: Writable & { isTTY?: boolean; columns?: number };
  stderr: Writable & { isTTY?: boolean };
  /** Overrides TTY detection (tests). */
  tty?: { stdin?: boolean; stdout?: boolean; stderr?: boolean; columns?: number };
}

export async function main(argv: readonly string[], deps?: MainDeps): Promise<number> {
  const resolved = deps ?? processDeps();
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    resolved.stdout.write(`${VERSION}\n`);
    return ExitCode.Ok;
  }
  const { runMain } = await import('./program.js');
  return runMain(argv, resolved);
}

function processDeps(): MainDeps {
  return { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env };
}

/** Runs main for the real process: Ctrl-C aborts the command (130), a second one exits at once. */
export async function runProcess(argv: readonly string[]): Promise<number> {
  const controller = new AbortController();
  let interrupts = 0;
  const onSigint = (): void => {
    interrupts++;
    if (interrupts > 1) process.exit(ExitCode.Interrupted);
    controller.abort(new InterruptedError());
  };
  process.on('SIGINT', onSigint);
  // A reader that went away (`svc number list --all | head`) ends the program quietly, as a
  // closed pipe ends any Unix tool, instead of crashing on EPIPE.
  const onBrokenPipe = (error: NodeJS.ErrnoException): void => {
    if (error.code === 'EPIPE') process.exit(ExitCode.Ok);
  };
  process.stdout.on('error', onBrokenPipe);
  process.stderr.on('error', onBrokenPipe);
  try {
    const code = await main(argv, { ...processDeps(), signal: controller.signal });
    return controller.signal.aborted && code !== ExitCode.Ok ? ExitCode.Interrupted : code;
  } finally {
    process.off('SIGINT', onSigint);
  }
}
