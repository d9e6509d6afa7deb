import { createHash } from 'node:crypto';
import { createReadStream, openSync, closeSync, writeSync } from 'node:fs';
import type { Context } from '../../context.js';
import { CliError, ExitCode, InterruptedError, UsageError } from '../../errors.js';
import { JournalFormatError } from '../../send/journal.js';
import type { Readable } from 'node:stream';
import { MAX_RECIPIENTS_BYTES, openInput } from '../../send/input-source.js';
import { readRecipientBatches } from '../../send/recipients.js';
import type { CommandInput } from '../spec.js';
import { checkFields, selectFields } from '../../output/fields.js';
import { writeObject } from '../../output/render.js';
import {
  appendCache,
  FUNNEL,
  isFinal,
  percentile,
  readCache,
  readReportJournal,
  readStatuses,
  type FunnelStatus,
  type MessageStatus,
  type OutcomeCounts,
  type ReportJournal,
  type ReportRecipient,
} from '../../send/report/data.js';

const STATUS_CONCURRENCY = 8;
const WATCH_INTERVAL_MS = 2000;
const DEFAULT_WATCH_TIMEOUT_S = 600;
const OWED_SHOWN = 20;

export interface ReportDocument {
  journals: { path: string; shard: { k: number; n: number } | null; from: string; counts: OutcomeCounts }[];
  total: OutcomeCounts;
  /** Recipients not accepted: rejected (never sent) or unknown (maybe sent); not-yet-sent are counted only. */
  owed: { to: string; state: 'rejected' | 'unknown'; journal: string; error: string | null }[];
  statuses: Record<FunnelStatus, number>;
  failures: { errorCode: string | null; errorMessage: string | null; count: number }[];
  sendToDelivery: { count: number; p50Ms: number | null; p95Ms: number | null; maxMs: number | null };
  /** Every accepted message has a final status (delivered or failed). */
  final: boolean;
  /** GET /messages/{id} made by this report (cached final statuses are not read again). */
  reads: number;
}

function journalProblem(path: string, error: unknown): UsageError {
  if (error instanceof JournalFormatError) return new UsageError(`cannot report on ${error.message}`);
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EISDIR') return new UsageError(`--journal ${path} is a directory`);
  if (code === 'EACCES') return new UsageError(`--journal ${path} cannot be read (permission denied)`);
  return new UsageError(`cannot report on ${path}: ${error instanceof Error ? error.message.replace(`${path}: `, '') : String(error)}`);
}

function sum(counts: readonly OutcomeCounts[]): OutcomeCounts {
  const total: OutcomeCounts = { recipients: 0, accepted: 0, rejected: 0, unknown: 0, notYetSent: 0 };
  for (const c of counts) for (const key of Object.keys(total) as (keyof OutcomeCounts)[]) total[key] += c[key];
  return total;
}

async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return `sha256:${hash.digest('hex')}`;
}

function csvCell(value: string): string {
  return /[",\r\n]/.test(value) || value !== value.trim() ? `"${value.replace(/"/g, '""')}"` : value;
}

/** Writes the failed recipients as `svc send --to-file` reads them: the CSV rows (every column) or one number a line. */
async function writeFailedTo(target: string, failed: ReadonlySet<string>, toFile: string | undefined, stdin: Readable): Promise<number> {
  let fd: number;
  try {
    fd = openSync(target, 'w', 0o600);
  } catch (error) {
    throw new UsageError(`cannot write --failed-to ${target}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  let written = 0;
  try {
    if (toFile === undefined) {
      const lines = [...failed].map((to) => `${to}\n`);
      written = lines.length;
      writeSync(fd, lines.join(''));
      return written;
    }
    const source = await openInput(toFile, { flag: '--to-file', maxBytes: MAX_RECIPIENTS_BYTES, reread: false, stdin, stdinIsTTY: false });
    let header: string[] | undefined;
    try {
    for await (const rows of readRecipientBatches(source)) {
      const out: string[] = [];
      for (const row of rows) {
        if (!failed.has(row.to)) continue;
        const columns = Object.keys(row.fields);
        if (header === undefined) {
          header = columns;
          if (header.length > 0) out.push(`${header.map(csvCell).join(',')}\n`);
        }
        out.push(header.length > 0 ? `${header.map((name) => csvCell(row.fields[name] ?? '')).join(',')}\n` : `${row.to}\n`);
        written++;
      }
      if (out.length > 0) writeSync(fd, out.join(''));
    }
    } finally {
      source.close();
    }
    return written;
  } finally {
    closeSync(fd);
  }
}

export async function run(input: CommandInput, ctx: Context): Promise<number> {
  const paths = input.strings('journal');
  if (paths.length === 0) throw new UsageError('give at least one --journal FILE (the journals of svc send, one per shard)');
  if (new Set(paths).size !== paths.length) throw new UsageError('a --journal is given twice');
  const watch = input.flag('watch');
  const timeoutS = input.number('timeout', '--timeout', { min: 0 });
  if (timeoutS !== undefined && !watch) throw new UsageError('--timeout goes with --watch');
  const failedTo = input.string('failedTo');
  const toFile = input.string('toFile');
  if (toFile !== undefined && failedTo === undefined) throw new UsageError('--to-file goes with --failed-to (it gives the template columns of the failed recipients)');
  if (failedTo !== undefined && paths.includes(failedTo)) throw new UsageError(`--failed-to ${failedTo} is one of the journals`);

  // 1. The journals.
  const recipients: ReportRecipient[] = [];
  const journals: ReportJournal[] = [];
  for (const [index, path] of paths.entries()) {
    try {
      journals.push(await readReportJournal(path, index, recipients));
    } catch (error) {
      throw journalProblem(path, error);
    }
  }
  if (toFile !== undefined) {
    let digest: string;
    try {
      digest = await sha256File(toFile);
    } catch (error) {
      throw new UsageError(`cannot read --to-file ${toFile}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
    if (!journals.some((journal) => journal.recipientsDigest === digest)) {
      // Bound by digest: the journals' run names the recipients file it was sent from.
      throw new UsageError(`--to-file ${toFile} is not the recipients file these journals were sent from`);
    }
  }

  // 2. The statuses: cached final ones first, then reads, then (with --watch) rounds until final.
  const caches = paths.map((path) => readCache(path));
  const statuses = new Map<string, MessageStatus>();
  const journalOf = new Map<string, number>();
  for (const recipient of recipients) {
    if (recipient.messageId === undefined) continue;
    journalOf.set(recipient.messageId, recipient.journal);
    const cached = caches[recipient.journal]!.get(recipient.messageId);
    if (cached !== undefined) statuses.set(recipient.messageId, cached);
  }
  const ids = [...journalOf.keys()];
  let reads = 0;
  const deadline = watch ? ctx.clock.now() + (timeoutS ?? DEFAULT_WATCH_TIMEOUT_S) * 1000 : undefined;
  let timedOut = false;
  if (ids.length > 0) {
    const api = await ctx.api();
    const progress = ctx.io.stderrIsTTY ? (done: number, total: number) => ctx.io.stderr.write(`\r\u001b[2KReading statuses: ${done}/${total}`) : undefined;
    for (let round = 0; ; round++) {
      const pending = ids.filter((id) => {
        const known = statuses.get(id);
        return known === undefined || !isFinal(known.status);
      });
      if (pending.length === 0) break;
      if (round > 0) {
        if (deadline === undefined) break;
        const left = deadline - ctx.clock.now();
        if (left <= 0) {
          timedOut = true;
          break;
        }
        try {
          await ctx.clock.sleep(Math.min(WATCH_INTERVAL_MS, left), ctx.signal);
        } catch (error) {
          if (error instanceof InterruptedError || ctx.signal.aborted) throw new InterruptedError('Stopped watching');
          throw error;
        }
      }
      const result = await readStatuses(api, pending, { concurrency: STATUS_CONCURRENCY, signal: ctx.signal, ...(progress ? { onProgress: progress } : {}) });
      if (progress) ctx.io.stderr.write('\r\u001b[2K');
      reads += result.reads;
      const newlyFinal: MessageStatus[][] = paths.map(() => []);
      for (const status of result.statuses) {
        statuses.set(status.messageId, status);
        if (isFinal(status.status)) newlyFinal[journalOf.get(status.messageId)!]!.push(status);
      }
      newlyFinal.forEach((list, index) => {
        try {
          appendCache(paths[index]!, list);
        } catch (error) {
          ctx.warn(`cannot cache statuses beside ${paths[index]}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
        }
      });
      if (!watch) break;
    }
  }

  // 3. The document.
  const document = buildDocument(journals, recipients, statuses, reads, paths);
  if (failedTo !== undefined) {
    const failed = new Set<string>();
    for (const recipient of recipients) {
      const status = recipient.messageId === undefined ? undefined : statuses.get(recipient.messageId);
      if (recipient.state === 'rejected' || status?.status === 'failed') failed.add(recipient.to);
    }
    const written = await writeFailedTo(failedTo, failed, toFile, ctx.io.stdin as Readable);
    ctx.io.stderr.write(`Wrote ${written} failed recipient${written === 1 ? '' : 's'} to ${failedTo} (svc send --to-file takes it).\n`);
  }
  await writeReport(ctx, document, recipients, statuses, paths, journals);
  if (timedOut) {
    const left = ids.filter((id) => !isFinal(statuses.get(id)?.status ?? 'unknown')).length;
    throw new CliError(`--watch timed out: ${left} message${left === 1 ? '' : 's'} not yet delivered or failed`, ExitCode.Timeout);
  }
  return ExitCode.Ok;
}

function buildDocument(
  journals: readonly ReportJournal[],
  recipients: readonly ReportRecipient[],
  statuses: ReadonlyMap<string, MessageStatus>,
  reads: number,
  paths: readonly string[],
): ReportDocument {
  const funnel = Object.fromEntries(FUNNEL.map((status) => [status, 0])) as Record<FunnelStatus, number>;
  const reasons = new Map<string, { errorCode: string | null; errorMessage: string | null; count: number }>();
  const delays: number[] = [];
  const owed: ReportDocument['owed'] = [];
  let final = true;
  for (const recipient of recipients) {
    if (recipient.state !== 'accepted') {
      owed.push({ to: recipient.to, state: recipient.state, journal: paths[recipient.journal]!, error: recipient.error?.message ?? null });
      continue;
    }
    const status = recipient.messageId === undefined ? undefined : statuses.get(recipient.messageId);
    const word = status?.status ?? 'unknown';
    funnel[word]++;
    if (!isFinal(word)) final = false;
    if (word === 'failed') {
      const key = `${status?.errorCode ?? ''}\u0000${status?.errorMessage ?? ''}`;
      const entry = reasons.get(key) ?? { errorCode: status?.errorCode ?? null, errorMessage: status?.errorMessage ?? null, count: 0 };
      entry.count++;
      reasons.set(key, entry);
    }
    if (word === 'delivered' && status?.deliveredAt) {
      const start = Date.parse(status.queuedAt ?? recipient.answeredAt ?? '');
      const end = Date.parse(status.deliveredAt);
      if (Number.isFinite(start) && Number.isFinite(end) && end >= start) delays.push(end - start);
    }
  }
  delays.sort((a, b) => a - b);
  return {
    journals: journals.map((journal) => ({ path: journal.path, shard: journal.shard, from: journal.from, counts: journal.counts })),
    total: sum(journals.map((journal) => journal.counts)),
    owed,
    statuses: funnel,
    failures: [...reasons.values()].sort((a, b) => b.count - a.count),
    sendToDelivery: { count: delays.length, p50Ms: percentile(delays, 0.5), p95Ms: percentile(delays, 0.95), maxMs: delays.length === 0 ? null : delays[delays.length - 1]! },
    final,
    reads,
  };
}

function seconds(ms: number | null): string {
  if (ms === null) return '-';
  return ms < 1000 ? `${ms} ms` : ms < 120_000 ? `${(ms / 1000).toFixed(1)} s` : `${(ms / 60_000).toFixed(1)} min`;
}

async function writeReport(
  ctx: Context,
  document: ReportDocument,
  recipients: readonly ReportRecipient[],
  statuses: ReadonlyMap<string, MessageStatus>,
  paths: readonly string[],
  journals: readonly ReportJournal[],
): Promise<void> {
  const fields = ctx.globals.fields !== undefined && ctx.globals.fields.length > 0 ? ctx.globals.fields : undefined;
  if (ctx.globals.output === 'json' || (ctx.globals.output === 'table' && fields)) {
    // --fields selects from the report document (in a table: its fields, one a line).
    await writeObject(ctx, document);
    return;
  }
  if (ctx.globals.output === 'ndjson') {
    const lines: string[] = [];
    let checked = false;
    const select = (line: Record<string, unknown>): unknown => {
      if (!fields) return line;
      if (!checked) checkFields([line], fields);
      checked = true;
      return selectFields(line, fields);
    };
    for (const recipient of recipients) {
      const status = recipient.messageId === undefined ? undefined : statuses.get(recipient.messageId);
      lines.push(
        `${JSON.stringify(select({
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
        }))}\n`,
      );
      if (lines.length >= 1000) ctx.io.stdout.write(lines.splice(0).join(''));
    }
    ctx.io.stdout.write(lines.join(''));
    return;
  }
  const rows: string[][] = [['', 'recipients', 'accepted', 'rejected', 'unknown', 'not yet sent']];
  const line = (name: string, c: OutcomeCounts): string[] => [name, ...[c.recipients, c.accepted, c.rejected, c.unknown, c.notYetSent].map(String)];
  document.journals.forEach((journal) => rows.push(line(`${journal.shard ? `shard ${journal.shard.k}/${journal.shard.n} ` : ''}${journal.path}`, journal.counts)));
  if (document.journals.length > 1) rows.push(line('total', document.total));
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const out: string[] = rows.map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[0]!) : cell.padStart(widths[column]!))).join('  ').trimEnd());
  const owedCount = document.owed.length + document.total.notYetSent;
  out.push('');
  if (owedCount === 0) out.push('Every recipient was accepted.');
  else {
    const parts = [`${document.total.rejected} rejected`, `${document.total.unknown} unknown`, `${document.total.notYetSent} not yet sent`];
    out.push(`Recipients still owed: ${owedCount} (${parts.join(', ')})`);
    for (const owed of document.owed.slice(0, OWED_SHOWN)) out.push(`  ${owed.to}  ${owed.state}${owed.error ? `: ${owed.error}` : ''}`);
    if (document.owed.length > OWED_SHOWN) out.push(`  and ${document.owed.length - OWED_SHOWN} more (-o ndjson lists every recipient)`);
  }
  out.push('');
  const accepted = document.total.accepted;
  out.push(`Statuses of the ${accepted} accepted (${document.reads} read now${document.final ? '' : '; not all final yet, --watch waits'}):`);
  out.push(`  ${FUNNEL.map((status) => `${status} ${document.statuses[status]}`).join('  ')}`);
  if (document.failures.length > 0) {
    out.push('Failure reasons:');
    for (const failure of document.failures) out.push(`  ${String(failure.count).padStart(6)}  ${[failure.errorCode, failure.errorMessage].filter((part) => part !== null).join(' ') || '(no reason given)'}`);
  }
  const d = document.sendToDelivery;
  if (d.count > 0) out.push(`Send to delivery (${d.count} delivered): p50 ${seconds(d.p50Ms)}  p95 ${seconds(d.p95Ms)}  max ${seconds(d.maxMs)}`);
  ctx.io.stdout.write(`${out.join('\n')}\n`);
}
