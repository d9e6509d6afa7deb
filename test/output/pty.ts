import { createRequire } from 'node:module';
import type { IPty } from 'node-pty';

// A process on a real pseudo-terminal (node-pty), for what only a terminal shows: prompts,
// confirmations, the pager, tables fitted to the width, shell completion. Every wait is on the
// terminal's output (or the process's exit) with a generous deadline, never on a sleep.

const require = createRequire(import.meta.url);

export interface PtySession {
  /** Everything the terminal showed so far, escape sequences removed. */
  text(): string;
  /** Every byte the process wrote to the terminal so far, as it was (decoded as UTF-8). */
  raw(): string;
  /** A position in the output, so that a wait only looks at what comes after it. */
  mark(): number;
  write(data: string): void;
  /** Resolves with the first match of `pattern` after `from`; fails at the deadline or on exit. */
  waitFor(pattern: RegExp, from?: number, deadlineMs?: number): Promise<RegExpMatchArray>;
  /** The exit code, once the process has ended. */
  exited: Promise<number>;
  close(): Promise<void>;
}

/** Removes the terminal's escape sequences (colours, cursor moves, titles). */
export function stripTerminal(text: string): string {
  return text
    .replace(/\u001b\][^\u0007\u001b]*(\u0007|\u001b\\)/g, '')
    .replace(/\u001b\[[0-9;?<=>]*[ -/]*[@-~]/g, '')
    .replace(/\u001b[()][A-Z0-9]/g, '')
    .replace(/\u001b[=>78DEHM]/g, '')
    .replace(/\r/g, '');
}

export function startPty(
  command: string,
  args: string[],
  options: { env: Record<string, string | undefined>; cols?: number; rows?: number; cwd?: string },
): PtySession {
  const pty = require('node-pty') as typeof import('node-pty');
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(options.env)) if (value !== undefined) env[key] = value;
  const child: IPty = pty.spawn(command, args, {
    name: 'xterm',
    cols: options.cols ?? 100,
    rows: options.rows ?? 30,
    cwd: options.cwd ?? process.cwd(),
    env,
  });
  let raw = '';
  let stripped = '';
  let ended = false;
  const listeners = new Set<() => void>();
  child.onData((data) => {
    raw += data;
    stripped = stripTerminal(raw);
    for (const listener of [...listeners]) listener();
  });
  const exited = new Promise<number>((resolve) => {
    child.onExit(({ exitCode }) => {
      ended = true;
      for (const listener of [...listeners]) listener();
      resolve(exitCode);
    });
  });
  return {
    text: () => stripped,
    raw: () => raw,
    mark: () => stripped.length,
    write: (data) => child.write(data),
    waitFor(pattern, from = 0, deadlineMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = (): boolean => {
          const match = stripped.slice(from).match(pattern);
          if (match) {
            done();
            resolve(match);
            return true;
          }
          if (ended) {
            done();
            reject(new Error(`the process ended before ${pattern} appeared; the terminal showed:\n${stripped.slice(from)}`));
            return true;
          }
          return false;
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`${pattern} did not appear within ${deadlineMs} ms; the terminal showed:\n${stripped.slice(from)}`));
        }, deadlineMs);
        const done = (): void => {
          clearTimeout(timer);
          listeners.delete(listener);
        };
        const listener = (): void => {
          check();
        };
        listeners.add(listener);
        check();
      });
    },
    exited,
    async close() {
      if (!ended) child.kill();
      await exited;
    },
  };
}
