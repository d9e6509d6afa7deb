import type { SendContext } from './send-context.js';
import { messageOutcome, sendMessage, type SendAnswer, type SendMessageRequest } from '../api/messages.js';
import { uploadMedia } from '../api/media.js';
import { openSentRecorder, sentRecorderFor, type SentRecorder } from '../events/records.js';
import type { ApiClient } from '../api/http.js';
import { runBulk } from './engine.js';
import type { BulkHold, BulkRequest, BulkResult, BulkSummary } from './bulk-types.js';
import type { RecipientFilter } from './pace/filter.js';
import type { RecipientWindows } from './pace/recipient-window.js';
import { readNumberRateLimit } from './pace/number-rate.js';
import { Pacer, type PaceEvent } from './pace/pacer.js';
import { throttleOf } from './pace/throttle.js';
import { effectiveRate } from './pace/token-bucket.js';
import type { SendPlan } from './plan.js';
import { createSendProgress, describeWait, type SendProgress } from './progress.js';
import { readRecipientBatches } from './recipients.js';
import { createResultPrinter, type ResultPrinter } from './results.js';
import { openJournal, ownCounts, type Resumed, type RunJournal } from './resume.js';
import type { JournalOwnCounts } from './journal/format.js';
import { recipientFilterOf, recipientsOfRun, toRecipients, type BodyStats } from './stats.js';
import { writeSummary } from './summary.js';
import { UsageError } from '../errors.js';
import { BudgetGate } from './cost/budget.js';
import { proseTextWith } from '../output/wrap-lines.js';
import { widthRuleFor, type WidthRule } from '../output/width.js';

// The sending stage of a send: the media go up, the requests stream from the plan's recipients
// (less those the journal, --exclude-file or --shard leave out) through the paced engine, each
// result is journaled, printed and recorded, and the run ends with its summary on stderr.

/** Bytes of the recipients file read per batch of requests (see requests()). */
const SEND_BATCH_BYTES = 8 * 1024;

/** What a finished (or interrupted) send did, for its exit code. */
export interface SendOutcome {
  summary: BulkSummary;
  /** Recipients of accepted requests. */
  recipientsAccepted: number;
  /** Recipients that accepted requests' answers already report as failed. */
  recipientsFailed: string[];
}

export async function runSend(
  plan: SendPlan,
  ctx: SendContext,
  options: { isAsync: boolean; resumed: Resumed | undefined; cost: () => Promise<BodyStats> },
): Promise<SendOutcome> {
  const { isAsync, resumed, cost } = options;
  const skip = resumed?.skip;
  const budget = await budgetGateFor(plan, cost);
  const api = await ctx.api();
  if (plan.toFile !== undefined) api.preferThroughput(plan.concurrency);
  // Opened before any upload: a journal that cannot be written is a usage error (exit 2), and
  // that must come before the first request, not after the media went up.
  const own = await ownCountsToRecord(plan, resumed, cost);
  const journal = resumed !== undefined ? openJournal(plan, resumed, own) : undefined;
  if (budget !== undefined && journal !== undefined) {
    // Recorded where it happens: `send report` shows why the run stopped, and --resume what it must give to go on.
    budget.onStop = (stop) => journal.stop({ reason: 'budget', ...stop, ...(plan.prices?.currency !== undefined ? { currency: plan.prices.currency } : {}) });
  }
  const bulk = plan.toFile !== undefined;
  // Who this run sends to: the --to numbers or the file's, less other shards, --exclude-file
  // and --resume skips, each counted by reason (the same filter for --to and --to-file).
  const filter = recipientFilterOf(plan, skip);
  const toRemaining = plan.to !== undefined ? toRecipients(plan, filter) : undefined;
  const total = bulk ? await closingOnError(journal, () => recipientsOfRun(plan, skip, cost, filter)) : 1;
  // Everyone left out (excluded, already accepted): nothing goes to the service, not even the media.
  const nothingToSend = bulk ? total === 0 : toRemaining!.length === 0;
  const mediaUrls = await closingOnError(journal, () => uploadAll(plan, ctx, api, nothingToSend ? [] : plan.mediaFiles));

  // What was sent, for svc thread and svc events: into --store DIR, none with --no-store, else the default store.
  const recorder = plan.store === false ? undefined : plan.store !== undefined ? openSentRecorder(plan.store, (message) => ctx.warn(message)) : sentRecorderFor(ctx);
  // Read once before sending: the number's own cap, per second (docs/decisions.md#throttling).
  const numberRate = bulk && !nothingToSend ? await readNumberRateLimit(api, plan.from, (line) => ctx.debug(line)) : undefined;
  const started = ctx.clock.monotonic();
  const progress: SendProgress | undefined = bulk
    ? createSendProgress({ stream: ctx.io.stderr, isTTY: ctx.io.stderrIsTTY, columns: ctx.io.columns, total, now: () => ctx.clock.monotonic() })
    : undefined;
  const pacer = pacerFor(plan, ctx, { bulk, numberRate, journal, progress });
  const printer = createResultPrinter(ctx, { bulk, beforeTerminalLine: () => progress?.clear() });
  const tally = new SendTally(plan, recorder, printer, progress);
  const payloadFor = (to: string[], body: string): SendMessageRequest =>
    mediaUrls.length > 0 ? { from: plan.from, to, body, mediaUrls } : { from: plan.from, to, body };

  let summary: BulkSummary;
  try {
    summary = await runBulk({
      requests: toRemaining !== undefined ? toRequests(plan, toRemaining, budget, payloadFor) : fileRequests(plan, filter, budget, tally.counts, payloadFor),
      send: (request, cutOff) => sendMessage(api, request.payload, { isAsync, finishOnInterrupt: true, signal: cutOff }),
      concurrency: bulk ? plan.concurrency : 1,
      journal,
      signal: ctx.signal,
      sleep: (ms, signal) => ctx.clock.sleep(ms, signal),
      onResult: (result, request) => tally.add(result, request),
      ready: () => printer.ready(),
      pace: { pacer, throttleOf },
      hold: plan.recipientWindows !== undefined ? holdOutsideWindows(plan.recipientWindows, ctx, { journal, progress, lineRule: await widthRuleFor([]) }) : undefined,
    });
  } finally {
    progress?.clear();
    // Both end with an fsync: side by side, the run waits for the disk once instead of twice.
    await Promise.all([journal?.close(), recorder?.close()]);
  }
  await printer.end();

  if (bulk || plan.journal !== undefined || summary.interrupted || filter.leftOut > 0 || budget?.stop !== undefined) {
    await writeSummary(ctx, plan, summary, ctx.clock.monotonic() - started, filter, budget);
  }
  return { summary, recipientsAccepted: tally.recipientsAccepted, recipientsFailed: tally.recipientsFailed };
}

/**
 * The run's own counts, when the journal is to record them: a new journal's header; a resume
 * record when the exclude list has grown, or when the counts differ from what the journal last
 * said (someone opted out or back in since, --ignore-optouts now sends to those left out before,
 * the time zones are told otherwise), so that a report counts them as left out and not as owed.
 * A resumed run takes a pass over its list anyway (who is left), so this costs no extra read.
 */
async function ownCountsToRecord(plan: SendPlan, resumed: Resumed | undefined, cost: () => Promise<BodyStats>): Promise<JournalOwnCounts | undefined> {
  if (resumed === undefined) return undefined;
  if (!resumed.state.exists || resumed.grownExclude !== undefined) return ownCounts(plan, cost);
  const own = await ownCounts(plan, cost);
  const last = resumed.state.own;
  const same =
    last !== undefined &&
    last.recipients === own.recipients &&
    last.excluded === own.excluded &&
    (last.optedOut ?? 0) === (own.optedOut ?? 0) &&
    (last.zoneUnknown ?? 0) === (own.zoneUnknown ?? 0);
  return same ? undefined : own;
}

/** A budget is kept only over a cost that is known: every recipient must have a price. */
async function budgetGateFor(plan: SendPlan, cost: () => Promise<BodyStats>): Promise<BudgetGate | undefined> {
  if (plan.budget === undefined || plan.prices === undefined) return undefined;
  const unpriced = (await cost()).cost?.unpriced;
  if (unpriced !== undefined && unpriced.recipients > 0) {
    throw new UsageError(
      `--budget: ${unpriced.recipients} recipient${unpriced.recipients === 1 ? ' is' : 's are'} in ${unpriced.countries.join(', ')}, which ${plan.prices.path} gives no price for`,
      ['Nothing was sent. Add their countries, or a * line for every other country, to the prices file.'],
    );
  }
  return new BudgetGate(plan.budget, plan.prices);
}

/** Runs a step before the first request; when it fails the journal is closed (not left open). */
async function closingOnError<T>(journal: RunJournal | undefined, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    await journal?.close();
    throw error;
  }
}

/** Uploads the media files; the URLs to send, after the --media-url ones. */
async function uploadAll(plan: SendPlan, ctx: SendContext, api: ApiClient, files: SendPlan['mediaFiles']): Promise<string[]> {
  const mediaUrls = [...plan.mediaUrls];
  for (const file of files) {
    const uploaded = await uploadMedia(api, file, { number: plan.from, tenantId: plan.tenant }, 'auto', (why) => ctx.debug(`media upload: ${why}`));
    ctx.debug(`uploaded ${file.path} as ${uploaded.url}`);
    mediaUrls.push(uploaded.url);
  }
  return mediaUrls;
}

/**
 * The run's pace. A single --to request is paced too: a throttle to it is waited out, not a
 * failure (the contract's `svc send`), within the same --max-stall.
 */
function pacerFor(
  plan: SendPlan,
  ctx: SendContext,
  run: { bulk: boolean; numberRate: number | undefined; journal: RunJournal | undefined; progress: SendProgress | undefined },
): Pacer {
  const { journal, progress } = run;
  const onPaceEvent = (event: PaceEvent): void => {
    // Journaled, so that the journal shows why the run went quiet; nothing is in flight across
    // the pause but what was launched before it, and that is journaled as it ends.
    // The record's window is `09:00-20:00 America/New_York`, as the journal format in docs/sending.md shows it.
    if (event.type === 'window-closed' && plan.pace.window !== undefined) {
      const { text, timeZone } = plan.pace.window.window;
      journal?.pause('window', { window: `${text} ${timeZone}`, until: new Date(event.opensAt) });
    }
    if (progress !== undefined) progress.event(event);
    else ctx.io.stderr.write(`${describeWait(event)}\n`);
  };
  return new Pacer({
    clock: ctx.clock,
    concurrency: run.bulk ? plan.concurrency : 1,
    ratePerSecond: effectiveRate(plan.pace.rate, run.numberRate),
    maxStallMs: plan.pace.maxStallMs,
    window: plan.pace.window,
    onEvent: onPaceEvent,
  });
}

/**
 * Each recipient's own quiet hours (--tz-column, --tz auto): a group whose window is closed is
 * held until it opens while the others are sent; each wait is journaled and shown.
 */
function holdOutsideWindows(
  source: RecipientWindows,
  ctx: SendContext,
  run: { journal: RunJournal | undefined; progress: SendProgress | undefined; lineRule: WidthRule },
): BulkHold<SendMessageRequest> {
  const { journal, progress } = run;
  return {
    now: () => ctx.clock.now(),
    until: (request, now) => {
      const group = source.group(request.zone!);
      if (group === undefined || group.isOpen(now)) return undefined;
      return { key: group.key, at: group.nextOpening(now) ?? now + 86_400_000 };
    },
    onHold: (key, at) => {
      const group = source.group(key)!;
      journal?.pause('recipient window', { window: `${source.hours.text} ${key}`, until: new Date(at) });
      const line = `Holding the recipients in ${group.zones.join(', ')} until their window ${source.hours.text} opens (${group.describe(at)}); sending the others meanwhile.`;
      progress?.clear();
      // Zone names, hours and dates: ASCII, which the rule loaded before the run measures.
      ctx.io.stderr.write(proseTextWith(run.lineRule, [line], { isTTY: ctx.io.stderrIsTTY, columns: ctx.io.columns, stream: ctx.io.stderr }));
    },
  };
}

type PayloadFor = (to: string[], body: string) => SendMessageRequest;

/** One request for every --to recipient: within the budget whole, or not sent. */
async function* toRequests(
  plan: SendPlan,
  toRemaining: string[],
  budget: BudgetGate | undefined,
  payloadFor: PayloadFor,
): AsyncGenerator<BulkRequest<SendMessageRequest>[]> {
  if (toRemaining.length === 0) return;
  if (budget !== undefined) {
    const admitted = toRemaining.filter((to) => budget.admits(to, plan.body));
    if (admitted.length < toRemaining.length) {
      budget.held = toRemaining.length;
      return;
    }
  }
  yield [{ to: toRemaining, payload: payloadFor(toRemaining, plan.body) }];
}

/** The file's requests, in batches: those the filter and the budget let through, each rendered. */
async function* fileRequests(
  plan: SendPlan,
  filter: RecipientFilter,
  budget: BudgetGate | undefined,
  counts: { skipped: number },
  payloadFor: PayloadFor,
): AsyncGenerator<BulkRequest<SendMessageRequest>[]> {
  const windows = plan.recipientWindows;
  // The check read the same bytes: when it found no number listed twice, the send does not
  // build the duplicate index again (memory at a million recipients).
  const findDuplicates = plan.toFile!.check.duplicateCount > 0;
  // Small batches: a batch's rows and payloads live until its last request leaves, and a
  // 64 KB batch (some 2,500 requests) lived long enough for V8 to move it to the old
  // generation, whose growth then followed the file's length (peak RSS at a million).
  for await (const rows of readRecipientBatches(plan.toFile!.source, { findDuplicates, highWaterMark: SEND_BATCH_BYTES })) {
    const batch: BulkRequest<SendMessageRequest>[] = [];
    for (const row of rows) {
      if (filter.active) {
        const skippedBefore = filter.skipped;
        if (!filter.admits(row.to, row.fields)) {
          // Sent by an earlier run (or maybe sent): its cost is part of what the run has spent.
          if (budget !== undefined && filter.skipped > skippedBefore) budget.sentBefore(row.to, plan.template.render(row.fields));
          counts.skipped = filter.leftOut;
          continue;
        }
      }
      const body = plan.template.render(row.fields);
      // Past the budget nothing more is launched; the rest of the file is read to count them.
      if (budget !== undefined && !budget.admits(row.to, body)) continue;
      // One array for the request and its payload (neither is changed once made).
      const to = [row.to];
      if (windows !== undefined) batch.push({ to, payload: payloadFor(to, body), zone: windows.groupOf(row.to, row.fields)!.key });
      else batch.push({ to, payload: payloadFor(to, body) });
    }
    if (batch.length > 0) yield batch;
  }
}

/** Each result as it comes: recorded for svc thread, counted, printed and shown on the progress line. */
class SendTally {
  readonly counts = { accepted: 0, failed: 0, skipped: 0 };
  recipientsAccepted = 0;
  readonly recipientsFailed: string[] = [];

  constructor(
    private readonly plan: SendPlan,
    private readonly recorder: SentRecorder | undefined,
    private readonly printer: ResultPrinter,
    private readonly progress: SendProgress | undefined,
  ) {}

  add(result: BulkResult, request: BulkRequest<SendMessageRequest>): void {
    if (result.outcome === 'accepted') {
      this.recorder?.add(result.answer, this.plan.from, request.to, request.payload.body);
      this.counts.accepted++;
      this.recipientsAccepted += result.to.length;
      const failed = failedRecipientsIn(result.answer, result.to);
      for (let i = 0; i < failed.length; i++) this.recipientsFailed.push(failed[i]!);
    } else this.counts.failed++;
    this.printer.add(result);
    this.progress?.update(this.counts);
  }
}

const NONE_FAILED: readonly string[] = Object.freeze([]);

/** The verdict on the last status seen: a bulk send's answers all say `queued` (no trim, lower-casing and regex each). */
let lastStatus: { status: string; failed: boolean } | undefined;

function statusFailed(status: string): boolean {
  if (lastStatus?.status === status) return lastStatus.failed;
  const failed = messageOutcome({ status }) === 'failed';
  lastStatus = { status, failed };
  return failed;
}

/** Recipients that an accepted request's answer already reports as failed (a synchronous send). */
export function failedRecipientsIn(answer: SendAnswer, to: readonly string[]): readonly string[] {
  const messages = answer['messages'];
  if (Array.isArray(messages)) {
    return messages
      .filter((m): m is Record<string, unknown> => typeof m === 'object' && m !== null)
      .filter((m) => typeof m['status'] === 'string' && messageOutcome({ status: m['status'] }) === 'failed')
      .map((m) => (typeof m['to'] === 'string' ? m['to'] : '(unnamed recipient)'));
  }
  const status = answer['status'];
  return typeof status === 'string' && statusFailed(status) ? [...to] : NONE_FAILED;
}
