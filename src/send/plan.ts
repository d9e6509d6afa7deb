import { stat } from 'node:fs/promises';
import { MAX_MEDIA_PER_MESSAGE } from '../domain/media-formats.js';
import type { SendContext } from './send-context.js';
import { UsageError } from '../errors.js';
import { checkRecipientsFile, RecipientsFileError, type RecipientsCheck } from './recipients.js';
import type { RecipientRow } from './recipient-rows.js';
import { RecipientWindows, type ZonesOf } from './pace/recipient-window.js';
import { MAX_RECIPIENTS_BYTES, type InputSource } from './input-source.js';
import { inputOptions, openOrRefuse, readBody, stdinReaderOf, type Body } from './body-input.js';
import { checkJournalPath, type NamedFile } from './named-files.js';
import type { UnknownChoice } from './journal/format.js';
import { compileTemplate, TemplateError, type CompiledTemplate } from './template.js';
import { requireE164 } from '../input/checks.js';
import { checkMessageMedia, readMediaFile, type MediaFile } from '../input/media-file.js';
import { readPaceFlags, type PaceFlags, type PaceOptions } from './pace/options.js';
import { RecipientFilter } from './pace/filter.js';
import { CostTally, type BodyStats } from './stats.js';
import { defaultStoreDir } from '../events/paths.js';
import { OptOutList, type OptOutLookup } from '../optouts/list.js';
import { OPTOUTS_FILE } from '../optouts/log.js';
import { readTextFile } from '../input/files.js';
import type { PriceList } from './cost/prices.js';
import { budgetIn, type Budget } from './cost/money.js';

// Everything `svc send` checks before it sends anything: numbers, body, media, the recipients
// file and its placeholders, and the flags that go together. Any problem is a usage error (exit 2)
// naming the bad value, file and line.

/**
 * What a send is asked to do, as given: the values of the flags, not yet checked against each
 * other nor read from their files. The command builds it from its command line
 * (src/commands/send/shared/send-request.ts) with each value parsed on its own; the plan checks the rest.
 */
export interface SendRequest {
  from: string | undefined;
  to: readonly string[];
  toFile: string | undefined;
  body: string | undefined;
  bodyFile: string | undefined;
  media: readonly string[];
  mediaFiles: readonly string[];
  /** The tenant of a --media-file upload: from --tenant or the settings, or asked for; called only when needed. */
  tenant: () => Promise<string>;
  isAsync: boolean;
  concurrency: number;
  journal: string | undefined;
  resume: boolean;
  /** --unknown: what --resume does with recipients whose outcome is unknown (asked when absent). */
  unknown: UnknownChoice | undefined;
  dryRun: boolean;
  yes: boolean;
  pace: PaceOptions;
  /** The event store that records what was sent: a directory (--store), false (--no-store), or the default. */
  store?: string | false | undefined;
  /** --ignore-optouts: send to people who opted out of the sending number too (asked first). */
  ignoreOptOuts?: boolean | undefined;
  /** The tenant the send is for, when known without asking: whose every-number opt-outs apply (all, when unknown). */
  optOutTenant?: string | undefined;
  /** --prices FILE, not yet read. */
  prices?: string | undefined;
  /** --budget as given (`text`), in millionths, and the currency it names, if any (checked against the prices'). */
  budget?: (Budget & { text: string }) | undefined;
}

/** The opt-outs a send honours: those of its sending number and of every number. */
export interface PlanOptOuts {
  /** The event store directory the list is kept beside. */
  dir: string;
  lookup: OptOutLookup;
  /** Lines of the list's log that could not be read. */
  damaged: number[];
}

/** The flags a plan carries on as they were asked for. */
type CarriedFlags = 'isAsync' | 'concurrency' | 'journal' | 'resume' | 'unknown' | 'dryRun' | 'yes';

export interface SendPlan extends Pick<SendRequest, CarriedFlags> {
  from: string;
  /** --to recipients (deduplicated, in order), or undefined with --to-file. */
  to: string[] | undefined;
  /** `cost`: what the send costs, counted as the check read the file (see bodyStats). */
  /**
   * `admitted`: the recipients this run's filters (shard, opt-outs, --exclude-file, zones) leave in,
   * counted as the check read the file, with the filter's counts by reason; not with --resume,
   * whose journal (read later) leaves out more.
   */
  toFile: { path: string; source: InputSource; check: RecipientsCheck; cost?: BodyStats; admitted?: RecipientFilter } | undefined;
  /** The body as given (a template with --to-file). */
  body: string;
  template: CompiledTemplate;
  mediaUrls: string[];
  mediaFiles: MediaFile[];
  tenant: string | undefined;
  /** --rate, --max-stall, --window/--tz, --exclude-file, --shard. */
  pace: PaceFlags;
  /** See SendRequest's store. */
  store: string | false | undefined;
  /** The opt-outs left out of this send; undefined with --ignore-optouts. */
  optOuts: PlanOptOuts | undefined;
  /** --ignore-optouts, with how many the list holds that it overrides. */
  ignoredOptOuts: { dir: string; listed: number } | undefined;
  /** --prices: the price per segment by country. */
  prices: PriceList | undefined;
  /** --window with --tz-column or --tz auto: each recipient's own send window. */
  recipientWindows: RecipientWindows | undefined;
  /** --budget, in millionths: no request is launched whose cost would take the run past it. */
  budget: number | undefined;
  /** Releases the inputs (the recipients file's descriptor, a spooled pipe). */
  close(): void;
}

/** Problems listed in the error's hints when a recipients file has bad lines. */
const PROBLEMS_SHOWN = 10;
const DUPLICATES_SHOWN = 5;

/** Link characters that are never part of a URL as typed: white space, line breaks, controls. */
const UNSAFE_IN_LINK = /[\s\u0000-\u001f\u007f-\u009f]/u;

function checkMediaLinks(urls: readonly string[]): void {
  for (const url of urls) {
    if (UNSAFE_IN_LINK.test(url)) {
      throw new UsageError(`--media ${JSON.stringify(url)}: a link may not hold white space, line breaks or control characters`);
    }
  }
}


function recipientsFrom(values: readonly string[], ctx: SendContext): string[] {
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

async function checkFile(source: InputSource, ctx: SendContext, tally?: CostTally, zoneCheck?: ZoneColumnCheck, counting?: RecipientFilter): Promise<RecipientsCheck> {
  let check: RecipientsCheck;
  const path = source.name;
  const onRow =
    zoneCheck === undefined && counting === undefined
      ? tally?.row
      : (row: RecipientRow, columns: readonly string[]) => {
          zoneCheck?.row(row);
          counting?.admits(row.to, row.fields);
          tally?.row(row, columns);
        };
  try {
    check = await checkRecipientsFile(source, onRow !== undefined ? { onRow } : {});
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
  zoneCheck?.finish(check.columns);
  return check;
}

export async function planSend(request: SendRequest, ctx: SendContext): Promise<SendPlan> {
  const fromText = request.from;
  if (fromText === undefined) throw new UsageError('--from is needed: the number to send from (E.164)');
  const from = requireE164(fromText, '--from');
  const to = recipientsGiven(request, ctx);
  const stdinTaken = stdinReaderOf(request);
  checkResumeFlags(request);
  const { mediaUrls, mediaFiles } = await readMedia(request);
  const body = await readBody(request, ctx, stdinTaken);
  if (body.text === '' && mediaUrls.length + mediaFiles.length === 0) {
    throw new UsageError('A message needs a body or media: --body TEXT, --body-file FILE, text on standard input, --media or --media-file');
  }

  // --media-file goes up for a tenant: on a terminal a missing one is chosen among the account's.
  const tenant = mediaFiles.length > 0 ? await request.tenant() : undefined;
  const pace = await readPaceFlags(request.pace, request.toFile !== undefined, (path) =>
    openOrRefuse(path, inputOptions(ctx, '--exclude-file', MAX_RECIPIENTS_BYTES, false)),
  );
  const { optOuts, ignoredOptOuts } = readOptOuts(request, from, ctx);
  if (request.budget !== undefined && request.prices === undefined) {
    throw new UsageError('--budget needs --prices FILE: the price per segment by country, to know what each message costs');
  }
  const recipientWindows = await recipientWindowsOf(pace.recipientWindow, ctx);
  const prices = await readPrices(request);
  const budget = request.budget === undefined ? undefined : budgetIn(request.budget, request.budget.text, prices!);
  const { toFile, template } =
    request.toFile !== undefined
      ? await readToFile(request, request.toFile, ctx, { body, pace, optOuts, recipientWindows, prices })
      : // With --to the body is sent as written: braces are text, not placeholders.
        { toFile: undefined, template: { source: body.text, columns: [], isStatic: true, render: () => body.text } };
  if (request.journal !== undefined) {
    try {
      await checkJournalPath(request.journal, await journalInputs(request, toFile, body, pace));
    } catch (error) {
      toFile?.source.close();
      throw error;
    }
  }

  return {
    from,
    to,
    toFile,
    body: body.text,
    template,
    mediaUrls,
    mediaFiles,
    tenant,
    isAsync: request.isAsync,
    concurrency: request.concurrency,
    journal: request.journal,
    resume: request.resume,
    unknown: request.unknown,
    dryRun: request.dryRun,
    yes: request.yes,
    pace,
    store: request.store,
    optOuts,
    ignoredOptOuts,
    prices,
    recipientWindows,
    budget,
    close: () => toFile?.source.close(),
  };
}

/** The --to recipients, checked; undefined with --to-file. Exactly one of the two is needed. */
function recipientsGiven(request: SendRequest, ctx: SendContext): string[] | undefined {
  const toValues = request.to;
  const toFilePath = request.toFile;
  if (toValues.length > 0 && toFilePath !== undefined) throw new UsageError('Give recipients with --to or --to-file, not both');
  if (toValues.length === 0 && toFilePath === undefined) throw new UsageError('Recipients are needed: --to NUMBER... or --to-file FILE');
  return toValues.length > 0 ? recipientsFrom(toValues, ctx) : undefined;
}

function checkResumeFlags(request: SendRequest): void {
  if (request.resume && request.journal === undefined) throw new UsageError('--resume needs --journal FILE: the journal of the run to resume');
  if (request.unknown !== undefined && !request.resume) {
    throw new UsageError('--unknown goes with --resume: it chooses what a resumed run does with recipients whose outcome is unknown');
  }
}

/** The --media links and the --media-file files (read and checked), within a message's limit. */
async function readMedia(request: SendRequest): Promise<{ mediaUrls: string[]; mediaFiles: MediaFile[] }> {
  const mediaUrls = [...request.media];
  const mediaPaths = request.mediaFiles;
  if (mediaUrls.length + mediaPaths.length > MAX_MEDIA_PER_MESSAGE) {
    throw new UsageError(
      `A message holds at most ${MAX_MEDIA_PER_MESSAGE} media (--media and --media-file together), not ${mediaUrls.length + mediaPaths.length}`,
    );
  }
  checkMediaLinks(mediaUrls);
  checkMessageMedia(mediaUrls, []);
  const mediaFiles: MediaFile[] = [];
  for (const path of mediaPaths) mediaFiles.push(await readMediaFile(path));
  checkMessageMedia(mediaUrls, mediaFiles);
  return { mediaUrls, mediaFiles };
}

async function readPrices(request: SendRequest): Promise<PriceList | undefined> {
  if (request.prices === undefined) return undefined;
  const { readPriceList } = await import('./cost/prices.js');
  return readPriceList(request.prices, await readTextFile(request.prices, 'the --prices file'));
}

/** What the --to-file check needs from the rest of the plan. */
interface ToFileContext {
  body: Body;
  pace: PaceFlags;
  optOuts: SendPlan['optOuts'];
  recipientWindows: RecipientWindows | undefined;
  prices: PriceList | undefined;
}

/** Opens and checks the recipients file (and counts its cost when shown); its template compiled against its columns. */
async function readToFile(
  request: SendRequest,
  toFilePath: string,
  ctx: SendContext,
  given: ToFileContext,
): Promise<{ toFile: NonNullable<SendPlan['toFile']>; template: CompiledTemplate }> {
  const { body, pace, optOuts, recipientWindows, prices } = given;
  const resume = request.resume;
  const zoneCheck = pace.recipientWindow?.source.kind === 'column' ? new ZoneColumnCheck(pace.recipientWindow.source.column, toFilePath) : undefined;
  const source = await openOrRefuse(toFilePath, inputOptions(ctx, '--to-file', MAX_RECIPIENTS_BYTES, true));
  // What the send costs is counted in the same pass when it will be shown (a dry run, the
  // questions on a terminal), so that the file is read once; not with --resume, whose journal
  // (read later) changes who is counted.
  const wantsCost = !resume && (request.dryRun || ctx.io.stderrIsTTY || ctx.io.canPrompt);
  const tally = wantsCost
    ? new CostTally(body.text, (columns) => compileTemplate(body.text, columns), new RecipientFilter(pace.exclude?.list, pace.shard, undefined, optOuts?.lookup, recipientWindows), prices)
    : undefined;
  try {
    // Who the filters leave in, counted in this pass (a Map look-up a row), so that the send
    // need not read the file a second time to know its total.
    const counting = resume ? undefined : new RecipientFilter(pace.exclude?.list, pace.shard, undefined, optOuts?.lookup, recipientWindows);
    const check = await checkFile(source, ctx, tally, zoneCheck, counting?.active === true ? counting : undefined);
    const cost = tally?.finish();
    const toFile = { path: toFilePath, source, check, ...(cost !== undefined ? { cost } : {}), ...(counting?.active === true ? { admitted: counting } : {}) };
    return { toFile, template: compileTemplate(body.text, check.columns) };
  } catch (error) {
    source.close();
    if (error instanceof TemplateError) throw new UsageError(error.message);
    throw error;
  }
}

/** The files a send reads, which its journal must not be written into. */
async function journalInputs(request: SendRequest, toFile: SendPlan['toFile'], body: Body, pace: PaceFlags): Promise<NamedFile[]> {
  const inputs: NamedFile[] = [
    ...(toFile !== undefined ? [{ flag: '--to-file', name: toFile.path, identity: toFile.source.identity }] : []),
    ...(body.file !== undefined ? [{ flag: '--body-file', name: body.file.name, identity: body.file.identity }] : []),
    ...(pace.exclude !== undefined ? [{ flag: '--exclude-file', name: pace.exclude.path, identity: pace.exclude.identity }] : []),
  ];
  for (const path of request.mediaFiles) {
    const { dev, ino } = await stat(path);
    inputs.push({ flag: '--media-file', name: path, identity: { dev, ino } });
  }
  return inputs;
}

/**
 * The opt-out list beside the event store (--store DIR, else the default; --no-store only stops
 * the record of what is sent, never the list), read afresh by every run: a resumed run leaves out
 * whoever opted out since the run began. A damaged line is skipped with a warning, never fatal:
 * refusing to send would not make the rest of the list less true.
 */
function readOptOuts(request: SendRequest, from: string, ctx: SendContext): Pick<SendPlan, 'optOuts' | 'ignoredOptOuts'> {
  const dir = typeof request.store === 'string' ? request.store : defaultStoreDir(ctx.env);
  let read: ReturnType<typeof OptOutList.read>;
  try {
    read = OptOutList.read(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Sending without knowing who opted out is what the list is there to prevent.
    throw new UsageError(`Cannot read the opt-out list ${dir}/${OPTOUTS_FILE}: ${String(code ?? error)}`, [
      'Nothing was sent. Fix its permissions, or give --store DIR (the event store the list is kept beside).',
    ]);
  }
  const lookup = read.list.lookupFor(from, request.optOutTenant);
  if (read.damaged.length > 0) {
    ctx.warn(`${dir}/${OPTOUTS_FILE}: ${read.damaged.length} line${read.damaged.length === 1 ? '' : 's'} could not be read (line ${read.damaged.slice(0, 5).join(', ')}) and ${read.damaged.length === 1 ? 'was' : 'were'} skipped`);
  }
  if (request.ignoreOptOuts === true) return { optOuts: undefined, ignoredOptOuts: { dir, listed: lookup.size } };
  return { optOuts: { dir, lookup, damaged: read.damaged }, ignoredOptOuts: undefined };
}

/** Each recipient's zones: the file's column (named in any letter case), or the number's (--tz auto). */
async function recipientWindowsOf(spec: PaceFlags['recipientWindow'], ctx: SendContext): Promise<RecipientWindows | undefined> {
  if (spec === undefined) return undefined;
  let zonesOf: ZonesOf;
  if (spec.source.kind === 'auto') {
    const { loadTimeZones } = await import('../phone/time-zones.js');
    const timeZonesOf = await loadTimeZones();
    zonesOf = (to) => timeZonesOf(to);
  } else {
    const wanted = spec.source.column.toLowerCase();
    let header: string | undefined;
    zonesOf = (_to, fields) => {
      header ??= Object.keys(fields).find((name) => name.toLowerCase() === wanted);
      const zone = header === undefined ? '' : (fields[header] ?? '').trim();
      return zone === '' ? undefined : [zone];
    };
  }
  return new RecipientWindows(spec.hours, spec.source, zonesOf, () => ctx.clock.now());
}

/**
 * --tz-column NAME, checked as the file is read: the column must be there, and each zone in it a
 * name this system knows (a typo is exit 2 naming file:line); an empty cell is a recipient whose
 * zone cannot be told, held back and named by the send, never refused.
 */
class ZoneColumnCheck {
  private readonly known = new Map<string, boolean>();
  private readonly problems: string[] = [];
  private problemCount = 0;
  private header: string | undefined;

  constructor(
    private readonly column: string,
    private readonly path: string,
  ) {}

  row(row: RecipientRow): void {
    const wanted = this.column.toLowerCase();
    this.header ??= Object.keys(row.fields).find((name) => name.toLowerCase() === wanted);
    if (this.header === undefined) return;
    const zone = (row.fields[this.header] ?? '').trim();
    if (zone === '') return;
    let valid = this.known.get(zone);
    if (valid === undefined) {
      try {
        new Intl.DateTimeFormat('en-US', { timeZone: zone });
        valid = true;
      } catch {
        valid = false;
      }
      if (this.known.size < 10_000) this.known.set(zone, valid);
    }
    if (!valid) {
      this.problemCount++;
      if (this.problems.length < PROBLEMS_SHOWN) this.problems.push(`${this.path}:${row.line}: "${zone}"`);
    }
  }

  finish(columns: readonly string[]): void {
    if (!columns.some((name) => name.toLowerCase() === this.column.toLowerCase())) {
      throw new UsageError(
        columns.length === 0
          ? `--tz-column ${this.column}: ${this.path} has no header row (a CSV whose header names the zone column is needed)`
          : `--tz-column ${this.column}: ${this.path} has no such column (its columns: ${columns.join(', ')})`,
      );
    }
    if (this.problemCount === 1) throw new UsageError(`${this.problems[0]!} in column ${this.header!} is not a time zone (an IANA name such as America/Chicago)`);
    if (this.problemCount > 1) {
      // Each named by file:line, after one sentence that says what is wrong with all of them.
      const more = this.problemCount > this.problems.length ? [`... and ${this.problemCount - this.problems.length} more`] : [];
      throw new UsageError(`--tz-column ${this.column}: ${this.problemCount} cells of column ${this.header!} are not time zones (IANA names such as America/Chicago):`, [...this.problems, ...more]);
    }
  }
}
