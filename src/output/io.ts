import type { Readable, Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { SecretRegistry } from './secrets.js';
import { terminalText } from './terminal.js';

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
  /**
   * The secrets of this run; everything written to stdout and stderr is redacted with them, and
   * made terminal-safe (src/output/terminal.ts; writeExact for data whose bytes matter).
   */
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
    // The boundary: everything written is redacted and made terminal-safe (terminal.ts).
    stdout: outputBoundary(init.stdout, secrets, { isTTY: stdoutIsTTY }),
    stderr: outputBoundary(init.stderr, secrets, { isTTY: stderrIsTTY }),
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

/** A write of data whose bytes matter (see writeExact). */
const EXACT_WRITE = Symbol('exact write');
/** The same stream, redacted but not made terminal-safe, for libraries that draw (see controlChannel). */
const CONTROL_CHANNEL = Symbol('control channel');

interface BoundaryStream {
  [EXACT_WRITE]?: (chunk: string | Uint8Array) => boolean;
  [CONTROL_CHANNEL]?: Writable;
}

/**
 * Writes a document whose bytes are the point (a `--json` or `-o ndjson` document, `svc api`'s
 * answer, a CSV): redacted, and written byte for byte when the stream is not a terminal. On a
 * terminal it is made terminal-safe like everything else; the visible spellings are JSON's own
 * escapes, so a JSON document read off the screen still holds the same values.
 */
export function writeExact(stream: Writable, chunk: string | Uint8Array): boolean {
  const exact = (stream as BoundaryStream)[EXACT_WRITE];
  return exact ? exact(chunk) : stream.write(chunk);
}

/**
 * The stream for a library that draws on the terminal with its own escape sequences (ora,
 * inquirer): redacted, not made terminal-safe. Whoever hands it text from elsewhere makes that
 * text visible first (visibleText).
 */
export function controlChannel(stream: Writable): Writable {
  return (stream as BoundaryStream)[CONTROL_CHANNEL] ?? stream;
}

export interface BoundaryOptions {
  /** Make control characters visible in every write (but exact ones when not a terminal). */
  terminalSafe?: boolean;
  /** The stream is a terminal: exact writes are made terminal-safe too. */
  isTTY?: boolean;
}

/**
 * The output boundary: the stream as it is, but every write passes the redactor and then the
 * terminal-safe writer (terminal.ts). A Proxy rather than a new stream, so that isTTY, columns,
 * events and whatever else spinners and prompts read of the real stream stay as they are.
 *
 * What is made visible, and where: every write, to a terminal or not (a table piped to `cat` or
 * `less -R` reaches a terminal all the same), except data written with writeExact when the stream
 * is not a terminal.
 */
export function outputBoundary<T extends Writable>(stream: T, secrets: SecretRegistry, options: BoundaryOptions = {}): T {
  const terminalSafe = options.terminalSafe ?? true;
  const isTTY = options.isTTY ?? ttyOf(stream);
  let decoder: StringDecoder | undefined;
  const forward = (out: unknown, rest: unknown[]): boolean => (stream.write as (...args: unknown[]) => boolean).call(stream, out, ...rest);

  const send = (chunk: unknown, rest: unknown[], safe: boolean): boolean => {
    if (typeof chunk === 'string') {
      const redacted = secrets.size > 0 ? secrets.redact(chunk) : chunk;
      return forward(safe ? terminalText(redacted) : redacted, rest);
    }
    if (chunk instanceof Uint8Array) {
      const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      if (safe && isTTY) {
        // Bytes for a terminal are read as UTF-8 (a stray byte shows as U+FFFD, never as a raw
        // 8-bit control), a character cut between two writes joined again.
        decoder ??= new StringDecoder('utf8');
        const text = decoder.write(bytes);
        return forward(terminalText(secrets.size > 0 ? secrets.redact(text) : text), rest);
      }
      if (secrets.size === 0 && !safe) return forward(chunk, rest);
      const text = bytes.toString('utf8');
      const redacted = secrets.size > 0 ? secrets.redact(text) : text;
      const out = safe ? terminalText(redacted) : redacted;
      return forward(out === text ? chunk : out, rest);
    }
    return forward(chunk, rest);
  };
  const write = (chunk: unknown, ...rest: unknown[]): boolean => send(chunk, rest, terminalSafe);
  const exact = (chunk: string | Uint8Array): boolean => send(chunk, [], terminalSafe && isTTY);
  const end = (chunk?: unknown, ...rest: unknown[]): T => {
    if (typeof chunk === 'string' || chunk instanceof Uint8Array) {
      write(chunk);
      return (stream.end as (...args: unknown[]) => T).call(stream, ...rest);
    }
    return (stream.end as (...args: unknown[]) => T).call(stream, chunk, ...rest);
  };
  let channel: T | undefined;
  return new Proxy(stream, {
    get(target, property) {
      if (property === 'write') return write;
      if (property === 'end') return end;
      if (property === EXACT_WRITE) return exact;
      if (property === CONTROL_CHANNEL) return terminalSafe ? (channel ??= outputBoundary(stream, secrets, { terminalSafe: false, isTTY })) : undefined;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The redactor alone (the boundary without terminal safety). */
export function redactingStream<T extends Writable>(stream: T, secrets: SecretRegistry): T {
  return outputBoundary(stream, secrets, { terminalSafe: false });
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
