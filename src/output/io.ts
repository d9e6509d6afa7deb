import type { Readable, Writable } from 'node:stream';
import { SecretRegistry } from './secrets.js';

// IOStreams owns the TTY question: whether output is for a person (aligned, coloured tables,
// spinners) or for a program (plain rows), and whether a person can be prompted.

export interface IOStreams {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Colour on stdout: a TTY, and neither NO_COLOR nor --no-color. */
  colorStdout: boolean;
  /** Colour on stderr, by the same rules applied to stderr. */
  colorStderr: boolean;
  /** Terminal width for tables; 80 when unknown. */
  columns: number;
  /** A person is at the terminal and may be asked questions (never in CI, never with piped stdin). */
  canPrompt: boolean;
  /** The secrets of this run; everything written to stdout and stderr is redacted with them. */
  secrets: SecretRegistry;
}

export interface IOStreamsInit {
  /** The stream, or a function that makes it when it is first used (and not before). */
  stdin: Readable | (() => Readable);
  stdout: Writable;
  stderr: Writable;
  stdinIsTTY?: boolean;
  stdoutIsTTY?: boolean;
  stderrIsTTY?: boolean;
  columns?: number;
  env: Readonly<Record<string, string | undefined>>;
  noColorFlag?: boolean;
  secrets?: SecretRegistry;
}

function ttyOf(stream: unknown): boolean {
  return typeof stream === 'object' && stream !== null && (stream as { isTTY?: unknown }).isTTY === true;
}

export function createIOStreams(init: IOStreamsInit): IOStreams {
  const stdoutIsTTY = init.stdoutIsTTY ?? ttyOf(init.stdout);
  const stderrIsTTY = init.stderrIsTTY ?? ttyOf(init.stderr);
  const colorAllowed = !init.noColorFlag && !('NO_COLOR' in init.env && init.env['NO_COLOR'] !== '') && init.env['TERM'] !== 'dumb';
  const inCi = init.env['CI'] !== undefined && init.env['CI'] !== '' && init.env['CI'] !== 'false';
  const columns = init.columns ?? (init.stdout as { columns?: number }).columns ?? 80;
  const secrets = init.secrets ?? new SecretRegistry();
  // Standard input is made, and asked whether it is a terminal, only when a command needs it.
  const source = init.stdin;
  let stdin = typeof source === 'function' ? undefined : source;
  const input = (): Readable => (stdin ??= (source as () => Readable)());
  let stdinIsTTY = init.stdinIsTTY;
  const inputIsTTY = (): boolean => (stdinIsTTY ??= ttyOf(input()));
  return {
    get stdin() {
      return input();
    },
    stdout: redactingStream(init.stdout, secrets),
    stderr: redactingStream(init.stderr, secrets),
    secrets,
    get stdinIsTTY() {
      return inputIsTTY();
    },
    stdoutIsTTY,
    stderrIsTTY,
    colorStdout: colorAllowed && stdoutIsTTY,
    colorStderr: colorAllowed && stderrIsTTY,
    columns,
    get canPrompt() {
      return stderrIsTTY && !inCi && inputIsTTY();
    },
  };
}

/**
 * The output boundary: the stream as it is, but every write passes through the redactor first.
 * A Proxy rather than a new stream, so that isTTY, columns, events and whatever else spinners and
 * prompts read of the real stream stay as they are.
 */
export function redactingStream<T extends Writable>(stream: T, secrets: SecretRegistry): T {
  const write = (chunk: unknown, ...rest: unknown[]): boolean => {
    let out = chunk;
    if (secrets.size > 0) {
      if (typeof chunk === 'string') out = secrets.redact(chunk);
      else if (chunk instanceof Uint8Array) {
        const text = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('utf8');
        const redacted = secrets.redact(text);
        if (redacted !== text) out = redacted;
      }
    }
    return (stream.write as (...args: unknown[]) => boolean).call(stream, out, ...rest);
  };
  const end = (chunk?: unknown, ...rest: unknown[]): T => {
    if (typeof chunk === 'string' || chunk instanceof Uint8Array) {
      write(chunk);
      return (stream.end as (...args: unknown[]) => T).call(stream, ...rest);
    }
    return (stream.end as (...args: unknown[]) => T).call(stream, chunk, ...rest);
  };
  return new Proxy(stream, {
    get(target, property) {
      if (property === 'write') return write;
      if (property === 'end') return end;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** Reads all of a stream (standard input) as bytes; the caller decodes them. */
export async function readAllBytes(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) {
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  }
  return Buffer.concat(chunks);
}

/** A secret read from stdin loses exactly one trailing newline (LF or CRLF), as the contract says. */
export function stripOneTrailingNewline(text: string): string {
  if (text.endsWith('\r\n')) return text.slice(0, -2);
  if (text.endsWith('\n')) return text.slice(0, -1);
  return text;
}
