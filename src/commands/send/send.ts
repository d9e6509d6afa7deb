import type { CommandInput } from '../spec.js';
import type { Context } from '../../context.js';
import { createHash } from 'node:crypto';
import { CliError, ExitCode, stopExitCode, UsageError } from '../../errors.js';
import { messageOutcome, sendMessage, type SendAnswer, type SendMessageRequest } from '../../api/messages.js';
import { uploadMedia } from '../../api/media.js';
import { runBulk, type BulkRequest, type BulkSummary } from '../../send/engine.js';
import { formatDuration } from '../../send/progress-line.js';
import { Pacer, type PaceEvent } from '../../send/pace/pacer.js';
import { createSendProgress, describeWait, type SendProgress } from '../../send/progress.js';
import { RecipientFilter } from '../../send/pace/filter.js';
import { readNumberRateLimit } from '../../send/pace/number-rate.js';
import { effectiveRate } from '../../send/pace/token-bucket.js';
import { throttleOf } from '../../send/pace/throttle.js';
import {
  JournalFormatError,
  JournalWriter,
  readJournal,
  runDifferences,
  type JournalRun,
  type JournalState,
  type UnknownChoice,
} from '../../send/journal.js';
import { readRecipientBatches } from '../../send/recipients.js';
import { VERSION } from '../../version.js';
import { describeSize } from '../media/media-file.js';
import { planSend, type SendPlan } from '../../send/plan.js';
import { bodyStats, type BodyStats, type SkipRecipient } from '../../send/stats.js';
import { checkSendFields, createResultPrinter } from '../../send/results.js';
import { writeObject } from '../../output/render.js';
import { sentRecorderFor } from '../../events/records.js';

/** Bytes of the recipients file read per batch of requests (see requests()). */
const SEND_BATCH_BYTES = 8 * 1024;
/**
 * The journal's fsync (for a power cut; a killed process loses nothing written) runs every 100
 * results and at most every 200 ms: hundreds a second made the appends wait behind the disk.
 */
const JOURNAL_FSYNC_INTERVAL_MS = 200;
import { askSendInputs, confirmBigSend, fromNumberHints } from './ask.js';
import { DeclinedError } from '../../output/ask.js';

/** The service advises async sending beyond this many recipients. */
export const ASYNC_ADVISED_ABOVE = 100;

export async function run(given: CommandInput, ctx: Context): Promise<number> {
  // A misspelt --fields is exit 2 before any question or request (a dry run checks its own document).
  if (!given.flag('dryRun')) checkSendFields(ctx.globals.fields);
  const input = await askSendInputs(given, ctx);
  const plan = await planSend(input, ctx);
  try {
    return await sendPlanned(plan, ctx);
  } finally {
    plan.close();
  }
}

async function sendPlanned(plan: SendPlan, ctx: Context): Promise<number> {
  const journalRun = plan.journal !== undefined ? runOf(plan) : undefined;
  const resumed = plan.journal !== undefined ? await loadJournal(plan, journalRun!, ctx) : undefined;
  const skip = resumed?.skip;
  const confirmed = await confirmBigSend(plan, ctx, skip);

  if (plan.dryRun) {
    const stats = await bodyStats(plan, skip);
    await writeDryRun(ctx, plan, stats, resumed);
    return ExitCode.Ok;
  }

  const isAsync = await confirmSend(plan, ctx, skip, confirmed);

  const api = await ctx.api();
  if (plan.toFile !== undefined) api.preferThroughput();
  // Opened before any upload: a journal that cannot be written is a usage error (exit 2), and
  // that must come before the first request, not after the media went up.
  const journal = plan.journal !== undefined ? openJournal(plan.journal, journalRun!, resumed!, plan.pace.shard) : undefined;
  const mediaUrls = [...plan.mediaUrls];
  try {
    for (const file of plan.mediaFiles) {
      const uploaded = await uploadMedia(api, file, { number: plan.from, tenantId: plan.tenant }, 'auto', (why) => ctx.debug(`media upload: ${why}`));
      ctx.debug(`uploaded ${file.path} as ${uploaded.url}`);
      mediaUrls.push(uploaded.url);
    }
  } catch (error) {
    await journal?.close();
    throw error;
  }

  const recorder = sentRecorderFor(ctx); // what was sent, for svc thread and svc events (the event store)
  const bulk = plan.toFile !== undefined;
  // Read once before sending: the number's own cap, per second (decisions.md).
  const numberRate = bulk ? await readNumberRateLimit(api, plan.from, (line) => ctx.debug(line)) : undefined;
  const started = ctx.clock.now();
  let skipped = 0;
  let progress: SendProgress | undefined;
  const total = plan.to !== undefined ? 1 : plan.toFile!.check.recipients;
  if (bulk) {
    progress = createSendProgress({ stream: ctx.io.stderr, isTTY: ctx.io.stderrIsTTY, columns: ctx.io.columns, total, now: () => ctx.clock.now() });
  }
  const filter = new RecipientFilter(plan.pace.exclude?.list, plan.pace.shard);
  const onPaceEvent = (event: PaceEvent): void => {
    // Journaled, so that the journal shows why the run went quiet; nothing is in flight across
    // the pause but what was launched before it, and that is journaled as it ends.
    if (event.type === 'window-closed') journal?.pause('window', { window: event.windowText, until: new Date(event.opensAt) });
    if (progress !== undefined) progress.event(event);
    else ctx.io.stderr.write(`${describeWait(event)}\n`);
  };
  // A single --to request is paced too: a throttle to it is waited out, not a failure (the
  // contract's `svc send`), within the same --max-stall.
  const pacer = new Pacer({
    clock: ctx.clock,
    concurrency: bulk ? plan.concurrency : 1,
    ratePerSecond: effectiveRate(plan.pace.rate, numberRate),
    maxStallMs: plan.pace.maxStallMs,
    window: plan.pace.window,
    onEvent: onPaceEvent,
  });
  const printer = createResultPrinter(ctx, { bulk, beforeTerminalLine: () => progress?.clear() });
  const counts = { accepted: 0, failed: 0, skipped: 0 };
  let recipientsAccepted = 0;
  const recipientsFailed: string[] = [];

  const payloadFor = (to: string[], body: string): SendMessageRequest =>
    mediaUrls.length > 0 ? { from: plan.from, to, body, mediaUrls } : { from: plan.from, to, body };

  async function* requests(): AsyncGenerator<BulkRequest<SendMessageRequest>[]> {
    if (plan.to !== undefined) {
      const remaining = plan.to.filter((to) => !skip?.(to));
      skipped = plan.to.length - remaining.length;
      if (remaining.length > 0) yield [{ to: remaining, payload: payloadFor(remaining, plan.body) }];
      return;
    }
    // The check read the same bytes: when it found no number listed twice, the send does not
    // build the duplicate index again (memory at a million recipients, issue 10).
    const findDuplicates = plan.toFile!.check.duplicateCount > 0;
    // Small batches: a batch's rows and payloads live until its last request leaves, and a
    // 64 KB batch (some 2,500 requests) lived long enough for V8 to move it to the old
    // generation, whose growth then followed the file's length (peak RSS at a million).
    for await (const rows of readRecipientBatches(plan.toFile!.source, { findDuplicates, highWaterMark: SEND_BATCH_BYTES })) {
      const batch: BulkRequest<SendMessageRequest>[] = [];
      for (const row of rows) {
        if (filter.active && !filter.admits(row.to)) {
          counts.skipped = skipped + filter.excluded + filter.otherShards;
          continue;
        }
        if (skip?.(row.to)) {
          skipped++;
          counts.skipped = skipped + filter.excluded + filter.otherShards;
          continue;
        }
        batch.push({ to: [row.to], payload: payloadFor([row.to], plan.template.render(row.fields)) });
      }
      if (batch.length > 0) yield batch;
    }
  }

  let summary: BulkSummary;
  try {
    summary = await runBulk({
      requests: requests(),
      send: (request, cutOff) =>
        sendMessage(api, request.payload, { isAsync, finishOnInterrupt: true, signal: cutOff }).then((answer) => {
          recorder?.add(answer, plan.from, request.to, request.payload.body);
          return answer;
        }),
      concurrency: bulk ? plan.concurrency : 1,
      journal,
      signal: ctx.signal,
      sleep: (ms, signal) => ctx.clock.sleep(ms, signal),
      onResult(result) {
        if (result.outcome === 'accepted') {
          counts.accepted++;
          recipientsAccepted += result.to.length;
          for (const to of failedRecipientsIn(result.answer, result.to)) recipientsFailed.push(to);
        } else counts.failed++;
        printer.add(result);
        progress?.update(counts);
      },
      ready: () => printer.ready(),
      pace: { pacer, throttleOf },
    });
  } finally {
    progress?.clear();
    await journal?.close();
    await recorder?.close();
  }
  await printer.end();

  const failed = summary.rejected + summary.unknown;
  if (bulk || plan.journal !== undefined || summary.interrupted) {
    writeSummary(ctx, plan, summary, skipped, ctx.clock.now() - started, filter);
  }
  if (summary.interrupted) return stopExitCode(ctx.signal);
  if (failed === 0 && recipientsFailed.length > 0) {
    // Accepted requests whose answer says some recipients failed: they are journaled as accepted
    // (sending again could reach the others twice), but the exit code tells the truth.
    const shown = recipientsFailed.slice(0, 5).join(', ') + (recipientsFailed.length > 5 ? `, and ${recipientsFailed.length - 5} more` : '');
    if (recipientsFailed.length < recipientsAccepted) {
      ctx.warn(`the service reports ${recipientsFailed.length} of ${recipientsAccepted} recipients failed: ${shown}`);
      return ExitCode.Partial;
    }
    throw new CliError(`The service accepted the send but reports every recipient failed: ${shown}`, ExitCode.Failure);
  }
  if (failed === 0) return ExitCode.Ok;
  if (summary.accepted > 0) return ExitCode.Partial;
  const first = summary.firstFailure!;
  const message = summary.requests === 1 ? first.error.message : `All ${summary.requests} requests failed; the first: ${first.error.message}`;
  throw new CliError(message, first.exitCode, {
    hints: fromNumberHints(plan.from, first.error),
    status: first.error.status,
    ...(first.error.title !== null ? { title: first.error.title } : {}),
    ...(first.error.errorCode !== null ? { errorCode: first.error.errorCode } : {}),
  });
}

/** Recipients that an accepted request's answer already reports as failed (a synchronous send). */
export function failedRecipientsIn(answer: SendAnswer, to: readonly string[]): string[] {
  const messages = answer['messages'];
  if (Array.isArray(messages)) {
    return messages
      .filter((m): m is Record<string, unknown> => typeof m === 'object' && m !== null)
      .filter((m) => typeof m['status'] === 'string' && messageOutcome({ status: m['status'] }) === 'failed')
      .map((m) => (typeof m['to'] === 'string' ? m['to'] : '(unnamed recipient)'));
  }
  return typeof answer['status'] === 'string' && messageOutcome({ status: answer['status'] }) === 'failed' ? [...to] : [];
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

interface Resumed {
  state: JournalState;
  /** The choice for unknown recipients (undefined when there are none, or only counted by a dry run). */
  unknown: UnknownChoice | undefined;
  skip: SkipRecipient | undefined;
}

function openJournal(path: string, journalRun: JournalRun, resumed: Resumed, shard: SendPlan['pace']['shard']): JournalWriter {
  try {
    // The results of one event-loop turn go in one write (see JournalWriter's batchResults).
    return resumed.state.exists
      ? JournalWriter.resume(resumed.state, resumed.unknown ?? 'none', { batchResults: true, fsyncIntervalMs: JOURNAL_FSYNC_INTERVAL_MS })
      : JournalWriter.create(path, journalRun, { svc: VERSION, shard, batchResults: true, fsyncIntervalMs: JOURNAL_FSYNC_INTERVAL_MS });
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
async function loadJournal(plan: SendPlan, journalRun: JournalRun, ctx: Context): Promise<Resumed> {
  const path = plan.journal!;
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
    return { state, unknown: undefined, skip: undefined };
  }
  if (state.lastSeq === 0) {
    // A header and nothing else: that run stopped before its first request (a failed upload, a
    // declined question). Nothing was sent under it, so it is started afresh.
    if (plan.resume) ctx.warn(`${path} records no request yet: nothing to resume, every recipient is sent to`);
    return { state: { ...state, exists: false }, unknown: undefined, skip: undefined };
  }
  if (!plan.resume) {
    throw new UsageError(`${path} already holds the journal of a run: continue it with --resume, or give a new --journal file`);
  }
  const differences = runDifferences(state.header!.run, journalRun);
  const shardDifference = shardDifferenceOf(state.header!.shard, plan.pace.shard);
  if (shardDifference !== undefined) differences.push(shardDifference);
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
    state,
    unknown,
    skip: (to) => {
      const recipientState = state.stateOf(to);
      return recipientState === 'accepted' || (skipUnknown && recipientState === 'unknown');
    },
  };
}

/** A journal resumed under another --shard would send to recipients of another machine's shard. */
function shardDifferenceOf(written: { k: number; n: number } | undefined, given: { k: number; n: number } | undefined): string | undefined {
  if (written?.k === given?.k && written?.n === given?.n) return undefined;
  const describe = (shard: { k: number; n: number } | undefined): string => (shard === undefined ? 'no --shard' : `shard ${shard.k}/${shard.n}`);
  return `it was written for ${describe(written)}, this run is ${describe(given)}`;
}

function describeEncoding(stats: BodyStats): string {
  if (stats.encoding === 'GSM-7') return 'GSM-7';
  const listed = stats.nonGsmCharacters.map((c) => JSON.stringify(c)).join(' ');
  return `UCS-2 (because of ${listed || 'characters outside GSM-7'})`;
}

function costLine(stats: BodyStats): string {
  const each = stats.templated ? `up to ${stats.characters} characters, up to ${stats.segments}` : `${stats.characters} characters, ${stats.segments}`;
  return `${each} segment${stats.segments === 1 ? '' : 's'} per message in ${describeEncoding(stats)}; ${stats.totalSegments} segment${stats.totalSegments === 1 ? '' : 's'} in total for ${stats.recipients} recipient${stats.recipients === 1 ? '' : 's'}`;
}

/**
 * On a terminal: shows what a long or UCS-2 message costs, offers --async beyond 100 recipients,
 * and asks before sending (unless --yes). Elsewhere: a warning where --async is advised.
 */
async function confirmSend(plan: SendPlan, ctx: Context, skip: SkipRecipient | undefined, confirmed: boolean): Promise<boolean> {
  let isAsync = plan.isAsync;
  const recipients = plan.to !== undefined ? plan.to.length : plan.toFile!.check.recipients;
  const ask = ctx.io.canPrompt && !plan.yes;
  let shown = false;
  if (ctx.io.stderrIsTTY) {
    const stats = await bodyStats(plan, skip);
    if (stats.segments > 1 || stats.encoding === 'UCS-2') {
      ctx.io.stderr.write(`This message is ${costLine(stats)}.\n`);
      shown = true;
    }
  }
  if (recipients > ASYNC_ADVISED_ABOVE && !isAsync) {
    if (ask) {
      const prompter = await ctx.prompter();
      isAsync = await prompter.confirm(`${recipients} recipients: send asynchronously (--async, advised beyond ${ASYNC_ADVISED_ABOVE})?`, true);
    } else {
      ctx.warn(`--async is advised beyond ${ASYNC_ADVISED_ABOVE} recipients (${recipients} here)`);
    }
  }
  if (shown && ask && !confirmed) {
    const prompter = await ctx.prompter();
    if (!(await prompter.confirm('Send it?', true))) throw new DeclinedError();
  }
  return isAsync;
}

async function writeDryRun(ctx: Context, plan: SendPlan, stats: BodyStats, resumed: Resumed | undefined): Promise<void> {
  const unknown = resumed?.state.exists === true ? resumed.state.counts.unknown : 0;
  const media = [
    ...plan.mediaUrls.map((url) => ({ url })),
    ...plan.mediaFiles.map((file) => ({ file: file.path, contentType: file.contentType, bytes: file.bytes.length })),
  ];
  const document = {
    requests: stats.requests,
    recipients: stats.recipients,
    encoding: stats.encoding,
    segments: stats.segments,
    characters: stats.characters,
    media,
    totalSegments: stats.totalSegments,
    nonGsmCharacters: stats.nonGsmCharacters,
    ...(plan.resume ? { skipped: stats.skipped, unknown } : {}),
    ...(plan.pace.exclude !== undefined ? { excluded: stats.excluded } : {}),
    ...(plan.pace.shard !== undefined ? { shard: { k: plan.pace.shard.k, n: plan.pace.shard.n }, otherShards: stats.otherShards } : {}),
  };
  if (ctx.globals.output !== 'table' || (ctx.globals.fields !== undefined && ctx.globals.fields.length > 0)) {
    // With --fields, the table is the selected fields of the same document.
    if (ctx.globals.output === 'table') ctx.io.stderr.write('Dry run: nothing was sent.\n');
    await writeObject(ctx, document);
    return;
  }
  const lines = [
    'Dry run: nothing was sent.',
    `requests    ${stats.requests}`,
    `recipients  ${stats.recipients}${plan.resume ? ` (${stats.skipped} skipped: accepted in ${plan.journal}${unknown > 0 && resumed?.unknown !== 'resend' ? `, or of unknown outcome (${unknown})` : ''})` : ''}`,
    ...(plan.pace.exclude !== undefined ? [`excluded    ${stats.excluded} (on ${plan.pace.exclude.path})`] : []),
    ...(plan.pace.shard !== undefined ? [`shard       ${plan.pace.shard.k}/${plan.pace.shard.n} (${stats.otherShards} recipients belong to the other shards)`] : []),
    `encoding    ${describeEncoding(stats)}`,
    `characters  ${stats.templated ? 'up to ' : ''}${stats.characters}`,
    `segments    ${stats.templated ? 'up to ' : ''}${stats.segments} per message, ${stats.totalSegments} in total`,
    `media       ${media.length === 0 ? 'none' : media.map((m) => ('url' in m ? m.url : `${m.file} (${m.contentType}, ${describeSize(m.bytes)})`)).join(', ')}`,
  ];
  ctx.io.stdout.write(`${lines.join('\n')}\n`);
}

function writeSummary(ctx: Context, plan: SendPlan, summary: BulkSummary, skipped: number, elapsedMs: number, filter: RecipientFilter): void {
  const rate = elapsedMs > 0 ? Math.round((summary.requests * 1000) / elapsedMs) : summary.requests;
  const parts = [`${summary.accepted} accepted`];
  if (summary.rejected > 0) parts.push(`${summary.rejected} failed`);
  if (summary.unknown > 0) parts.push(`${summary.unknown} without an answer (the service may have sent them)`);
  if (skipped > 0) parts.push(`${skipped} skipped (as the journal says)`);
  if (filter.excluded > 0) parts.push(`${filter.excluded} excluded (--exclude-file)`);
  if (filter.otherShards > 0) parts.push(`${filter.otherShards} left to the other shards`);
  if (summary.throttleRetries > 0) parts.push(`${summary.throttleRetries} throttle ${summary.throttleRetries === 1 ? 'retry' : 'retries'}`);
  const head = summary.interrupted ? 'Interrupted after' : 'Sent';
  ctx.io.stderr.write(
    `${head} ${summary.requests} request${summary.requests === 1 ? '' : 's'} in ${formatDuration(elapsedMs)} (${rate}/s): ${parts.join(', ')}.\n`,
  );
  if (summary.stalled) {
    ctx.io.stderr.write(
      `Gave up: the service kept throttling and nothing was accepted for ${Math.round(plan.pace.maxStallMs / 1000)} s (--max-stall); the throttled recipients are recorded as rejected and nothing more was sent.\n`,
    );
  }
  if (summary.requests === 0 && skipped > 0) ctx.io.stderr.write('Nothing left to send: the journal shows every recipient accepted (or skipped by choice).\n');
  const failed = summary.rejected + summary.unknown;
  if ((summary.interrupted || summary.stalled || failed > 0) && plan.journal !== undefined) {
    const choose = summary.unknown > 0 ? ` and --unknown resend|skip for the ${summary.unknown} without an answer` : '';
    ctx.io.stderr.write(`To send to everyone not yet accepted, run the same command with --resume${choose} (journal: ${plan.journal}).\n`);
  } else if ((summary.interrupted || failed > 0) && plan.toFile !== undefined) {
    ctx.io.stderr.write('With --journal FILE, a run can be resumed without sending anyone twice.\n');
  }
}
