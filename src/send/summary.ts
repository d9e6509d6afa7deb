import type { SendContext } from './send-context.js';
import { writeObject } from '../output/render.js';
import { describeSize } from '../output/size.js';
import { commandLine } from '../output/command-line.js';
import type { BulkSummary } from './bulk-types.js';
import type { RecipientFilter } from './pace/filter.js';
import type { SendPlan } from './plan.js';
import { formatDuration } from './progress.js';
import type { Resumed } from './resume.js';
import type { BodyStats } from './stats.js';
import { formatAmount, UNIT } from './cost/money.js';
import type { CostSummary } from './cost/book.js';
import type { BudgetGate } from './cost/budget.js';
import { labelledText, proseText } from '../output/wrap-lines.js';

// What a send says about itself: what a message costs (before asking), the dry run's document,
// and the summary line of a run with what to do next (on stderr).

/** The recipients a run left out, by reason, for its summary line (none when it left none out). */
function leftOutParts(filter: RecipientFilter): string[] {
  const parts: string[] = [];
  if (filter.accepted > 0) parts.push(`${filter.accepted} already accepted (skipped, as the journal says)`);
  if (filter.unknownSkipped > 0) parts.push(`${filter.unknownSkipped} of unknown outcome skipped (--unknown skip)`);
  if (filter.optedOut > 0) parts.push(`${filter.optedOut} opted out (left out: they asked not to hear from this number)`);
  if (filter.zoneUnknown > 0) parts.push(`${filter.zoneUnknown} held back: time zone unknown`);
  if (filter.excluded > 0) parts.push(`${filter.excluded} excluded (--exclude-file)`);
  if (filter.otherShards > 0) parts.push(`${filter.otherShards} left to the other shards`);
  return parts;
}

/** Why a run sent nothing at all: everyone was left out, for the reasons counted. */
function nothingToSendLine(plan: SendPlan, filter: RecipientFilter): string {
  if (filter.leftOut === filter.optedOut) {
    const every = filter.optedOut === 1 ? 'the only recipient has' : `all ${filter.optedOut} recipients have`;
    return `Nothing sent: ${every} opted out of ${plan.from} (svc optouts list --number ${plan.from} shows why).`;
  }
  if (filter.leftOut === filter.excluded) {
    const every = filter.excluded === 1 ? 'the only recipient is' : `all ${filter.excluded} recipients are`;
    return `Nothing sent: ${every} on the --exclude-file list (${plan.pace.exclude?.path ?? ''}).`;
  }
  if (filter.leftOut === filter.otherShards) return 'Nothing sent: every recipient belongs to another shard.';
  const reasons: string[] = [];
  if (filter.accepted > 0) reasons.push('already accepted');
  if (filter.unknownSkipped > 0) reasons.push('of unknown outcome, skipped by choice (--unknown skip)');
  if (filter.optedOut > 0) reasons.push(`opted out of ${plan.from}`);
  if (filter.zoneUnknown > 0) reasons.push('of a time zone that cannot be told');
  if (filter.excluded > 0) reasons.push('on the --exclude-file list');
  if (filter.otherShards > 0) reasons.push('of another shard');
  return `Nothing left to send: every recipient is ${reasons.join(', or ')}.`;
}

function describeEncoding(stats: BodyStats): string {
  if (stats.encoding === 'GSM-7') return 'GSM-7';
  const listed = stats.nonGsmCharacters.map((c) => JSON.stringify(c)).join(' ');
  return `UCS-2 (because of ${listed || 'characters outside GSM-7'})`;
}

export function costLine(stats: BodyStats, budget?: number): string {
  const each = stats.templated ? `up to ${stats.characters} characters, up to ${stats.segments}` : `${stats.characters} characters, ${stats.segments}`;
  const saves = stats.totalSegments - stats.gsmSpellingSegments;
  const spelling = saves > 0 ? ` (${saves} fewer spelt in GSM-7: ${stats.respellable.map((r) => `${JSON.stringify(r.character)} as ${JSON.stringify(r.as)}`).join(', ')})` : '';
  const cost = stats.cost;
  // Over the budget, the question that follows is about fewer messages than it names: said here.
  const over = cost !== undefined && budget !== undefined && cost.total > budget ? `; --budget ${formatAmount(budget, cost.currency)} stops the run before it passes that` : '';
  const unpriced = cost !== undefined && cost.unpriced.recipients > 0 ? ` for the priced recipients (${cost.unpriced.recipients} without a price)` : '';
  const money = cost !== undefined ? `, costing ${formatAmount(cost.total, cost.currency)}${unpriced}${over}` : '';
  return `${each} segment${stats.segments === 1 ? '' : 's'} per message in ${describeEncoding(stats)}; ${stats.totalSegments} segment${stats.totalSegments === 1 ? '' : 's'} in total for ${stats.recipients} recipient${stats.recipients === 1 ? '' : 's'}${spelling}${money}`;
}

/** What --resume leaves out, for the dry run: already accepted, and unknown by choice or until --unknown chooses. */
function describeSkipped(stats: BodyStats, plan: SendPlan, resumed: Resumed | undefined): string {
  const parts = [`${stats.skippedAccepted} already accepted in ${plan.journal}`];
  if (stats.skippedUnknown > 0) {
    parts.push(`${stats.skippedUnknown} of unknown outcome, ${resumed?.unknown === 'skip' ? 'skipped (--unknown skip)' : 'left out until --unknown resend|skip chooses'}`);
  }
  return `${stats.skipped} skipped: ${parts.join('; ')}`;
}

export async function writeDryRun(ctx: SendContext, plan: SendPlan, stats: BodyStats, resumed: Resumed | undefined): Promise<void> {
  const unknown = resumed?.state.exists === true ? resumed.state.counts.unknown : 0;
  const media = [
    ...plan.mediaUrls.map((url) => ({ url })),
    ...plan.mediaFiles.map((file) => ({ file: file.path, contentType: file.contentType, bytes: file.bytes.length })),
  ];
  const window = windowNow(ctx, plan);
  const document = {
    requests: stats.requests,
    recipients: stats.recipients,
    encoding: stats.encoding,
    segments: stats.segments,
    characters: stats.characters,
    media,
    totalSegments: stats.totalSegments,
    nonGsmCharacters: stats.nonGsmCharacters,
    byEncoding: stats.byEncoding,
    ...(stats.encoding === 'UCS-2'
      ? { gsm7Spelling: { segments: stats.gsmSpellingSegments, saves: stats.totalSegments - stats.gsmSpellingSegments, characters: stats.respellable } }
      : {}),
    ...(stats.cost !== undefined ? { cost: costDocument(stats.cost, plan.budget) } : {}),
    ...(plan.resume ? { skipped: stats.skipped, unknown } : {}),
    ...(plan.optOuts !== undefined ? { optedOut: stats.optedOut } : {}),
    ...(plan.recipientWindows !== undefined
      ? { recipientWindow: { window: plan.recipientWindows.hours.text, zones: plan.recipientWindows.sourceText.replace(/^--/, ''), zoneUnknown: stats.zoneUnknown, zoneUnknownNumbers: stats.zoneUnknownNumbers } }
      : {}),
    ...(plan.pace.exclude !== undefined ? { excluded: stats.excluded } : {}),
    ...(plan.pace.shard !== undefined ? { shard: { k: plan.pace.shard.k, n: plan.pace.shard.n }, otherShards: stats.otherShards } : {}),
    ...(window !== undefined ? { window: window.document } : {}),
  };
  if (ctx.globals.output !== 'table' || (ctx.globals.fields !== undefined && ctx.globals.fields.length > 0)) {
    // With --fields, the table is the selected fields of the same document.
    if (ctx.globals.output === 'table') ctx.io.stderr.write('Dry run: nothing was sent.\n');
    await writeObject(ctx, document);
    return;
  }
  const rows: Row[] = [
    ['requests', `${stats.requests}`],
    ['recipients', `${stats.recipients}${plan.resume ? ` (${describeSkipped(stats, plan, resumed)})` : ''}`],
    ...(plan.optOuts !== undefined ? [['opted out', `${stats.optedOut}${stats.optedOut > 0 ? ` (asked not to hear from ${plan.from}; svc optouts list --number ${plan.from})` : ''}`] as Row] : []),
    ...(plan.ignoredOptOuts !== undefined ? [['opted out', `not left out (--ignore-optouts; the list holds ${plan.ignoredOptOuts.listed} for ${plan.from})`] as Row] : []),
    ...(plan.pace.exclude !== undefined ? [['excluded', `${stats.excluded} (on ${plan.pace.exclude.path})`] as Row] : []),
    ...(plan.recipientWindows !== undefined ? recipientWindowRows(plan, stats) : []),
    ...(plan.pace.shard !== undefined ? [['shard', `${plan.pace.shard.k}/${plan.pace.shard.n} (${stats.otherShards} recipients belong to the other shards)`] as Row] : []),
    ...(window !== undefined ? [window.row] : []),
    ['encoding', describeEncoding(stats)],
    ['characters', `${stats.templated ? 'up to ' : ''}${stats.characters}`],
    ['segments', `${stats.templated ? 'up to ' : ''}${stats.segments} per message, ${stats.totalSegments} in total${encodingSplit(stats)}`],
    ...gsmSpellingRows(stats),
    ...(stats.cost !== undefined ? costRows(stats.cost, plan.budget) : []),
    ['media', media.length === 0 ? 'none' : media.map((m) => ('url' in m ? m.url : `${m.file} (${m.contentType}, ${describeSize(m.bytes)})`)).join(', ')],
  ];
  ctx.io.stdout.write(`Dry run: nothing was sent.\n${await labelledText(rows, { isTTY: ctx.io.stdoutIsTTY, columns: ctx.io.columns, stream: ctx.io.stdout })}`);
}

/** A line of the dry run: what it is about, and what it says. */
type Row = readonly [label: string, value: string];

/**
 * The send window as it stands at this moment, for the dry run: whether a send started now would
 * go out at once or wait, and until when (an instant in the document, the zone's wall clock in the
 * table).
 */
function windowNow(ctx: SendContext, plan: SendPlan): { document: DryRunWindow; row: Row } | undefined {
  const schedule = plan.pace.window;
  if (schedule === undefined) return undefined;
  const now = ctx.clock.now();
  const open = schedule.isOpen(now);
  const change = schedule.nextChange(now);
  const { text, timeZone } = schedule.window;
  const at = new Date(change).toISOString();
  return {
    document: open ? { window: text, timeZone, open, closesAt: at } : { window: text, timeZone, open, opensAt: at },
    row: ['window', `${text} (${timeZone}): ${open ? `open now, until ${schedule.describe(change)}` : `closed now; a send would wait until ${schedule.describe(change)}`}`],
  };
}

interface DryRunWindow {
  window: string;
  timeZone: string;
  open: boolean;
  opensAt?: string;
  closesAt?: string;
}

export async function writeSummary(ctx: SendContext, plan: SendPlan, summary: BulkSummary, elapsedMs: number, filter: RecipientFilter, budget?: BudgetGate): Promise<void> {
  const lines = summaryLines(ctx, plan, summary, elapsedMs, filter, budget);
  ctx.io.stderr.write(await proseText(lines, { isTTY: ctx.io.stderrIsTTY, columns: ctx.io.columns, stream: ctx.io.stderr }));
}

/** The summary's sentences: what was sent, why some were not, and what to run next. */
function summaryLines(ctx: SendContext, plan: SendPlan, summary: BulkSummary, elapsedMs: number, filter: RecipientFilter, budget: BudgetGate | undefined): string[] {
  const lines: string[] = [];
  const rate = elapsedMs > 0 ? Math.round((summary.requests * 1000) / elapsedMs) : summary.requests;
  const parts = [`${summary.accepted} accepted`];
  if (summary.rejected > 0) parts.push(`${summary.rejected} failed`);
  if (summary.unknown > 0) parts.push(`${summary.unknown} without an answer (the service may have sent them)`);
  parts.push(...leftOutParts(filter));
  if (summary.throttleRetries > 0) parts.push(`${summary.throttleRetries} throttle ${summary.throttleRetries === 1 ? 'retry' : 'retries'}`);
  const head = summary.interrupted ? 'Interrupted after' : summary.unreachable !== undefined ? 'Stopped after' : 'Sent';
  lines.push(
    `${head} ${summary.requests} request${summary.requests === 1 ? '' : 's'} in ${runTime(elapsedMs)} (${rate}/s): ${parts.join(', ')}.`,
  );
  if (summary.stalled) {
    lines.push(
      `Gave up: the service kept throttling and nothing was accepted for ${Math.round(plan.pace.maxStallMs / 1000)} s (--max-stall); the throttled recipients are recorded as rejected and nothing more was sent.`,
    );
  }
  if (summary.unreachable !== undefined && !summary.interrupted) {
    lines.push(
      `Stopped: the service could not be reached ${summary.unreachable.failures} times in a row (${summary.unreachable.reason}); nothing more was sent. Check that it is running, then resume.`,
    );
  }
  if (summary.requests === 0 && !summary.interrupted && filter.leftOut > 0 && budget?.stop === undefined) lines.push(nothingToSendLine(plan, filter));
  if (filter.zoneUnknown > 0) lines.push(zoneUnknownLine(plan, filter.zoneUnknown, filter.zoneUnknownNumbers));
  const stop = budget?.stop;
  if (stop !== undefined) {
    const money = (amount: number): string => formatAmount(amount, plan.prices?.currency);
    const before = budget!.spentBefore > 0 ? `, ${money(budget!.spentBefore)} of it by the run before` : '';
    lines.push(
      `Stopped at the budget: ${money(stop.spent)} spent of ${money(stop.budget)}${before}; the message to ${stop.to} would cost ${money(stop.next)} more, so it and ${budget!.held - 1} more recipient${budget!.held - 1 === 1 ? '' : 's'} were not sent.`,
    );
    lines.push(
      plan.journal !== undefined
        ? `To go on, run the same command with --resume and a larger --budget (journal: ${plan.journal}).`
        : 'With --journal FILE, a run stopped at its budget can go on with --resume and a larger --budget.',
    );
  }
  const failed = summary.rejected + summary.unknown;
  if ((summary.interrupted || summary.stalled || failed > 0) && plan.journal !== undefined) {
    const choose = summary.unknown > 0 ? ` and --unknown resend|skip for the ${summary.unknown} without an answer` : '';
    lines.push(`To send to everyone not yet accepted, run the same command with --resume${choose} (journal: ${plan.journal}).`);
  } else if ((summary.interrupted || summary.unreachable !== undefined || failed > 0) && plan.toFile !== undefined) {
    lines.push('With --journal FILE, a run can be resumed without sending anyone twice.');
  }
  // On a terminal, what to run next: the journal tells what became of every message sent.
  if (ctx.io.stderrIsTTY && plan.journal !== undefined && summary.accepted > 0) {
    lines.push(`See what became of them: ${commandLine(ctx.globals, ['send', 'report', '--journal', plan.journal, '--watch'])}`);
  }
  return lines;
}

/** How long a run took: `0.3 s` (a short run is not "0s"), `42 s`, then as the progress line says it (`3m05s`). */
function runTime(ms: number): string {
  if (ms < 10_000) return `${(Math.max(0, ms) / 1000).toFixed(1)} s`;
  return ms < 60_000 ? `${Math.round(ms / 1000)} s` : formatDuration(ms);
}

/** `(GSM-7: 40 messages, 40 segments; UCS-2: 10 messages, 20 segments)` when both encodings occur. */
function encodingSplit(stats: BodyStats): string {
  const gsm = stats.byEncoding['GSM-7'];
  const ucs = stats.byEncoding['UCS-2'];
  if (gsm.messages === 0 || ucs.messages === 0) return '';
  return ` (GSM-7: ${gsm.messages} messages, ${gsm.segments} segments; UCS-2: ${ucs.messages} messages, ${ucs.segments} segments)`;
}

/** What spelling the look-alike characters in GSM-7 would save, when anything is in UCS-2. */
function gsmSpellingRows(stats: BodyStats): Row[] {
  if (stats.encoding !== 'UCS-2') return [];
  const saves = stats.totalSegments - stats.gsmSpellingSegments;
  const spelled = stats.respellable.map((r) => `${JSON.stringify(r.character)} as ${JSON.stringify(r.as)}`).join(', ');
  if (stats.respellable.length === 0) return [['gsm-7', 'no spelling in GSM-7 helps: the characters that force UCS-2 have no plain look-alike']];
  if (saves > 0) return [['gsm-7', `spelling ${spelled} would need ${stats.gsmSpellingSegments} segments instead of ${stats.totalSegments}: ${saves} fewer`]];
  // Why it saves nothing, of the two reasons there are.
  const kept = stats.nonGsmCharacters.filter((character) => !stats.respellable.some((r) => r.character === character));
  if (kept.length > 0) {
    return [['gsm-7', `spelling ${spelled} saves nothing: ${kept.map((c) => JSON.stringify(c)).join(' ')} ${kept.length === 1 ? 'has' : 'have'} no GSM-7 look-alike and keep${kept.length === 1 ? 's' : ''} UCS-2`]];
  }
  return [['gsm-7', `spelling ${spelled} saves nothing: in GSM-7 the messages take the same ${plural(stats.totalSegments, 'segment')}`]];
}

/** The cost in total, against the budget, and by country (the most costly first). */
function costRows(cost: CostSummary, budget: number | undefined): Row[] {
  const money = (amount: number): string => formatAmount(amount, cost.currency);
  const rows: Row[] = [
    ['cost', `${money(cost.total)}${cost.unpriced.recipients > 0 ? ` for the priced recipients` : ''}${budget !== undefined ? ` (budget ${money(budget)}${cost.total > budget ? ': the run would stop before it passes it' : ''})` : ''}`],
  ];
  for (const entry of cost.byCountry) {
    // `unknown`: numbers no country's numbering plan holds, priced by the `*` line.
    const country = entry.country === 'unknown' ? 'no country' : entry.country;
    rows.push([`  ${country}`, `${plural(entry.recipients, 'recipient')}, ${plural(entry.segments, 'segment')} x ${formatAmount(entry.price, undefined)} = ${money(entry.amount)}`]);
  }
  if (cost.unpriced.recipients > 0) {
    rows.push(['  unpriced', `${plural(cost.unpriced.recipients, 'recipient')} in ${cost.unpriced.countries.map((c) => (c === 'unknown' ? 'no country' : c)).join(', ')}: no price for their country and no * line`]);
  }
  return rows;
}

function costDocument(cost: CostSummary, budget: number | undefined): Record<string, unknown> {
  return {
    currency: cost.currency ?? null,
    total: cost.total / UNIT,
    ...(budget !== undefined ? { budget: budget / UNIT } : {}),
    byCountry: cost.byCountry.map((entry) => ({
      country: entry.country,
      recipients: entry.recipients,
      segments: entry.segments,
      pricePerSegment: entry.price / UNIT,
      amount: entry.amount / UNIT,
    })),
    unpriced: cost.unpriced,
  };
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** Who a per-recipient window holds back for good: their zone cannot be told. */
function zoneUnknownLine(plan: SendPlan, count: number, numbers: readonly string[]): string {
  const windows = plan.recipientWindows!;
  const named = numbers.join(', ') + (count > numbers.length ? `, and ${count - numbers.length} more` : '');
  const why = windows.source.kind === 'auto' ? 'their numbers do not tell a zone whose hours the window can be kept in' : `their ${windows.source.kind === 'column' ? windows.source.column : ''} cell is empty`;
  return `Held back, not sent: ${count} recipient${count === 1 ? '' : 's'} whose time zone cannot be told (${why}): ${named}. Give their zones with --tz-column, or send to them apart with --tz ZONE.`;
}

function recipientWindowRows(plan: SendPlan, stats: BodyStats): Row[] {
  const windows = plan.recipientWindows!;
  const rows: Row[] = [['window', `${windows.hours.text} in each recipient's own time zone (${windows.sourceText})`]];
  if (stats.zoneUnknown > 0) {
    const named = stats.zoneUnknownNumbers.join(', ') + (stats.zoneUnknown > stats.zoneUnknownNumbers.length ? ', ...' : '');
    rows.push(['zone unknown', `${stats.zoneUnknown} held back, never sent by guess: ${named}`]);
  }
  return rows;
}
