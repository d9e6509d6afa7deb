import { createHash } from 'node:crypto';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { VERSION } from '../version.js';
import { JournalFormatError, JournalWriter, readJournal, runDifferences, type JournalExclude, type JournalOwnCounts, type JournalRun, type JournalState, type UnknownChoice } from './journal.js';
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
 * This run's own recipients (the list less other shards and --exclude-file) and those excluded,
 * for a new journal's header: `svc send report` counts who is still owed from them. With a
 * filter it takes a pass over the list (the cost's, made once; no journal skips in a new run).
 */
export async function ownCounts(plan: SendPlan, cost: () => Promise<BodyStats>): Promise<JournalOwnCounts> {
  if (!recipientFilterOf(plan, undefined).active) return { recipients: plan.to?.length ?? plan.toFile!.check.recipients, excluded: 0 };
  const stats = await cost();
  return { recipients: stats.recipients + stats.skipped, excluded: stats.excluded };
}

/** The writer of this run's journal, continuing the one read by resumeFrom or starting it (with `own` in its header). */
export function openJournal(plan: SendPlan, resumed: Resumed, own?: JournalOwnCounts): JournalWriter {
  const path = plan.journal!;
  try {
    // The results of one event-loop turn go in one write (see JournalWriter's batchResults).
    return resumed.state.exists
      ? JournalWriter.resume(resumed.state, resumed.unknown ?? 'none', { batchResults: true, fsyncIntervalMs: JOURNAL_FSYNC_INTERVAL_MS })
      : JournalWriter.create(path, resumed.run, { svc: VERSION, shard: plan.pace.shard, own, exclude: excludeOf(plan), batchResults: true, fsyncIntervalMs: JOURNAL_FSYNC_INTERVAL_MS });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`Cannot open the journal ${path} for appending: ${code === 'ENOENT' ? 'no such directory' : String(code ?? error)}`);
  }
}

/**
 * Reads --journal: refuses one that is damaged, not a journal, or of another run; without
 * --resume, refuses to write over one; with it, skips the accepted recipients and settles what
 * happens to those whose outcome is unknown (--unknown, or a question on a terminal).
 */
export async function resumeFrom(plan: SendPlan, ctx: Context): Promise<Resumed | undefined> {
  if (plan.journal === undefined) return undefined;
  const path = plan.journal;
  const run = runOf(plan);
  let state: JournalState;
  try {
    state = await readJournal(path);
  } catch (error) {
    if (error instanceof JournalFormatError) {
      throw new UsageError(error.message, ['Nothing was sent. Give the journal of this run, or a new --journal file.']);
    }
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`Cannot read the journal ${path}: ${code === 'EISDIR' ? 'is a directory' : String(code ?? error)}`);
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
  const excludeProblem = excludeDifferenceOf(state.header!.exclude, plan);
  if (excludeProblem !== undefined) {
    throw new UsageError(`${path} was written with an --exclude-file: ${excludeProblem}`, [
      'Nothing was sent. Resume with the same --exclude-file (the same numbers), so that nobody who opted out is sent to.',
    ]);
  }
  if (differences.length > 0) {
    throw new UsageError(`${path} is the journal of another run: ${differences.join('; ')}`, [
      'Nothing was sent. Resume with the same --from, body, recipients and media, or give a new --journal file.',
    ]);
  }
  const { counts } = state;
  if (state.torn !== undefined) ctx.warn(`${path}:${state.torn.line}: a record cut short (the run was stopped while writing it); counted as in flight`);
  let unknown = plan.unknown;
  if (counts.unknown > 0 && unknown === undefined && !plan.dryRun) {
    const question =
      `${counts.unknown} recipient${counts.unknown === 1 ? ' has' : 's have'} an unknown outcome ` +
      `(${counts.inFlight} in flight when the run stopped, ${counts.unknown - counts.inFlight} with an unreadable answer): ` +
      'the service may already have sent them the message.';
    if (ctx.io.canPrompt && !plan.yes) {
      const prompter = await ctx.prompter();
      unknown = (await prompter.confirm(`${question} Send to them again?`, false)) ? 'resend' : 'skip';
    } else {
      throw new UsageError(`${question} Choose with --unknown resend (they may get it twice) or --unknown skip (they may not get it)`);
    }
  }
  const notes = [`${counts.accepted} recipients already accepted are skipped`];
  if (counts.rejected > 0) notes.push(`${counts.rejected} rejected earlier are sent again`);
  if (counts.unknown > 0) {
    notes.push(
      unknown === 'resend'
        ? `${counts.unknown} with an unknown outcome are sent again (--unknown resend)`
        : unknown === 'skip'
          ? `${counts.unknown} with an unknown outcome are skipped (--unknown skip)`
          : `${counts.unknown} with an unknown outcome are left out until --unknown chooses`,
    );
  }
  ctx.io.stderr.write(`Resuming from ${path}: ${notes.join('; ')}.\n`);
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
  };
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

/**
 * A resumed run must leave out the numbers its journal's run left out: without the exclude file
 * (or with another one), people who opted out would be sent to.
 */
function excludeDifferenceOf(written: JournalExclude | undefined, plan: SendPlan): string | undefined {
  if (written === undefined) return undefined;
  const given = plan.pace.exclude;
  if (given === undefined) return `${written.numbers} number${written.numbers === 1 ? '' : 's'} left out, and this run gives no --exclude-file`;
  if (given.list.digest !== written.digest) {
    return `its ${written.numbers} number${written.numbers === 1 ? '' : 's'} left out are not those of --exclude-file ${given.path} (${given.list.size})`;
  }
  return undefined;
}
