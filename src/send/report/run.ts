import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import type { SendContext } from '../send-context.js';
import { InterruptedError, UsageError, type CliError } from '../../errors.js';
import { errorCode } from '../../domain/files/reasons.js';
import { cannotRead } from '../../input/file-errors.js';
import { control } from '../../output/terminal.js';
import { JournalFormatError } from '../journal/format.js';
import {
  appendCache,
  cachePath,
  isSettled,
  leaveOutExcluded,
  readCache,
  readReportJournal,
  readStatuses,
  shardCoverage,
  type MessageStatus,
  type ReportJournal,
  type ReportRecipient,
} from './data.js';
import { fileIdentity, sameFileAmong, type NamedFile } from '../named-files.js';
import { MAX_RECIPIENTS_BYTES, openInput } from '../input-source.js';
import { inShard } from '../pace/shard.js';
import { readExcludeFile, type ExcludeList } from '../pace/exclude.js';
import { readRecipientBatches } from '../recipients.js';
import { buildDocument, type NotYetSent } from './document.js';
import { writeFailedTo } from './failed-to.js';
import { writeReport } from './write.js';

// `svc send report` as one pipeline: the journals (checked, bound to --to-file), the statuses of
// the accepted messages (cached final ones first, then reads, then with --watch rounds until all
// are final), the document, --failed-to, and the report on stdout.

const STATUS_CONCURRENCY = 8;
const WATCH_INTERVAL_MS = 2000;
const DEFAULT_WATCH_TIMEOUT_S = 600;

export interface ReportOptions {
  /** The journals of the send, one per shard (the same file given twice is read once). */
  journals: string[];
  watch: boolean;
  /** --timeout: the limit of the whole report's reads, in seconds (with --watch, default 600). */
  timeoutS: number | undefined;
  failedTo: string | undefined;
  /** The recipients file of the send, for the columns of --failed-to. */
  toFile: string | undefined;
  /** The send's --exclude-file, so that the not-yet-sent of a journal with exclusions can be named. */
  excludeFile?: string | undefined;
}

/** What the report found, for its exit code. */
export interface ReportOutcome {
  /** The deadline came first: the messages not final (--watch) or not read (without it), else undefined. */
  notFinal: number | undefined;
  /** Accepted messages whose status this report could not read (a network or server error, or the deadline). */
  unread: number;
  /** Accepted messages with a message id: the statuses the report is about. */
  messages: number;
}

function journalProblem(path: string, error: unknown): CliError {
  if (error instanceof JournalFormatError) return new UsageError(`cannot report on ${error.message}`);
  if (errorCode(error) !== undefined) return cannotRead('--journal', path, error);
  return new UsageError(`cannot report on ${path}: ${error instanceof Error ? error.message.replace(`${path}: `, '') : String(error)}`);
}

async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return `sha256:${hash.digest('hex')}`;
}

async function readJournals(options: ReportOptions, ctx: SendContext): Promise<{ journals: ReportJournal[]; recipients: ReportRecipient[]; exclude: ExcludeList | undefined }> {
  const recipients: ReportRecipient[] = [];
  const journals: ReportJournal[] = [];
  for (const [index, path] of options.journals.entries()) {
    try {
      const journal = await readReportJournal(path, index, recipients);
      if (journal.ownUnknown) ctx.warn(`${path} was written by an older svc: its shard's recipients not yet sent cannot be counted (only those it names are)`);
      journals.push(journal);
    } catch (error) {
      throw journalProblem(path, error);
    }
  }
  const { toFile } = options;
  if (toFile !== undefined) {
    let digest: string;
    try {
      digest = await sha256File(toFile);
    } catch (error) {
      throw cannotRead('--to-file', toFile, error);
    }
    if (!journals.some((journal) => journal.recipientsDigest === digest)) {
      // Bound by digest: the journals' run names the recipients file it was sent from.
      throw new UsageError(`--to-file ${toFile} is not the recipients file these journals were sent from`);
    }
  }
  const exclude = await checkedExclude(options, journals);
  let kept: ReportRecipient[] = recipients;
  journals.forEach((journal, index) => {
    if (journal.excludeGrew === undefined) return;
    // Its list grew on a --resume: some it names as rejected or unknown may be on it now.
    if (exclude !== undefined && journal.excludeDigest === exclude.digest) kept = leaveOutExcluded(journal, index, kept, (to) => exclude.has(to));
    else {
      ctx.warn(
        `${journal.path}: its --exclude-file grew when the run was resumed, so some of the rejected or unknown it names may be on the list now; ` +
          'give --to-file and --exclude-file (the list it was last resumed with) to leave them out of the owed',
      );
    }
  });
  return { journals, recipients: kept, exclude };
}

/**
 * --exclude-file: the suppression list the send was given, checked against each journal's header
 * (the digest of its set of numbers) before anything is read from the service. A journal sent
 * without one is not touched by it; a journal sent with another list is a usage error, since its
 * owed recipients would be named wrong.
 */
async function checkedExclude(options: ReportOptions, journals: readonly ReportJournal[]): Promise<ExcludeList | undefined> {
  const path = options.excludeFile;
  if (path === undefined) return undefined;
  if (options.toFile === undefined) throw new UsageError('--exclude-file goes with --to-file: it serves to name the recipients not yet sent from that file');
  const exclude = await readExcludeFile(path);
  const withExclusions = journals.filter((journal) => journal.excludeDigest !== undefined);
  if (withExclusions.length === 0) throw new UsageError(`--exclude-file ${path}: none of these journals was sent with an --exclude-file`);
  for (const journal of withExclusions) {
    if (journal.excludeDigest !== exclude.digest) {
      throw new UsageError(`--exclude-file ${path} is not the exclude list ${journal.path} was last sent with (another set of numbers)`);
    }
  }
  return exclude;
}

interface Statuses {
  statuses: Map<string, MessageStatus>;
  /** The accepted messages' ids. */
  ids: string[];
  reads: number;
  /** The deadline (--timeout, or --watch's default) came before every status was final (--watch) or read. */
  timedOut: boolean;
  /** Ids whose status could not be read in the last round (a network or server error, or cut off by the deadline). */
  unread: string[];
}

async function readAllStatuses(ctx: SendContext, options: ReportOptions, recipients: readonly ReportRecipient[]): Promise<Statuses> {
  const { statuses, journalOf } = cachedStatuses(options.journals, recipients);
  const ids = [...journalOf.keys()];
  const reading: StatusReading = { reads: 0, timedOut: false, unread: [] };
  if (ids.length > 0) await readRounds(ctx, options, { ids, statuses, journalOf }, reading);
  const notFound = ids.filter((id) => statuses.get(id)?.notFound === true).length;
  if (notFound > 0) {
    ctx.warn(`${notFound} message${notFound === 1 ? '' : 's'} not known to the service (404): counted unknown for this report, not cached, read again next time`);
  }
  return { statuses, ids, ...reading };
}

/** What the rounds of reads did: their count, whether the deadline cut them short, what stayed unread. */
type StatusReading = Pick<Statuses, 'reads' | 'timedOut' | 'unread'>;

/** The statuses cached beside each journal, and the journal of every accepted message. */
function cachedStatuses(paths: readonly string[], recipients: readonly ReportRecipient[]): { statuses: Map<string, MessageStatus>; journalOf: Map<string, number> } {
  const caches = paths.map((path) => readCache(path));
  const statuses = new Map<string, MessageStatus>();
  const journalOf = new Map<string, number>();
  for (const recipient of recipients) {
    if (recipient.messageId === undefined) continue;
    journalOf.set(recipient.messageId, recipient.journal);
    const cached = caches[recipient.journal]!.get(recipient.messageId);
    if (cached !== undefined) statuses.set(recipient.messageId, cached);
  }
  return { statuses, journalOf };
}

/**
 * Reads the statuses not final yet: once, or with --watch round after round until all are
 * final or the deadline passes. --timeout bounds the whole report's reads, with --watch (default
 * 600 s) or without (no default: each read is bounded by the per-request timeout and its
 * retries). Its signal cuts off the reads in flight, down to the HTTP request, so that the report
 * ends at the deadline.
 */
async function readRounds(
  ctx: SendContext,
  options: ReportOptions,
  known: { ids: readonly string[]; statuses: Map<string, MessageStatus>; journalOf: ReadonlyMap<string, number> },
  reading: StatusReading,
): Promise<void> {
  const { watch } = options;
  const { ids, statuses } = known;
  const timeoutS = options.timeoutS ?? (watch ? DEFAULT_WATCH_TIMEOUT_S : undefined);
  const deadline = timeoutS === undefined ? undefined : ctx.clock.monotonic() + timeoutS * 1000;
  const deadlineSignal = deadline === undefined ? undefined : ctx.clock.timeout(Math.max(0, deadline - ctx.clock.monotonic()));
  const api = await ctx.api();
  const progress = ctx.io.stderrIsTTY ? (done: number, total: number) => ctx.io.stderr.write(`${control('\r\u001b[2K')}Reading statuses: ${done}/${total}`) : undefined;
  for (let round = 0; ; round++) {
    const pending = ids.filter((id) => !isSettled(statuses.get(id)));
    if (pending.length === 0) break;
    if (round > 0) {
      if (!watch || deadline === undefined) break;
      if (!(await waitForNextRound(ctx, deadline, deadlineSignal))) {
        reading.timedOut = true;
        break;
      }
    }
    const result = await readStatuses(api, pending, {
      concurrency: STATUS_CONCURRENCY,
      signal: ctx.signal,
      deadline: deadlineSignal,
      ...(progress ? { onProgress: progress } : {}),
    });
    if (progress) ctx.io.stderr.write(control('\r\u001b[2K'));
    reading.reads += result.reads;
    for (const failure of result.failed) ctx.warn(`cannot read the status of message ${failure.messageId}${watch ? ' (read again next round)' : ''}: ${failure.message}`);
    reading.unread = [...result.failed.map((failure) => failure.messageId), ...result.cutOff];
    keepStatuses(ctx, options.journals, known, result.statuses);
    if (result.cutOff.length > 0) {
      reading.timedOut = true;
      break;
    }
    if (!watch) break;
  }
}

/** Waits out --watch's interval; false when the deadline has come (nothing more is read). */
async function waitForNextRound(ctx: SendContext, deadline: number, deadlineSignal: AbortSignal | undefined): Promise<boolean> {
  const deadlinePassed = (): boolean => deadlineSignal?.aborted === true;
  const left = deadline - ctx.clock.monotonic();
  if (left <= 0 || deadlinePassed()) return false;
  try {
    await ctx.clock.sleep(Math.min(WATCH_INTERVAL_MS, left), ctx.signal);
  } catch (error) {
    if (error instanceof InterruptedError || ctx.signal.aborted) throw new InterruptedError('Stopped watching');
    throw error;
  }
  // The wait ended at the deadline: nothing more is read.
  return !deadlinePassed();
}

/** Takes in the statuses read, and caches the final ones beside their journals. */
function keepStatuses(
  ctx: SendContext,
  paths: readonly string[],
  known: { statuses: Map<string, MessageStatus>; journalOf: ReadonlyMap<string, number> },
  read: readonly MessageStatus[],
): void {
  const newlyFinal: MessageStatus[][] = paths.map(() => []);
  for (const status of read) {
    known.statuses.set(status.messageId, status);
    if (isSettled(status)) newlyFinal[known.journalOf.get(status.messageId)!]!.push(status);
  }
  newlyFinal.forEach((list, index) => {
    try {
      appendCache(paths[index]!, list);
    } catch (error) {
      // Only a cache (statuses are read again next time): the report goes on without it.
      ctx.warn(`${(error as Error).message}; the report goes on without it`);
    }
  });
}

/**
 * --failed-to is written over: it must not be a journal, a journal's statuses cache, the
 * --to-file or the --exclude-file (the same device and inode, or the same resolved path for a
 * file not made yet).
 */
async function checkFailedTo(options: ReportOptions): Promise<void> {
  const target = options.failedTo;
  if (target === undefined) return;
  const identity = async (path: string): Promise<{ dev: number; ino: number } | undefined> => {
    try {
      return await fileIdentity(path);
    } catch {
      return undefined;
    }
  };
  const files: NamedFile[] = [];
  for (const journal of options.journals) {
    files.push({ flag: '--journal', name: journal, identity: await identity(journal) });
    files.push({ flag: 'the statuses cache of --journal', name: cachePath(journal), identity: await identity(cachePath(journal)) });
  }
  if (options.toFile !== undefined) files.push({ flag: '--to-file', name: options.toFile, identity: await identity(options.toFile) });
  if (options.excludeFile !== undefined) files.push({ flag: '--exclude-file', name: options.excludeFile, identity: await identity(options.excludeFile) });
  const same = sameFileAmong(target, await identity(target), files);
  if (same !== undefined) throw new UsageError(`--failed-to ${target} is the same file as ${same.flag} ${same.name}: it would be written over`);
}

/**
 * The recipients not yet sent, by name, when --to-file gives the list: a shard's recipients with
 * no record in its journal. Only for journals whose header leaves no doubt (nothing excluded, or
 * the send's exclude list given with --exclude-file; nobody left out as opted out or of an
 * unknown zone), and no more than each journal counts.
 */
async function namedNotYetSent(
  options: ReportOptions,
  journals: readonly ReportJournal[],
  recipients: readonly ReportRecipient[],
  exclude: ExcludeList | undefined,
  stdin: Readable,
): Promise<NotYetSent[]> {
  const { toFile } = options;
  if (toFile === undefined) return [];
  const digest = await sha256File(toFile);
  // The journal counts those left out as opted out or of an unknown zone, but does not name them:
  // the file's rows it has no record of cannot be told apart from them.
  const known = (journal: ReportJournal): boolean =>
    journal.counts.optedOut === 0 && journal.counts.zoneUnknown === 0 && (journal.counts.excluded === 0 || (exclude !== undefined && journal.excludeDigest === exclude.digest));
  const wanted = journals.map((journal, index) => ({
    journal,
    index,
    left: journal.recipientsDigest === digest && known(journal) ? journal.counts.notYetSent : 0,
    exclude: journal.excludeDigest !== undefined ? exclude : undefined,
  }));
  if (!wanted.some((w) => w.left > 0)) return [];
  const named = journals.map(() => new Set<string>());
  for (const recipient of recipients) named[recipient.journal]!.add(recipient.to);
  const found: NotYetSent[] = [];
  const source = await openInput(toFile, { flag: '--to-file', maxBytes: MAX_RECIPIENTS_BYTES, reread: false, stdin, stdinIsTTY: false });
  try {
    for await (const rows of readRecipientBatches(source)) {
      for (const row of rows) {
        for (const w of wanted) {
          if (w.left === 0 || named[w.index]!.has(row.to) || (w.journal.shard !== null && !inShard(row.to, w.journal.shard)) || w.exclude?.has(row.to) === true) continue;
          named[w.index]!.add(row.to);
          found.push({ to: row.to, journal: w.index });
          w.left--;
        }
      }
    }
  } finally {
    source.close();
  }
  return found;
}

/**
 * The journals, each file once: the same file under another spelling (`a.jsonl`, `./a.jsonl`) or
 * through a link is one journal (the same device and inode; for a path that cannot be read, the
 * same real path), and would otherwise be counted twice. A duplicate is told on stderr.
 */
async function distinctJournals(paths: readonly string[], ctx: SendContext): Promise<string[]> {
  const kept: { path: string; key: string }[] = [];
  for (const path of paths) {
    let key: string;
    try {
      const stats = await stat(path);
      key = `inode:${stats.dev}:${stats.ino}`;
    } catch {
      key = `path:${await realpath(path).catch(() => resolve(path))}`;
    }
    const first = kept.find((journal) => journal.key === key);
    if (first !== undefined) {
      ctx.warn(first.path === path ? `--journal ${path} is given twice: counted once` : `--journal ${path} is the same file as --journal ${first.path}: counted once, the duplicate is ignored`);
      continue;
    }
    kept.push({ path, key });
  }
  return kept.map((journal) => journal.path);
}

/**
 * Without --to-file, --failed-to takes the failed recipients' rows from the recipients file the
 * journals' header names, when it is still that file (its digest): with only the numbers, the
 * same templated send would refuse the list for lack of its columns. Said on stderr either way.
 */
async function journalsToFile(failedTo: string, journals: readonly ReportJournal[], ctx: SendContext): Promise<string | undefined> {
  const named = [...new Set(journals.map((journal) => journal.toFile))];
  if (named.length !== 1 || named[0] === undefined) return undefined;
  const path = named[0];
  const same = sameFileAmong(failedTo, await fileIdentity(failedTo), [{ flag: '--to-file', name: path, identity: await fileIdentity(path) }]);
  if (same !== undefined) throw new UsageError(`--failed-to ${failedTo} is the recipients file the journal names (${path}): it would be written over`);
  let digest: string | undefined;
  try {
    digest = await sha256File(path);
  } catch {
    digest = undefined;
  }
  if (digest === undefined || !journals.some((journal) => journal.recipientsDigest === digest)) {
    ctx.warn(
      `${path}, the recipients file the journal names, is ${digest === undefined ? 'not there to read' : 'not the file the run was sent from any more'}: ` +
        '--failed-to lists the numbers only (give --to-file with the list sent from to keep its columns)',
    );
    return undefined;
  }
  ctx.io.stderr.write(`--failed-to takes the rows and columns of the failed recipients from ${path}, the recipients file the journal names.\n`);
  return path;
}

export async function runReport(given: ReportOptions, ctx: SendContext): Promise<ReportOutcome> {
  const options: ReportOptions = { ...given, journals: await distinctJournals(given.journals, ctx) };
  const paths = options.journals;
  await checkFailedTo(options);
  const { journals, recipients, exclude } = await readJournals(options, ctx);
  const coverage = shardCoverage(journals);
  if (coverage.unrelated.length > 0) {
    ctx.warn(`these journals are of unrelated runs, not the shards of one send: ${coverage.unrelated.join('; ')} differ from ${journals[0]!.path}; their counts are added up as they are`);
  }
  for (const repeated of coverage.repeated) ctx.warn(`shard ${repeated}: more than one journal of that shard, its recipients may be counted twice`);
  if (coverage.missingShards !== null && coverage.missingShards.length > 0) {
    const n = journals[0]!.shard!.n;
    ctx.warn(`shard${coverage.missingShards.length === 1 ? '' : 's'} ${coverage.missingShards.map((k) => `${k}/${n}`).join(', ')} of this send ${coverage.missingShards.length === 1 ? 'is' : 'are'} missing (no journal given): the totals are of the shards given`);
  }
  const { statuses, ids, reads, timedOut, unread } = await readAllStatuses(ctx, options, recipients);
  const notYetSent = await namedNotYetSent(options, journals, recipients, exclude, ctx.io.stdin as Readable);
  const document = buildDocument(journals, recipients, statuses, reads, paths, notYetSent, unread.length, coverage);
  const { failedTo } = options;
  if (failedTo !== undefined) {
    const failed = new Set<string>();
    for (const recipient of recipients) {
      const status = recipient.messageId === undefined ? undefined : statuses.get(recipient.messageId);
      if (recipient.state === 'rejected' || status?.status === 'failed') failed.add(recipient.to);
    }
    const rowsFrom = options.toFile ?? (await journalsToFile(failedTo, journals, ctx));
    const written = await writeFailedTo(failedTo, failed, rowsFrom, ctx.io.stdin as Readable);
    ctx.io.stderr.write(`Wrote ${written} failed recipient${written === 1 ? '' : 's'} to ${failedTo} (svc send --to-file takes it).\n`);
  }
  const notFinalNote = options.watch && timedOut ? 'not all final when --watch timed out' : 'not all final yet, --watch waits';
  await writeReport(ctx, document, recipients, statuses, paths, journals, notYetSent, notFinalNote);
  const notFinal = options.watch ? ids.filter((id) => !isSettled(statuses.get(id))).length : unread.length;
  return { notFinal: timedOut ? notFinal : undefined, unread: unread.length, messages: ids.length };
}
