import type { Writable } from 'node:stream';
import type { Ora } from 'ora';
import type { IOStreams } from './io.js';

// Spinners on stderr, for the commands that wait (order watch, --wait, message watch). Only ever
// started when stderr is a terminal; ora is loaded then and not before.

/**
 * What ora needs of a terminal stream. A real TTY with a width is used as it is. A stream that
 * only claims to be a terminal (a test capture, a wrapped stderr) gets cursor methods as ANSI
 * sequences; and a terminal that reports a width of 0 (under `script` without a window size) gets
 * 80 columns, since ora divides by the width to count the lines it must clear.
 */
async function spinnerStream(stream: Writable): Promise<NodeJS.WritableStream> {
  const tty = stream as Writable & { cursorTo?: unknown; columns?: number };
  const width = typeof tty.columns === 'number' && tty.columns > 0 ? tty.columns : undefined;
  if (typeof tty.cursorTo === 'function' && width !== undefined) return stream;
  const readline = await import('node:readline');
  const adapter = {
    isTTY: true,
    columns: width ?? 80,
    write: (chunk: string | Uint8Array): boolean => stream.write(chunk),
    cursorTo: (x: number): boolean => readline.cursorTo(stream, x),
    moveCursor: (dx: number, dy: number): boolean => readline.moveCursor(stream, dx, dy),
    clearLine: (dir: -1 | 0 | 1): boolean => readline.clearLine(stream, dir),
  };
  return adapter as unknown as NodeJS.WritableStream;
}

/** What a spinner needs: stderr, and a way to be stopped when the command ends. */
export interface SpinnerHost {
  readonly io: IOStreams;
  onClose(close: () => void): void;
}

/** A started spinner on stderr, stopped when the command ends if nobody stopped it before. */
export async function startSpinner(ctx: SpinnerHost, text: string): Promise<Ora> {
  const { default: ora } = await import('ora');
  const spinner = ora({
    stream: await spinnerStream(ctx.io.stderr),
    isEnabled: true,
    discardStdin: false,
    color: ctx.io.colorStderr ? 'cyan' : false,
    text,
  }).start();
  ctx.onClose(() => {
    if (spinner.isSpinning) spinner.stop();
  });
  return spinner;
}
