import type { CommandInput } from '../spec.js';
import type { Context } from '../../context.js';
import { CliError, ExitCode, UsageError } from '../../errors.js';
import { messageOutcome, sendMessage, type SendAnswer, type SendMessageRequest } from '../../api/messages.js';
import { uploadMedia } from '../../api/media.js';
import { runBulk, type BulkRequest, type BulkSummary } from '../../bulk/engine.js';
import { createProgressLine, formatDuration, type ProgressLine } from '../../bulk/progress.js';
import { JournalWriter, readJournal, type AcceptedRecipients } from '../../send/journal.js';
import { readRecipientBatches } from '../../send/recipients.js';
import { describeSize } from '../media/media-file.js';
import { planSend, type SendPlan } from './plan.js';
import { bodyStats, type BodyStats } from './stats.js';
import { createResultPrinter } from './output.js';
import { askSendInputs, confirmBigSend, fromNumberHints } from './ask.js';
import { DeclinedError } from '../../output/ask.js';

/** The service advises async sending beyond this many recipients. */
export const ASYNC_ADVISED_ABOVE = 100;

/** Beyond this many recipients, a send trades a little speed for memory that stays flat. */
const LONG_SEND_RECIPIENTS = 20_000;

export async function run(given: CommandInput, ctx: Context): Promise<number> {
  const input = await askSendInputs(given, ctx);
  const plan = await planSend(input, ctx);
  const accepted = plan.resume ? await loadJournal(plan.journal!, ctx) : undefined;
  const confirmed = await confirmBigSend(plan, ctx, accepted);

  if (plan.dryRun) {
    const stats = await bodyStats(plan, accepted);
    await writeDryRun(ctx, plan, stats);
    return ExitCode.Ok;
  }

  const isAsync = await confirmSend(plan, ctx, accepted, confirmed);

  const api = await ctx.api();
  if (plan.toFile !== undefined) {
    api.preferThroughput();
    // A long bulk send allocates at a steady rate for as long as the file lasts; left alone, V8
    // keeps growing the heap between collections and peak memory follows the file's length
    // (bench/send.mjs: +30% peak RSS from 10,000 to 100,000 recipients; with this, +3%). It costs
    // some throughput in more frequent collections, so short sends, whose peak is small anyway,
    // are left at full speed.
    if (plan.toFile.check.recipients > LONG_SEND_RECIPIENTS) {
      (await import('node:v8')).setFlagsFromString('--optimize-for-size');
    }
  }
  // Opened before any upload: a journal that cannot be written is a usage error (exit 2), and
  // that must come before the first request, not after the media went up.
  const journal = plan.journal !== undefined ? openJournal(plan.journal) : undefined;
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

  const bulk = plan.toFile !== undefined;
  const started = ctx.clock.now();
  let skipped = 0;
  let progress: ProgressLine | undefined;
  const total = plan.to !== undefined ? 1 : plan.toFile!.check.recipients;
  if (bulk && ctx.io.stderrIsTTY) progress = createProgressLine(ctx.io.stderr, total, () => ctx.clock.now(), ctx.io.columns);
  const printer = createResultPrinter(ctx, { bulk, beforeTerminalLine: () => progress?.clear() });
  const counts = { accepted: 0, failed: 0, skipped: 0 };
  let recipientsAccepted = 0;
  const recipientsFailed: string[] = [];

  const payloadFor = (to: string[], body: string): SendMessageRequest =>
    mediaUrls.length > 0 ? { from: plan.from, to, body, mediaUrls } : { from: plan.from, to, body };

  async function* requests(): AsyncGenerator<BulkRequest<SendMessageRequest>[]> {
    if (plan.to !== undefined) {
      const remaining = plan.to.filter((to) => !accepted?.has(to));
      skipped = plan.to.length - remaining.length;
      if (remaining.length > 0) yield [{ to: remaining, payload: payloadFor(remaining, plan.body) }];
      return;
    }
    for await (const rows of readRecipientBatches(plan.toFile!.path)) {
      const batch: BulkRequest<SendMessageRequest>[] = [];
      for (const row of rows) {
        if (accepted?.has(row.to)) {
          skipped++;
          counts.skipped = skipped;
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
      send: (request) => sendMessage(api, request.payload, { isAsync, finishOnInterrupt: true }),
      concurrency: bulk ? plan.concurrency : 1,
      journal,
      signal: ctx.signal,
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
    });
  } finally {
    progress?.clear();
    await journal?.close();
  }
  await printer.end();

  const failed = summary.rejected + summary.unknown;
  if (bulk || plan.journal !== undefined || summary.interrupted) {
    writeSummary(ctx, plan, summary, skipped, ctx.clock.now() - started);
  }
  if (summary.interrupted) return ExitCode.Interrupted;
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

function openJournal(path: string): JournalWriter {
  try {
    return JournalWriter.open(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`Cannot open the journal ${path} for appending: ${code === 'ENOENT' ? 'no such directory' : String(code ?? error)}`);
  }
}

async function loadJournal(path: string, ctx: Context): Promise<AcceptedRecipients> {
  let journal;
  try {
    journal = await readJournal(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`Cannot read the journal ${path}: ${code === 'EISDIR' ? 'is a directory' : String(code ?? error)}`);
  }
  if (!journal.exists) {
    ctx.warn(`${path} does not exist yet: nothing to resume, every recipient is sent to`);
    return journal.accepted;
  }
  for (const torn of journal.tornLines.slice(0, 3)) ctx.warn(`${path}:${torn.line}: not a journal entry (a write cut short?), ignored`);
  const unknownNote =
    journal.unknown > 0
      ? `; ${journal.unknown} recorded as unknown (no answer came back; the service may have sent them) are sent again`
      : '';
  const rejectedNote = journal.rejected > 0 ? `; ${journal.rejected} rejected earlier are sent again` : '';
  ctx.io.stderr.write(`Resuming from ${path}: ${journal.accepted.size} recipients already accepted are skipped${rejectedNote}${unknownNote}.\n`);
  return journal.accepted;
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
async function confirmSend(plan: SendPlan, ctx: Context, accepted: AcceptedRecipients | undefined, confirmed: boolean): Promise<boolean> {
  let isAsync = plan.isAsync;
  const recipients = plan.to !== undefined ? plan.to.length : plan.toFile!.check.recipients;
  const ask = ctx.io.canPrompt && !plan.yes;
  let shown = false;
  if (ctx.io.stderrIsTTY) {
    const stats = await bodyStats(plan, accepted);
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

async function writeDryRun(ctx: Context, plan: SendPlan, stats: BodyStats): Promise<void> {
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
    ...(plan.resume ? { skipped: stats.skipped } : {}),
  };
  if (ctx.globals.output !== 'table') {
    ctx.io.stdout.write(ctx.globals.output === 'json' ? `${JSON.stringify(document, null, 2)}\n` : `${JSON.stringify(document)}\n`);
    return;
  }
  const lines = [
    'Dry run: nothing was sent.',
    `requests    ${stats.requests}`,
    `recipients  ${stats.recipients}${plan.resume ? ` (${stats.skipped} skipped: accepted in ${plan.journal})` : ''}`,
    `encoding    ${describeEncoding(stats)}`,
    `characters  ${stats.templated ? 'up to ' : ''}${stats.characters}`,
    `segments    ${stats.templated ? 'up to ' : ''}${stats.segments} per message, ${stats.totalSegments} in total`,
    `media       ${media.length === 0 ? 'none' : media.map((m) => ('url' in m ? m.url : `${m.file} (${m.contentType}, ${describeSize(m.bytes)})`)).join(', ')}`,
  ];
  ctx.io.stdout.write(`${lines.join('\n')}\n`);
}

function writeSummary(ctx: Context, plan: SendPlan, summary: BulkSummary, skipped: number, elapsedMs: number): void {
  const rate = elapsedMs > 0 ? Math.round((summary.requests * 1000) / elapsedMs) : summary.requests;
  const parts = [`${summary.accepted} accepted`];
  if (summary.rejected > 0) parts.push(`${summary.rejected} failed`);
  if (summary.unknown > 0) parts.push(`${summary.unknown} without an answer (the service may have sent them)`);
  if (skipped > 0) parts.push(`${skipped} skipped (accepted in an earlier run)`);
  const head = summary.interrupted ? 'Interrupted after' : 'Sent';
  ctx.io.stderr.write(
    `${head} ${summary.requests} request${summary.requests === 1 ? '' : 's'} in ${formatDuration(elapsedMs)} (${rate}/s): ${parts.join(', ')}.\n`,
  );
  if (summary.requests === 0 && skipped > 0) ctx.io.stderr.write('Nothing left to send: every recipient was accepted in an earlier run.\n');
  const failed = summary.rejected + summary.unknown;
  if ((summary.interrupted || failed > 0) && plan.journal !== undefined) {
    ctx.io.stderr.write(`To send to everyone not yet accepted, run the same command with --resume (journal: ${plan.journal}).\n`);
  } else if ((summary.interrupted || failed > 0) && plan.toFile !== undefined) {
    ctx.io.stderr.write('With --journal FILE, a run can be resumed without sending anyone twice.\n');
  }
}
