import type { Writable } from 'node:stream';
import type { Ora } from 'ora';
import { controlChannel, type IOStreams } from './io.js';
import { visibleLine } from './terminal.js';

// Spinners on stderr, for the commands that wait (order watch, --wait, message watch). Only ever
// started when stderr is a terminal; ora is loaded then and not before. Ora draws with escape
// sequences of its own, so it writes to stderr's control channel (redacted, not made
// terminal-safe), and every text it is given is made visible first: a status the service sent
// cannot move the cursor.

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
    stream: await spinnerStream(controlChannel(ctx.io.stderr)),
    isEnabled: true,
    discardStdin: false,
    color: ctx.io.colorStderr ? 'cyan' : false,
    text: visibleLine(text),
  }).start();
  ctx.onClose(() => {
    if (spinner.isSpinning) spinner.stop();
  });
  return visibleTexts(spinner);
}

const TEXT_PROPERTIES = new Set<PropertyKey>(['text', 'prefixText', 'suffixText']);
const TEXT_METHODS = new Set<PropertyKey>(['start', 'succeed', 'fail', 'warn', 'info']);

/**
 * The spinner, with every text given to it made visible. A text may have several lines (ora
 * counts them to redraw), each made visible on its own: whoever puts a service's value in a
 * line makes that value one line first (visibleLine), so that only svc's own breaks are real.
 */
function visibleTexts(spinner: Ora): Ora {
  const safe = (value: unknown): unknown => (typeof value === 'string' ? value.split('\n').map(visibleLine).join('\n') : value);
  return new Proxy(spinner, {
    set(target, property, value) {
      return Reflect.set(target, property, TEXT_PROPERTIES.has(property) ? safe(value) : value, target);
    },
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      // Ora keeps its state in private fields: its methods run on the spinner itself.
      const method = (value as (...args: unknown[]) => unknown).bind(target);
      if (TEXT_METHODS.has(property)) return (text?: unknown) => method(safe(text));
      if (property === 'stopAndPersist') {
        return (options?: { text?: unknown; prefixText?: unknown; suffixText?: unknown }) =>
          method(options && { ...options, text: safe(options.text), prefixText: safe(options.prefixText), suffixText: safe(options.suffixText) });
      }
      return method;
    },
  });
}
