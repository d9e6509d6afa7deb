import { readFile } from 'node:fs/promises';
import { TextDecoder } from 'node:util';
import { MAX_MEDIA_PER_MESSAGE } from '../../domain/media-formats.js';
import type { CommandInput } from '../spec.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { stripOneTrailingNewline } from '../../output/io.js';
import { checkRecipientsFile, RecipientsFileError, type RecipientsCheck } from '../../send/recipients.js';
import { compileTemplate, TemplateError, type CompiledTemplate } from '../../send/template.js';
import { requireE164, requireTenant } from '../shared/input.js';
import { checkMessageMedia, readMediaFile, type MediaFile } from '../media/media-file.js';
import { DEFAULT_CONCURRENCY } from '../defaults.js';
import { readPaceFlags, type PaceFlags } from '../../send/pace/options.js';

// Everything `svc send` checks before it sends anything: numbers, body, media, the recipients
// file and its placeholders, and the flags that go together. Any problem is a usage error (exit 2)
// naming the bad value, file and line.

export interface SendPlan {
  from: string;
  /** --to recipients (deduplicated, in order), or undefined with --to-file. */
  to: string[] | undefined;
  toFile: { path: string; check: RecipientsCheck } | undefined;
  /** The body as given (a template with --to-file). */
  body: string;
  template: CompiledTemplate;
  mediaUrls: string[];
  mediaFiles: MediaFile[];
  tenant: string | undefined;
  isAsync: boolean;
  concurrency: number;
  journal: string | undefined;
  resume: boolean;
  dryRun: boolean;
  yes: boolean;
  /** --rate, --max-stall, --window/--tz, --exclude-file, --shard. */
  pace: PaceFlags;
}

/** Problems listed in the error's hints when a recipients file has bad lines. */
const PROBLEMS_SHOWN = 10;
const DUPLICATES_SHOWN = 5;

async function readBodyFile(path: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : code === 'EACCES' ? 'permission denied' : String(code ?? error);
    throw new UsageError(`Cannot read body file ${path}: ${reason}`);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    // Name the line of the first byte that is not UTF-8, so that it can be found and fixed.
    const lossy = bytes.toString('utf8');
    const bad = lossy.indexOf('\uFFFD');
    let line = 1;
    for (let i = 0; i < bad; i++) if (lossy.charCodeAt(i) === 10) line++;
    throw new UsageError(`${path}:${line}: not valid UTF-8 text`);
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return stripOneTrailingNewline(text);
}

async function readBody(input: CommandInput, ctx: Context): Promise<string> {
  const text = input.string('body');
  const file = input.string('bodyFile');
  if (text !== undefined && file !== undefined) throw new UsageError('Give the body once: --body or --body-file, not both');
  if (text !== undefined) return text;
  if (file !== undefined) return readBodyFile(file);
  if (ctx.io.stdinIsTTY) return '';
  // A pipe that never closes would leave `svc send` waiting in silence: after a moment, say why.
  const reading = ctx.readStdin('the message body on standard input');
  const waited = new AbortController();
  void ctx.clock.sleep(STDIN_HINT_AFTER_MS, waited.signal).then(
    () => ctx.warn('waiting for the message body on standard input (end it with Ctrl-D, or give --body or --body-file)'),
    () => undefined,
  );
  try {
    return stripOneTrailingNewline(await reading);
  } finally {
    waited.abort();
  }
}

const STDIN_HINT_AFTER_MS = 2_000;

function recipientsFrom(values: readonly string[], ctx: Context): string[] {
  const seen = new Set<string>();
  const list: string[] = [];
  for (const value of values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '')) {
    const number = requireE164(value, '--to');
    if (seen.has(number)) {
      ctx.warn(`--to ${number} is given twice; it is sent once`);
      continue;
    }
    seen.add(number);
    list.push(number);
  }
  return list;
}

async function checkFile(path: string, ctx: Context): Promise<RecipientsCheck> {
  let check: RecipientsCheck;
  try {
    check = await checkRecipientsFile(path);
  } catch (error) {
    if (error instanceof RecipientsFileError) throw new UsageError(error.message);
    throw error;
  }
  if (check.problemCount > 0) {
    const first = check.problems[0]!.message;
    const more = check.problems.slice(1, PROBLEMS_SHOWN).map((p) => p.message);
    if (check.problemCount > PROBLEMS_SHOWN) more.push(`... and ${check.problemCount - PROBLEMS_SHOWN} more problems`);
    throw new UsageError(check.problemCount === 1 ? first : `${first} (${check.problemCount} problems in the file)`, more);
  }
  for (const duplicate of check.duplicates.slice(0, DUPLICATES_SHOWN)) ctx.warn(duplicate.message);
  if (check.duplicateCount > DUPLICATES_SHOWN) {
    ctx.warn(`${path}: ${check.duplicateCount - DUPLICATES_SHOWN} more numbers are listed again; each is sent once`);
  }
  if (check.recipients === 0) throw new UsageError(`${path}: no recipients in the file`);
  return check;
}

export async function planSend(input: CommandInput, ctx: Context): Promise<SendPlan> {
  const fromText = input.string('from');
  if (fromText === undefined) throw new UsageError('--from is needed: the number to send from (E.164)');
  const from = requireE164(fromText, '--from');

  const toValues = input.strings('to');
  const toFilePath = input.string('toFile');
  if (toValues.length > 0 && toFilePath !== undefined) throw new UsageError('Give recipients with --to or --to-file, not both');
  if (toValues.length === 0 && toFilePath === undefined) throw new UsageError('Recipients are needed: --to NUMBER... or --to-file FILE');
  const to = toValues.length > 0 ? recipientsFrom(toValues, ctx) : undefined;

  const concurrency = input.number('concurrency', '--concurrency', { min: 1, max: 256, integer: true }) ?? DEFAULT_CONCURRENCY;
  const journal = input.string('journal');
  const resume = input.flag('resume');
  if (resume && journal === undefined) throw new UsageError('--resume needs --journal FILE: the journal of the run to resume');

  const mediaUrls = input.strings('media');
  const mediaPaths = input.strings('mediaFile');
  if (mediaUrls.length + mediaPaths.length > MAX_MEDIA_PER_MESSAGE) {
    throw new UsageError(
      `A message holds at most ${MAX_MEDIA_PER_MESSAGE} media (--media and --media-file together), not ${mediaUrls.length + mediaPaths.length}`,
    );
  }
  checkMessageMedia(mediaUrls, []);
  const mediaFiles: MediaFile[] = [];
  for (const path of mediaPaths) mediaFiles.push(await readMediaFile(path));
  checkMessageMedia(mediaUrls, mediaFiles);

  const body = await readBody(input, ctx);
  if (body === '' && mediaUrls.length + mediaFiles.length === 0) {
    throw new UsageError('A message needs a body or media: --body TEXT, --body-file FILE, text on standard input, --media or --media-file');
  }

  const tenant = mediaFiles.length > 0 ? requireTenant(ctx, input.string('tenant')) : undefined;
  const pace = await readPaceFlags(input, toFilePath !== undefined);

  let toFile: SendPlan['toFile'];
  let template: CompiledTemplate;
  if (toFilePath !== undefined) {
    const check = await checkFile(toFilePath, ctx);
    toFile = { path: toFilePath, check };
    try {
      template = compileTemplate(body, check.columns);
    } catch (error) {
      if (error instanceof TemplateError) throw new UsageError(error.message);
      throw error;
    }
  } else {
    // With --to the body is sent as written: braces are text, not placeholders.
    template = { source: body, columns: [], isStatic: true, render: () => body };
  }

  return {
    from,
    to,
    toFile,
    body,
    template,
    mediaUrls,
    mediaFiles,
    tenant,
    isAsync: input.flag('async'),
    concurrency,
    journal,
    resume,
    dryRun: input.flag('dryRun'),
    yes: input.flag('yes'),
    pace,
  };
}
