import { UsageError } from '../errors.js';
import { stripOneTrailingNewline } from '../output/io.js';
import { decodeText } from '../input/text.js';
import { InputFileError, MAX_BODY_BYTES, openInput, readInputBytes, type InputSource } from './input-source.js';
import type { SendContext } from './send-context.js';
import type { SendRequest } from './plan.js';

// The message body of a send, from --body, --body-file or standard input, and the rule that
// standard input is read by one input at most. Part of the checks before anything is sent
// (plan.ts): a problem is a usage error naming the file.

/** After this long with nothing on a piped standard input, a line says what svc waits for. */
const STDIN_HINT_AFTER_MS = 2_000;

export function inputOptions(ctx: SendContext, flag: string, maxBytes: number, reread: boolean) {
  return { flag, maxBytes, reread, stdin: ctx.io.stdin, stdinIsTTY: ctx.io.stdinIsTTY };
}

export async function openOrRefuse(path: string, options: Parameters<typeof openInput>[1]): Promise<InputSource> {
  try {
    return await openInput(path, options);
  } catch (error) {
    if (error instanceof InputFileError) throw new UsageError(error.message);
    throw error;
  }
}

/** The body's text (strictly decoded: a byte that is not text is refused naming its line), less one final newline. */
function decodeBody(bytes: Buffer, name: string): string {
  return stripOneTrailingNewline(decodeText(bytes, name));
}

async function readBodyBytes(source: InputSource): Promise<Buffer> {
  try {
    return await readInputBytes(source);
  } catch (error) {
    if (error instanceof InputFileError) throw new UsageError(error.message);
    throw error;
  } finally {
    source.close();
  }
}

export interface Body {
  text: string;
  /** The --body-file read, to tell whether the journal would be written into it. */
  file: InputSource | undefined;
}

export async function readBody(request: SendRequest, ctx: SendContext, stdinTaken: { what: string; flag: string } | undefined): Promise<Body> {
  const text = request.body;
  const file = request.bodyFile;
  if (text !== undefined && file !== undefined) throw new UsageError('Give the body once: --body or --body-file, not both');
  if (text !== undefined) return { text, file: undefined };
  if (file !== undefined) {
    const source = await openOrRefuse(file, inputOptions(ctx, '--body-file', MAX_BODY_BYTES, false));
    return { text: decodeBody(await readBodyBytes(source), file), file: source };
  }
  if (ctx.io.stdinIsTTY) return { text: '', file: undefined };
  if (stdinTaken !== undefined) {
    throw new UsageError(`The ${stdinTaken.what} (${stdinTaken.flag}) and the body cannot both come from standard input: give --body or --body-file`);
  }
  // A pipe that never closes would leave `svc send` waiting in silence: after a moment, say why.
  const source = await openOrRefuse('-', inputOptions(ctx, 'the body on', MAX_BODY_BYTES, false));
  const waited = new AbortController();
  void ctx.clock.sleep(STDIN_HINT_AFTER_MS, waited.signal).then(
    () => ctx.warn('waiting for the message body on standard input (end it with Ctrl-D, or give --body or --body-file)'),
    () => undefined,
  );
  try {
    return { text: decodeBody(await readBodyBytes(source), 'standard input'), file: undefined };
  } finally {
    waited.abort();
  }
}

/** Names of standard input as a --to-file. */
const STDIN_PATHS = new Set(['-', '/dev/stdin', '/dev/fd/0', '/proc/self/fd/0']);

/**
 * The one input that reads standard input (`-`, /dev/stdin), if any: standard input can be read
 * once, so two inputs given as `-` are refused before either is read (the second would read
 * nothing: an exclude list read as empty would send to everyone on it).
 */
export function stdinReaderOf(request: SendRequest): { what: string; flag: string } | undefined {
  const readers = [
    { what: 'recipients', name: '--to-file', path: request.toFile },
    { what: 'body', name: '--body-file', path: request.bodyFile },
    { what: 'exclude list', name: '--exclude-file', path: request.pace.excludeFile },
  ]
    .filter((input) => input.path !== undefined && STDIN_PATHS.has(input.path))
    .map((input) => ({ what: input.what, flag: `${input.name} ${input.path!}` }));
  if (readers.length > 1) {
    const flags = readers.map((reader) => reader.flag);
    const two = readers.length === 2;
    throw new UsageError(
      `${flags.slice(0, -1).join(', ')} and ${flags.at(-1)!} ${two ? 'both' : 'all'} read standard input, which can be read only once: give ${two ? 'one of them' : 'all but one'} as a file`,
    );
  }
  return readers[0];
}
