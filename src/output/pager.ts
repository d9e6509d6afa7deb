import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { Writable } from 'node:stream';

// Output taller than the terminal goes through a pager, as gh does: SVC_PAGER, else PAGER, else
// `less -FRX`. The command's stdout is held while it runs (only commands whose output is a
// finished document are paged, never a stream such as `order watch`), then either written as it
// is, when it fits, or piped to the pager, which writes to the terminal itself.

export const DEFAULT_PAGER = 'less -FRX';

/**
 * The pager to run, or undefined when paging is turned off (`SVC_PAGER=` or `cat`) or its program
 * is not installed (a machine without less shows the output as it is, not a shell's complaint).
 */
export function pagerCommand(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const chosen = env['SVC_PAGER'] ?? env['PAGER'] ?? DEFAULT_PAGER;
  const trimmed = chosen.trim();
  if (trimmed === '' || trimmed === 'cat') return undefined;
  const program = trimmed.split(/\s+/)[0]!;
  return installed(program, env['PATH'] ?? '') ? trimmed : undefined;
}

function installed(program: string, path: string): boolean {
  const candidates = program.includes('/') || isAbsolute(program) ? [program] : path.split(delimiter).filter((d) => d !== '').map((d) => join(d, program));
  return candidates.some((file) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

export interface HeldOutput {
  /** Where the command writes. */
  stream: Writable;
  /** Writes what was held: through the pager when it is taller than `rows`. */
  finish(): Promise<void>;
}

/**
 * Holds stdout. `terminal` is the real stdout (its file descriptor is handed to the pager);
 * `rows` the terminal's height.
 */
export function holdForPager(
  terminal: Writable,
  terminalFd: number,
  rows: number,
  command: string,
  env: Readonly<Record<string, string | undefined>>,
): HeldOutput {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
      done();
    },
  });
  return {
    stream,
    async finish() {
      const text = Buffer.concat(chunks);
      let lines = 0;
      for (const byte of text) if (byte === 10) lines++;
      if (lines < rows) {
        await new Promise<void>((resolve) => terminal.write(text, () => resolve()));
        return;
      }
      // less reads LESS for its options; gh sets FRX there too, so that `PAGER=less` behaves.
      const pagerEnv: Record<string, string> = {};
      for (const [key, value] of Object.entries(env)) if (value !== undefined) pagerEnv[key] = value;
      pagerEnv['LESS'] ??= 'FRX';
      pagerEnv['LV'] ??= '-c';
      const ran = await new Promise<boolean>((resolve) => {
        const child = spawn(command, { shell: true, stdio: ['pipe', terminalFd, 'inherit'], env: pagerEnv });
        let started = false;
        child.on('spawn', () => {
          started = true;
          // Quitting the pager early closes its input: not an error.
          child.stdin?.on('error', () => undefined);
          child.stdin?.end(text);
        });
        child.on('error', () => resolve(started));
        child.on('close', (code) => resolve(started && code !== 127));
      });
      if (!ran) await new Promise<void>((resolve) => terminal.write(text, () => resolve()));
    },
  };
}
