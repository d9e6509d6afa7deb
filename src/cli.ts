import type { Writable } from 'node:stream';
import type { ContextDeps } from './context.js';
import type { PrompterFactory } from './output/prompts.js';
import { ExitCode, InterruptedError, STOP_SIGNAL_EXIT, type StopSignal } from './errors.js';
import { VERSION } from './version.js';

// The entry point. main(argv) parses, runs one command and returns its exit code; it never calls
// process.exit, so tests run it in-process with injected streams. Only `svc --version` is
// answered here: everything else loads the program (src/program.ts), so that the version costs
// no more than a bare start of node.

export interface MainDeps extends Omit<ContextDeps, 'io'> {
  /** Standard input, or how to get it: the process's is created on first use (see processDeps). */
  stdin: (NodeJS.ReadableStream & { isTTY?: boolean }) | (() => NodeJS.ReadableStream & { isTTY?: boolean });
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
  return runMain(argv, { createPrompter: inquirerPrompter, ...resolved });
}

/** The interactive prompter (inquirer) for the Context that main builds; loaded on the first question only. */
const inquirerPrompter: PrompterFactory = async (io, signal) => (await import('./output/prompter.js')).createInquirerPrompter(io, signal);

function processDeps(): MainDeps {
  // process.stdin builds its stream when first read (a socket for a pipe, a file stream that loads
  // node:fs/promises for a file): most commands never read it, so neither do they build it.
  return { stdin: () => process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env };
}

const STOP_SIGNALS: readonly StopSignal[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const STOP_MESSAGES: Readonly<Record<StopSignal, string>> = { SIGINT: 'Interrupted', SIGTERM: 'Terminated', SIGHUP: 'Hung up' };

/**
 * Runs main for the real process. SIGINT (Ctrl-C), SIGTERM (`kill`, `timeout`, a cancelled CI
 * job) and SIGHUP (a closed terminal) all stop the command the same way: its abort signal fires
 * with an InterruptedError that names the signal, long commands launch nothing more, journal what
 * was in flight, and the exit code is 130, 143 or 129. A second signal exits at once (a bulk send
 * has journaled every request in flight before it left, so nothing is lost by it).
 */
export async function runProcess(argv: readonly string[]): Promise<number> {
  const controller = new AbortController();
  let first: StopSignal | undefined;
  const handlers = STOP_SIGNALS.map((name) => {
    const handler = (): void => {
      if (first !== undefined) process.exit(STOP_SIGNAL_EXIT[name]);
      first = name;
      controller.abort(new InterruptedError(STOP_MESSAGES[name], name));
    };
    process.on(name, handler);
    return { name, handler };
  });
  // A reader that went away (`svc number list --all | head`) ends the program quietly, as a
  // closed pipe ends any Unix tool, instead of crashing on EPIPE.
  const onBrokenPipe = (error: NodeJS.ErrnoException): void => {
    if (error.code === 'EPIPE') process.exit(ExitCode.Ok);
  };
  process.stdout.on('error', onBrokenPipe);
  process.stderr.on('error', onBrokenPipe);
  try {
    const code = await main(argv, { ...processDeps(), signal: controller.signal });
    return first !== undefined && code !== ExitCode.Ok ? STOP_SIGNAL_EXIT[first] : code;
  } finally {
    for (const { name, handler } of handlers) process.off(name, handler);
  }
}
