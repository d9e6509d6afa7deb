import type { Readable, Writable } from 'node:stream';

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
}

export interface IOStreamsInit {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  stdinIsTTY?: boolean;
  stdoutIsTTY?: boolean;
  stderrIsTTY?: boolean;
  columns?: number;
  env: Readonly<Record<string, string | undefined>>;
  noColorFlag?: boolean;
}

function ttyOf(stream: unknown): boolean {
  return typeof stream === 'object' && stream !== null && (stream as { isTTY?: unknown }).isTTY === true;
}

export function createIOStreams(init: IOStreamsInit): IOStreams {
  const stdinIsTTY = init.stdinIsTTY ?? ttyOf(init.stdin);
  const stdoutIsTTY = init.stdoutIsTTY ?? ttyOf(init.stdout);
  const stderrIsTTY = init.stderrIsTTY ?? ttyOf(init.stderr);
  const colorAllowed = !init.noColorFlag && !('NO_COLOR' in init.env && init.env['NO_COLOR'] !== '') && init.env['TERM'] !== 'dumb';
  const inCi = init.env['CI'] !== undefined && init.env['CI'] !== '' && init.env['CI'] !== 'false';
  const columns = init.columns ?? (init.stdout as { columns?: number }).columns ?? 80;
  return {
    stdin: init.stdin,
    stdout: init.stdout,
    stderr: init.stderr,
    stdinIsTTY,
    stdoutIsTTY,
    stderrIsTTY,
    colorStdout: colorAllowed && stdoutIsTTY,
    colorStderr: colorAllowed && stderrIsTTY,
    columns,
    canPrompt: stdinIsTTY && stderrIsTTY && !inCi,
  };
}

/** Reads all of stdin as UTF-8. */
export async function readAllText(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) {
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A secret read from stdin loses exactly one trailing newline (LF or CRLF), as the contract says. */
export function stripOneTrailingNewline(text: string): string {
  if (text.endsWith('\r\n')) return text.slice(0, -2);
  if (text.endsWith('\n')) return text.slice(0, -1);
  return text;
}
