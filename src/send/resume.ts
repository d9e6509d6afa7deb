import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import type { SendContext } from './send-context.js';
import { CliError, ExitCode, UsageError } from '../errors.js';
import { cannotCreate, cannotRead, cannotWrite } from '../input/file-errors.js';
import type { JournalSink } from './bulk-types.js';
import { lockFileSync, LockHeldError, type FileLock } from '../domain/files/lock.js';
import { VERSION } from '../version.js';
import { proseText } from '../output/wrap-lines.js';
import { formatAmount } from './cost/money.js';
import { JournalFormatError, type JournalBudgetStop, type JournalExclude, type JournalOwnCounts, type JournalRecord, type JournalRun, type UnknownChoice } from './journal/format.js';
import { JournalWriter } from './journal/writer.js';
import { readJournal, type JournalState } from './journal/replay.js';
import { runDifferences } from './journal/differences.js';
import { checkExcludeRecord, excludeRecordPath, removeExcludeRecord, writeExcludeRecord, type ExcludeRecordBinding } from './pace/exclude-record.js';
import type { SendPlan } from './plan.js';
import { recipientFilterOf, type BodyStats, type SkipRecipient } from './stats.js';

// The write-ahead journal of a send, before the first request: what the run is bound to, what an
// existing journal says (refused when damaged, of another run, or not asked to be resumed), who is
// skipped on --resume, and the writer the engine appends to.

/**
 * The journal's fsync (for a power cut; a killed process loses nothing written) runs every 100
 * results and at most every 200 ms: hundreds a second made the appends wait behind the disk.
 */
const JOURNAL_FSYNC_INTERVAL_MS = 200;

/** What --journal says before the run (undefined without --journal). */
export interface Resumed {
  /** What this run's journal is bound to. */
  run: JournalRun;
  state: JournalState;
  /** The choice for unknown recipients (undefined when there are none, or only counted by a dry run). */
  unknown: UnknownChoice | undefined;
  skip: SkipRecipient | undefined;
  /**
   * A resumed run whose --exclude-file holds numbers its journal's record of the list lacks (or
   * a journal with no record yet): the record is written again with this run's list before the
   * first request, so that a later --resume leaves those out too.
   */
  recordExclude?: ExcludeRecordBinding;
  /** The journal's lock, released when the send ends (none for a dry run). */
  lock?: FileLock;
  /**
   * This run's list, when it is not the one the journal keeps to (it has grown, or the journal had
   * none): the `resume` record carries it, so that the journal itself says what a later --resume
   * must leave out, whatever becomes of the record beside it.
   */
  grownExclude?: JournalExclude;
  /**
   * Recipients the journal holds as rejected or of unknown outcome who are on the opt-out list
   * now: the `resume` record names them, so that a report counts them as opted out and not also
   * as owed.
   */
  optedOutSince?: string[];
}

function sha256(text: string | Buffer): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

/** What this run's journal is bound to (see JournalRun). */
function runOf(plan: SendPlan): JournalRun {
  const recipients = plan.toFile !== undefined ? `sha256:${plan.toFile.check.sha256}` : sha256(plan.to!.join('\n'));
  const recipientCount = plan.toFile !== undefined ? plan.toFile.check.recipients : plan.to!.length;
  return {
    from: plan.from,
    body: sha256(plan.body),
    recipients,
    recipientCount,
    media: [...plan.mediaUrls, ...plan.mediaFiles.map((file) => sha256(file.bytes))],
  };
}

/**
 * This run's own recipients (the list less other shards, --exclude-file, the opted out and those
 * of a time zone it cannot tell) and those left out by each of the last three, for a new journal's header: `svc send report` counts who is still owed from them. With a
 * filter it takes a pass over the list (the cost's, made once; no journal skips in a new run).
 */
export async function ownCounts(plan: SendPlan, cost: () => Promise<BodyStats>): Promise<JournalOwnCounts> {
  if (!recipientFilterOf(plan, undefined).active) return { recipients: plan.to?.length ?? plan.toFile!.check.recipients, excluded: 0 };
  // Counted as the check read the file: no second pass.
  const counted = plan.toFile?.admitted;
  if (counted !== undefined) return { recipients: counted.admittedCount, excluded: counted.excluded, optedOut: counted.optedOut, zoneUnknown: counted.zoneUnknown };
  const stats = await cost();
  return { recipients: stats.recipients + stats.skipped, excluded: stats.excluded, optedOut: stats.optedOut, zoneUnknown: stats.zoneUnknown };
}

/**
 * The journal as the run writes it: a write that fails (a full disk, a file size limit) is an
 * error naming the journal (exit 1) and saying how to go on, not the system's bare code.
 */
export class RunJournal implements JournalSink {
  constructor(
    private readonly writer: JournalWriter,
    readonly path: string,
  ) {}

  private failure(error: unknown): CliError {
    return cannotWrite('the journal', this.path, error, [
      'The run stopped there; every answer before it is in the journal. Once the journal can be written, run the same command with --resume to send to everyone not yet accepted.',
    ]);
  }

  launch(requests: readonly { readonly to: readonly string[] }[]): number[] {
    try {
      return this.writer.launch(requests);
    } catch (error) {
      throw this.failure(error);
    }
  }

  result(seq: number, record: JournalRecord): void {
    try {
      this.writer.result(seq, record);
    } catch (error) {
      throw this.failure(error);
    }
  }

  throttled(seq: number, record: JournalRecord): void {
    try {
      this.writer.throttled(seq, record);
    } catch (error) {
      throw this.failure(error);
    }
  }

  stop(details: Omit<JournalBudgetStop, 'at'>): void {
    try {
      this.writer.stop(details);
    } catch (error) {
      throw this.failure(error);
    }
  }

  pause(reason: string, details: { window: string; until: Date }): void {
    try {
      this.writer.pause(reason, details);
    } catch (error) {
      throw this.failure(error);
    }
  }

  async close(): Promise<void> {
    try {
      await this.writer.close();
    } catch (error) {
      throw this.failure(error);
    }
  }
}

/**
 * The writer of this run's journal, continuing the one read by resumeFrom or starting it (with
 * `own` in its header), and the record of its exclude list beside it (see exclude-record.ts).
 */
export function openJournal(plan: SendPlan, resumed: Resumed, own?: JournalOwnCounts): RunJournal {
  // Before anything is written: a list that grew goes into the resume record with its counts.
  const path = plan.journal!;
  const list = plan.pace.exclude?.list;
  try {
    // Before the journal: a journal whose run has started always has its list's record beside it.
    if (!resumed.state.exists) {
      if (list !== undefined) writeExcludeRecord(path, { run: resumed.run, base: list.digest }, list);
      else removeExcludeRecord(path);
    } else if (resumed.recordExclude !== undefined && list !== undefined) {
      writeExcludeRecord(path, resumed.recordExclude, list);
    }
  } catch (error) {
    throw cannotCreate("the record of --exclude-file beside the journal,", excludeRecordPath(path), error, ['Nothing was sent.']);
  }
  try {
    // The results of one event-loop turn go in one write (see JournalWriter's batchResults).
    const writer = resumed.state.exists
      ? JournalWriter.resume(resumed.state, resumed.unknown ?? 'none', {
          batchResults: true,
          fsyncIntervalMs: JOURNAL_FSYNC_INTERVAL_MS,
          ...(resumed.grownExclude !== undefined ? { exclude: resumed.grownExclude } : {}),
          ...(own !== undefined ? { own } : {}),
          ...(resumed.optedOutSince !== undefined ? { optedOutSince: resumed.optedOutSince } : {}),
        })
      : JournalWriter.create(path, resumed.run, {
          svc: VERSION,
          shard: plan.pace.shard,
          own,
          exclude: excludeOf(plan),
          toFile: plan.toFile !== undefined && plan.toFile.path !== '-' ? resolve(plan.toFile.path) : undefined,
          batchResults: true,
          fsyncIntervalMs: JOURNAL_FSYNC_INTERVAL_MS,
        });
    return new RunJournal(writer, path);
  } catch (error) {
    throw cannotCreate('--journal', path, error, ['Nothing was sent.']);
  }
}

/**
 * Reads --journal: refuses one that is damaged, not a journal, or of another run; without
 * --resume, refuses to write over one; with it, skips the accepted recipients and settles what
 * happens to those whose outcome is unknown (--unknown, or a question on a terminal).
 */
export async function resumeFrom(plan: SendPlan, ctx: SendContext): Promise<Resumed | undefined> {
  if (plan.journal === undefined) return undefined;
  // Held from before the journal is read until the run ends: a second run on the same journal
  // (two sends, or two --resume of one run) would send to everyone left twice. A dry run writes
  // nothing and takes no lock.
  const lock = plan.dryRun ? undefined : lockJournal(plan.journal);
  try {
    const resumed = await readResumed(plan, ctx, plan.journal);
    return lock === undefined ? resumed : { ...resumed, lock };
  } catch (error) {
    lock?.release();
    throw error;
  }
}

/** The journal's lock, or the error naming who holds it (exit 1: the same command works once that run ends). */
function lockJournal(path: string): FileLock {
  try {
    return lockFileSync(path, { command: 'svc send' });
  } catch (error) {
    if (!(error instanceof LockHeldError)) throw cannotCreate('--journal', path, error, ['Nothing was sent.']);
    const holder = error.holder;
    if (holder === undefined) {
      throw new CliError(`The journal ${path} is locked, but its lock file ${error.lockPath} does not say by whom`, ExitCode.Failure, {
        hints: [`Nothing was sent. If no svc is sending with this journal, remove ${error.lockPath}.`],
      });
    }
    const where = error.remote ? ` on ${holder.host}` : '';
    const since = holder.since === '' ? '' : ` since ${holder.since}`;
    throw new CliError(`The journal ${path} is in use by another svc: process ${holder.pid}${where} (${holder.command ?? 'svc'})${since}`, ExitCode.Failure, {
      hints: [
        'Nothing was sent. Wait for that run to end, or stop it: two runs on one journal would send to everyone left twice.',
        ...(error.remote ? [`Its host cannot be checked from here; if that run is over, remove ${error.lockPath}.`] : []),
      ],
    });
  }
}

async function readResumed(plan: SendPlan, ctx: SendContext, path: string): Promise<Resumed> {
  const run = runOf(plan);
  let state: JournalState;
  try {
    // A real run reads under the lock taken above, where a damaged line can only be damage; a dry
    // run takes none, and a send may be writing the journal as it reads.
    state = await readJournal(path, { lockHeld: !plan.dryRun });
  } catch (error) {
    if (error instanceof JournalFormatError) {
      throw new UsageError(error.message, ['Nothing was sent. Give the journal of this run, or a new --journal file.']);
    }
    throw cannotRead('--journal', path, error);
  }
  if (!state.exists) {
    if (plan.resume) ctx.warn(`${path} does not exist yet: nothing to resume, every recipient is sent to`);
    return { run, state, unknown: undefined, skip: undefined };
  }
  if (state.lastSeq === 0) {
    // A header and nothing else: that run stopped before its first request (a failed upload, a
    // declined question). Nothing was sent under it, so it is started afresh.
    if (plan.resume) ctx.warn(`${path} records no request yet: nothing to resume, every recipient is sent to`);
    return { run, state: { ...state, exists: false }, unknown: undefined, skip: undefined };
  }
  if (!plan.resume) {
    throw new UsageError(`${path} already holds the journal of a run: continue it with --resume, or give a new --journal file`);
  }
  const differences = runDifferences(state.header!.run, run);
  const shardDifference = shardDifferenceOf(state.header!.shard, plan.pace.shard);
  if (shardDifference !== undefined) differences.push(shardDifference);
  if (differences.length > 0) {
    throw new UsageError(`${path} is the journal of another run: ${differences.join('; ')}`, [
      'Nothing was sent. Resume with the same --from, body, recipients and media, or give a new --journal file.',
    ]);
  }
  checkBudgetOnResume(state, plan);
  const recordExclude = await checkExcludeOnResume(state, plan, ctx);
  if (state.torn?.damaged === true) {
    // Only a dry run gets here (it reads without the lock): the resume itself refuses such a line.
    ctx.warn(`${path}:${state.torn.line}: the last record is damaged and is not counted; without --dry-run the send refuses this journal`);
  } else if (state.torn !== undefined) {
    ctx.warn(`${path}:${state.torn.line}: a record cut short (the run was stopped while writing it); counted as in flight`);
  }

  const { counts } = state;
  const now = leftOutNow(state, plan);
  const { nowExcluded, nowOptedOut } = now;
  const list = plan.pace.exclude?.list;
  const unknownGone = nowExcluded.unknown + nowOptedOut.unknown;
  const unknownLeft = counts.unknown - unknownGone;
  let unknown = plan.unknown;
  if (unknownLeft > 0 && unknown === undefined && !plan.dryRun) {
    const why =
      unknownGone === 0
        ? `${counts.inFlight} in flight when the run stopped, ${counts.unknown - counts.inFlight} with an unreadable answer`
        : `in flight when the run stopped, or an unreadable answer; ${unknownGone} more ${isAre(unknownGone)} opted out or on --exclude-file now and never sent again`;
    const question = `${unknownLeft} recipient${unknownLeft === 1 ? ' has' : 's have'} an unknown outcome (${why}): the service may already have sent them the message.`;
    if (ctx.io.canPrompt && !plan.yes) {
      const prompter = await ctx.prompter();
      unknown = (await prompter.confirm(`${question} Send to them again?`, false)) ? 'resend' : 'skip';
    } else {
      throw new UsageError(`${question} Choose with --unknown resend (they may get it twice) or --unknown skip (they may not get it)`);
    }
  }
  ctx.io.stderr.write(await proseText([`Resuming from ${path}: ${resumeNotes(counts, now, unknown, plan).join('; ')}.`], { isTTY: ctx.io.stderrIsTTY, columns: ctx.io.columns, stream: ctx.io.stderr }));
  const skipUnknown = unknown !== 'resend';
  return {
    run,
    state,
    unknown,
    skip: (to) => {
      const recipientState = state.stateOf(to);
      if (recipientState === 'accepted') return 'accepted';
      return skipUnknown && recipientState === 'unknown' ? 'unknown' : undefined;
    },
    ...(recordExclude !== undefined ? { recordExclude } : {}),
    ...(list !== undefined && list.size > 0 && list.digest !== state.exclude?.digest ? { grownExclude: { digest: list.digest, numbers: list.size } } : {}),
    ...(now.optedOutSince.length > 0 ? { optedOutSince: now.optedOutSince } : {}),
  };
}

/** Those the journal names, not accepted, whom this run leaves out all the same, by state and reason. */
interface LeftOutNow {
  /** On --exclude-file now (and not opted out). */
  nowExcluded: { rejected: number; unknown: number };
  /** On the opt-out list now: opting out is the reason that binds, as the recipient filter has it. */
  nowOptedOut: { rejected: number; unknown: number };
  /** The numbers of `nowOptedOut`, for the resume record. */
  optedOutSince: string[];
}

function leftOutNow(state: JournalState, plan: SendPlan): LeftOutNow {
  const now: LeftOutNow = { nowExcluded: { rejected: 0, unknown: 0 }, nowOptedOut: { rejected: 0, unknown: 0 }, optedOutSince: [] };
  const list = plan.pace.exclude?.list;
  const optOuts = plan.optOuts !== undefined && plan.optOuts.lookup.size > 0 ? plan.optOuts.lookup : undefined;
  if ((list === undefined && optOuts === undefined) || state.counts.rejected + state.counts.unknown === 0) return now;
  state.forEachRecipient((to, recipientState) => {
    if (recipientState === 'accepted') return;
    if (optOuts?.has(to)) {
      now.nowOptedOut[recipientState]++;
      now.optedOutSince.push(to);
    } else if (list?.has(to)) now.nowExcluded[recipientState]++;
  });
  return now;
}

/**
 * A run that --budget stopped goes on only with a larger budget: without one the rest would be
 * sent with no limit at all (money spent that nobody chose), and with one no larger the run would
 * stop again before its first request.
 */
function checkBudgetOnResume(state: JournalState, plan: SendPlan): void {
  const stop = state.budgetStop;
  if (stop === undefined) return;
  const money = (amount: number): string => formatAmount(amount, stop.currency);
  const stoppedAt = `${state.path}: the run stopped at its budget of ${money(stop.budget)} (${money(stop.spent)} spent; the message to ${stop.to} would have cost ${money(stop.next)} more)`;
  const hint = `Nothing was sent. To go on, give --resume a --budget above ${money(stop.budget)} (with --prices): what the run spent counts towards it.`;
  if (plan.budget === undefined) throw new UsageError(`${stoppedAt}; resuming without --budget would send to the rest with no limit`, [hint]);
  if (plan.budget <= stop.budget) {
    throw new UsageError(`--budget ${formatAmount(plan.budget, stop.currency)} is not above the budget the run stopped at: ${stoppedAt}`, [hint]);
  }
}

/** `1 is`, `2 are`. */
function isAre(count: number): string {
  return count === 1 ? 'is' : 'are';
}

/**
 * What a resumed run does with each recipient the journal names, by its state there: the
 * accepted are skipped (already sent); the rejected are sent again; the unknown are sent again or
 * skipped as --unknown says; any of the last two opted out or on --exclude-file now are not sent at all.
 */
function resumeNotes(counts: JournalState['counts'], now: LeftOutNow, unknown: UnknownChoice | undefined, plan: SendPlan): string[] {
  const { nowExcluded, nowOptedOut } = now;
  const notes = [`${counts.accepted} recipient${counts.accepted === 1 ? '' : 's'} already accepted ${isAre(counts.accepted)} skipped`];
  const rejected = counts.rejected - nowExcluded.rejected - nowOptedOut.rejected;
  if (rejected > 0) notes.push(`${rejected} rejected earlier ${isAre(rejected)} sent again`);
  const unknownLeft = counts.unknown - nowExcluded.unknown - nowOptedOut.unknown;
  if (unknownLeft > 0) {
    notes.push(
      unknown === 'resend'
        ? `${unknownLeft} with an unknown outcome ${isAre(unknownLeft)} sent again (--unknown resend)`
        : unknown === 'skip'
          ? `${unknownLeft} with an unknown outcome ${isAre(unknownLeft)} skipped (--unknown skip)`
          : `${unknownLeft} with an unknown outcome ${isAre(unknownLeft)} left out until --unknown chooses`,
    );
  }
  const optedOut = nowOptedOut.rejected + nowOptedOut.unknown;
  if (optedOut > 0) notes.push(`${optedOut} rejected or of unknown outcome earlier ${optedOut === 1 ? 'has' : 'have'} opted out since, and ${isAre(optedOut)} not sent`);
  const excluded = nowExcluded.rejected + nowExcluded.unknown;
  if (excluded > 0) {
    notes.push(`${excluded} rejected or of unknown outcome earlier ${isAre(excluded)} on --exclude-file ${plan.pace.exclude!.path} now, and not sent`);
  }
  return notes;
}

/** A journal resumed under another --shard would send to recipients of another machine's shard. */
function shardDifferenceOf(written: { k: number; n: number } | undefined, given: { k: number; n: number } | undefined): string | undefined {
  if (written?.k === given?.k && written?.n === given?.n) return undefined;
  const describe = (shard: { k: number; n: number } | undefined): string => (shard === undefined ? 'no --shard' : `shard ${shard.k}/${shard.n}`);
  return `it was written for ${describe(written)}, this run is ${describe(given)}`;
}

/** The --exclude-file's set as the journal header records it. */
function excludeOf(plan: SendPlan): JournalExclude | undefined {
  const list = plan.pace.exclude?.list;
  return list === undefined ? undefined : { digest: list.digest, numbers: list.size };
}

function numbersText(count: number): string {
  return `${count} number${count === 1 ? '' : 's'}`;
}

/**
 * A resumed run must leave out every number its journal's run left out: without the exclude
 * file, or with one that lost numbers, people who opted out would be sent to. A list that holds
 * every one of them and more (numbers added since, people who opted out in the meantime) is
 * taken, checked against the record of the list beside the journal (exclude-record.ts). A journal
 * without one (written by an earlier svc) keeps only its list's digest: it is resumed only with
 * the same numbers. Returns the record to write before sending, when this run's list is longer
 * (or the journal has no record yet).
 */
async function checkExcludeOnResume(state: JournalState, plan: SendPlan, ctx: SendContext): Promise<ExcludeRecordBinding | undefined> {
  const path = state.path;
  // The list the run keeps to now: the header's, or the one a resume grew it to (the journal's own
  // record of it: the file beside the journal is checked against it, never trusted instead of it).
  const written = state.exclude;
  const given = plan.pace.exclude;
  // The record is bound to the journal's run and to the list its header started with.
  const binding: ExcludeRecordBinding = { run: state.header!.run, base: state.header!.exclude?.digest ?? 'none' };
  const recordPath = excludeRecordPath(path);
  const refuse = (problem: string, hint: string): never => {
    throw new UsageError(`${path} was written with an --exclude-file: ${problem}`, [`Nothing was sent. ${hint}`]);
  };
  const keepAll = 'Resume with an --exclude-file that holds every number the run left out (numbers added since are fine), so that nobody who opted out is sent to.';
  let record: Awaited<ReturnType<typeof checkExcludeRecord>>;
  try {
    record = await checkExcludeRecord(path, binding, given?.list);
  } catch (error) {
    throw cannotRead("the journal's --exclude-file record", recordPath, error);
  }
  if (record.kind === 'damaged') {
    throw new UsageError(`${recordPath} (the record of the journal's --exclude-file) is damaged: ${record.why}`, [
      'Nothing was sent: the numbers the run left out cannot be known from it.',
    ]);
  }
  if (record.kind === 'read' && written !== undefined && record.digest !== written.digest) {
    // Not the list the journal last recorded: a record left from before (the journal moved or
    // restored without it), or one written just before a crash stopped the resume record.
    record = { kind: 'other', why: `its ${numbersText(record.numbers)} are not the list of ${written.numbers} the journal last recorded` } as const;
  }
  if (record.kind === 'read') {
    if (record.numbers === 0) return given !== undefined && given.list.size > 0 ? binding : undefined;
    if (given === undefined) return refuse(`${numbersText(record.numbers)} left out, and this run gives no --exclude-file`, keepAll);
    if (record.missing > 0) {
      const shown = record.examples.join(', ') + (record.missing > record.examples.length ? ', ...' : '');
      return refuse(
        `--exclude-file ${given.path} lacks ${record.missing} of the ${numbersText(record.numbers)} the run left out (${shown}): ${record.missing === 1 ? 'that one' : 'those'} would be sent to`,
        keepAll,
      );
    }
    return given.list.size > record.numbers ? binding : undefined;
  }
  if (record.kind === 'other') ctx.warn(`${recordPath} is not this journal's record of its --exclude-file (${record.why}): not used`);
  // No record: the journal's header is all there is.
  if (written === undefined) return given !== undefined ? binding : undefined;
  if (given === undefined) return refuse(`${numbersText(written.numbers)} left out, and this run gives no --exclude-file`, keepAll);
  // The same numbers: taken, and recorded from now on, so that a later --resume can take a longer list.
  if (given.list.digest === written.digest) return binding;
  return refuse(
    `its ${numbersText(written.numbers)} left out are not those of --exclude-file ${given.path} (${given.list.size}), and the journal keeps only their digest ` +
      `(${recordPath}, which would list them, is ${record.kind === 'absent' ? 'missing: an earlier svc did not write one, or the journal was moved without it' : `not usable: ${record.why}`}), so whether ${given.path} holds every one of them cannot be told`,
    'Resume with the same numbers as the run was last sent with (the same --exclude-file); only a journal with its record beside it can take a list that has grown.',
  );
}
