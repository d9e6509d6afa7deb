import type { SendContext } from '../send-context.js';
import { checkFields, selectFields } from '../../output/fields.js';
import { writeExact } from '../../output/io.js';
import { visibleLine } from '../../output/terminal.js';
import { writeObject } from '../../output/render.js';
import { FUNNEL, type MessageStatus, type OutcomeCounts, type ReportJournal, type ReportRecipient } from './data.js';
import { NOT_YET_SENT, type BudgetStopDocument, type NotYetSent, type ReportDocument } from './document.js';
import { formatAmount, UNIT } from '../cost/money.js';
import { proseText } from '../../output/wrap-lines.js';

// The report on stdout: the document (--json, or --fields in a table), one line per recipient
// (-o ndjson), or the table of counts, owed recipients, statuses and delays.

const OWED_SHOWN = 20;

function seconds(ms: number | null): string {
  if (ms === null) return '-';
  return ms < 1000 ? `${ms} ms` : ms < 120_000 ? `${(ms / 1000).toFixed(1)} s` : `${(ms / 60_000).toFixed(1)} min`;
}

export async function writeReport(
  ctx: SendContext,
  document: ReportDocument,
  recipients: readonly ReportRecipient[],
  statuses: ReadonlyMap<string, MessageStatus>,
  paths: readonly string[],
  journals: readonly ReportJournal[],
  notYetSent: readonly NotYetSent[] = [],
  /** What the text says of statuses not final yet: --watch waits for them, or timed out waiting. */
  notFinalNote = 'not all final yet, --watch waits',
): Promise<void> {
  const fields = ctx.globals.fields !== undefined && ctx.globals.fields.length > 0 ? ctx.globals.fields : undefined;
  if (ctx.globals.output === 'json' || (ctx.globals.output === 'table' && fields)) {
    // --fields selects from the report document (in a table: its fields, one a line).
    await writeObject(ctx, document);
    return;
  }
  if (ctx.globals.output === 'ndjson') {
    writeNdjson(ctx, fields, { recipients, statuses, paths, journals, notYetSent });
    return;
  }
  // The table of counts as it is (a table is never broken); the sentences after it fitted to the terminal.
  const table = countsTable(document);
  const rows = document.journals.length + (document.journals.length > 1 ? 2 : 1);
  const target = { isTTY: ctx.io.stdoutIsTTY, columns: ctx.io.columns, stream: ctx.io.stdout };
  // The service's words (a refusal, a failure reason) stay whole on their own line: broken, a
  // piece of them would start a line of its own, where it could pass for one of ours.
  const theirs = new Set<string>();
  const sentences = [...table.slice(rows), ...owedLines(document, theirs), ...statusLines(document, notFinalNote, theirs)];
  ctx.io.stdout.write(`${table.slice(0, rows).join('\n')}\n${await proseText(sentences, { ...target, keepWhole: theirs })}`);
}

/** One line per recipient: those the journals name, then those not yet sent that --to-file names. */
function writeNdjson(
  ctx: SendContext,
  fields: readonly string[] | undefined,
  given: {
    recipients: readonly ReportRecipient[];
    statuses: ReadonlyMap<string, MessageStatus>;
    paths: readonly string[];
    journals: readonly ReportJournal[];
    notYetSent: readonly NotYetSent[];
  },
): void {
  const { statuses, paths, journals } = given;
  const lines: string[] = [];
  let checked = false;
  const push = (line: Record<string, unknown>): void => {
    if (fields !== undefined && !checked) checkFields([line], fields);
    checked = true;
    lines.push(`${JSON.stringify(fields !== undefined ? selectFields(line, fields) : line)}\n`);
    if (lines.length >= 1000) writeExact(ctx.io.stdout, lines.splice(0).join(''));
  };
  for (const recipient of given.recipients) {
    const status = recipient.messageId === undefined ? undefined : statuses.get(recipient.messageId);
    push({
      to: recipient.to,
      journal: paths[recipient.journal],
      shard: journals[recipient.journal]!.shard,
      outcome: recipient.state,
      messageId: recipient.messageId ?? null,
      status: recipient.state === 'accepted' ? (status?.status ?? 'unknown') : null,
      errorCode: status?.errorCode ?? null,
      errorMessage: status?.errorMessage ?? recipient.error?.message ?? null,
      answeredAt: recipient.answeredAt ?? null,
      deliveredAt: status?.deliveredAt ?? null,
    });
  }
  // The recipients not yet sent that --to-file names, as `owed` in --json has them: every
  // recipient the report knows of is a line.
  for (const recipient of given.notYetSent) {
    push({
      to: recipient.to,
      journal: paths[recipient.journal],
      shard: journals[recipient.journal]!.shard,
      outcome: NOT_YET_SENT,
      messageId: null,
      status: null,
      errorCode: null,
      errorMessage: null,
      answeredAt: null,
      deliveredAt: null,
    });
  }
  writeExact(ctx.io.stdout, lines.join(''));
}

/** The counts by journal (and their total), with what the set of journals lacks. */
function countsTable(document: ReportDocument): string[] {
  // The columns of those left out by the opt-out list or an unknown zone only when there are
  // any: most sends have none, and the table stays within 80 columns.
  const optedOut = document.total.optedOut > 0;
  const zoneUnknown = document.total.zoneUnknown > 0;
  const rows: string[][] = [
    ['', 'recipients', 'accepted', 'rejected', 'unknown', 'not yet sent', 'excluded', ...(optedOut ? ['opted out'] : []), ...(zoneUnknown ? ['zone unknown'] : [])],
  ];
  const line = (name: string, c: OutcomeCounts): string[] => [
    name,
    ...[c.recipients, c.accepted, c.rejected, c.unknown, c.notYetSent, c.excluded, ...(optedOut ? [c.optedOut] : []), ...(zoneUnknown ? [c.zoneUnknown] : [])].map(String),
  ];
  document.journals.forEach((journal) => rows.push(line(`${journal.shard ? `shard ${journal.shard.k}/${journal.shard.n} ` : ''}${journal.path}`, journal.counts)));
  if (document.journals.length > 1) rows.push(line('total', document.total));
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const out: string[] = rows.map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[0]!) : cell.padStart(widths[column]!))).join('  ').trimEnd());
  const missing = document.missingShards ?? [];
  if (missing.length > 0) {
    const n = document.journals.find((journal) => journal.shard !== null)!.shard!.n;
    out.push(`Shards missing: ${missing.map((k) => `${k}/${n}`).join(', ')} (no journal given): the counts are of the ${n - missing.length} shard${n - missing.length === 1 ? '' : 's'} given.`);
  }
  if (document.runs > 1) out.push(`These journals are of ${document.runs} unrelated runs, not the shards of one send: the total adds them up.`);
  for (const journal of document.journals) if (journal.budgetStop !== null) out.push(budgetStopLine(journal.path, journal.budgetStop, document.journals.length > 1));
  return out;
}

/** Why a run's not yet sent were not sent: its budget, and how to go on. */
function budgetStopLine(path: string, stop: BudgetStopDocument, named: boolean): string {
  const money = (amount: number): string => formatAmount(Math.round(amount * UNIT), stop.currency ?? undefined);
  return (
    `Stopped at the budget${named ? ` (${path})` : ''}: ${money(stop.spent)} spent of ${money(stop.budget)}; the message to ${visibleLine(stop.to)} would have cost ${money(stop.next)} more, ` +
    `so it and the not yet sent after it were held back. To go on: the same svc send with --resume and a --budget above ${money(stop.budget)}.`
  );
}

/** Who is still owed: rejected, unknown and not yet sent, the first OWED_SHOWN named. */
function owedLines(document: ReportDocument, theirs: Set<string>): string[] {
  const owedCount = document.total.rejected + document.total.unknown + document.total.notYetSent;
  const unnamed = owedCount - document.owed.length;
  const out: string[] = ['', ...leftOutLines(document)];
  const leftOut = document.total.optedOut + document.total.zoneUnknown > 0;
  if (owedCount === 0) out.push(leftOut ? 'Every recipient sent to was accepted.' : 'Every recipient was accepted.');
  else {
    const parts = [`${document.total.rejected} rejected`, `${document.total.unknown} unknown`, `${document.total.notYetSent} not yet sent`];
    out.push(`Recipients still owed: ${owedCount} (${parts.join(', ')})`);
    // The reasons are the service's words: one line each, their control characters visible.
    for (const owed of document.owed.slice(0, OWED_SHOWN)) {
      const line = `  ${visibleLine(owed.to)}  ${owed.state}${owed.error ? `: ${visibleLine(owed.error)}` : ''}`;
      if (owed.error) theirs.add(line);
      out.push(line);
    }
    if (document.owed.length > OWED_SHOWN) out.push(`  and ${document.owed.length - OWED_SHOWN} more (--json lists them all)`);
    if (unnamed > 0 && leftOut) {
      const why = [document.total.optedOut > 0 ? 'opted out' : '', document.total.zoneUnknown > 0 ? 'of unknown zone' : ''].filter((part) => part !== '').join(' or ');
      out.push(`  and ${unnamed} not yet sent, not named here: the journal does not name whom the run left out as ${why}, so the list cannot tell those apart from these`);
    } else if (unnamed > 0) {
      const flags = document.total.excluded > 0 ? '--to-file and --exclude-file, the lists sent with,' : '--to-file, the list sent from,';
      out.push(`  and ${unnamed} not yet sent, not named here (give ${flags} to name them)`);
    }
  }
  return out;
}

/**
 * Why the report counts fewer recipients than the file holds: those the run left out because
 * they opted out of the sending number, or because their time zone could not be told. Neither is
 * owed: the first asked not to be sent to, the second is never sent by guess.
 */
function leftOutLines(document: ReportDocument): string[] {
  const out: string[] = [];
  const { optedOut, zoneUnknown } = document.total;
  const from = [...new Set(document.journals.map((journal) => journal.from))];
  if (optedOut > 0) {
    const of = from.length === 1 ? ` of ${from[0]}` : '';
    out.push(`Left out: ${optedOut} opted out${of} (they asked not to hear from it; not owed; svc optouts list${from.length === 1 ? ` --number ${from[0]}` : ''} shows them)`);
  }
  if (zoneUnknown > 0) {
    out.push(`Held back: ${zoneUnknown} whose time zone could not be told (never sent by guess outside their window; not counted as owed)`);
  }
  return out;
}

/** The statuses of the accepted, their failure reasons, and the time from send to delivery. */
function statusLines(document: ReportDocument, notFinalNote: string, theirs: Set<string>): string[] {
  const out: string[] = [''];
  const accepted = document.total.accepted;
  const notes = [`${document.reads} read now`];
  if (document.unread > 0) notes.push(`${document.unread} could not be read, counted unknown`);
  if (!document.final) notes.push(notFinalNote);
  out.push(`Statuses of the ${accepted} accepted (${notes.join('; ')}):`);
  out.push(`  ${FUNNEL.map((status) => `${status} ${document.statuses[status]}`).join('  ')}`);
  if (document.failures.length > 0) {
    out.push('Failure reasons:');
    for (const failure of document.failures) {
      const line = `  ${String(failure.count).padStart(6)}  ${visibleLine([failure.errorCode, failure.errorMessage].filter((part) => part !== null).join(' ')) || '(no reason given)'}`;
      theirs.add(line);
      out.push(line);
    }
  }
  const d = document.sendToDelivery;
  if (d.count > 0) out.push(`Send to delivery (${d.count} delivered): p50 ${seconds(d.p50Ms)}  p95 ${seconds(d.p95Ms)}  max ${seconds(d.maxMs)}`);
  return out;
}
