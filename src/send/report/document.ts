import {
  FUNNEL,
  isSettled,
  percentile,
  type FunnelStatus,
  type MessageStatus,
  type OutcomeCounts,
  type ReportJournal,
  type ReportRecipient,
  type ShardCoverage,
} from './data.js';
import type { JournalBudgetStop } from '../journal/format.js';
import { UNIT } from '../cost/money.js';

// The report's document: counts per journal and in total, who is still owed, the statuses of the
// accepted messages, why they failed, and how long they took to be delivered.

export interface ReportDocument {
  journals: { path: string; shard: { k: number; n: number } | null; from: string; counts: OutcomeCounts; budgetStop: BudgetStopDocument | null }[];
  /** Of the journals given (the shards given, when some are missing). */
  total: OutcomeCounts;
  /** Distinct sends among the journals: more than 1 when journals of unrelated runs are merged. */
  runs: number;
  /** The send's shards with no journal given (`[]` when none is missing); null when runs > 1. */
  missingShards: number[] | null;
  /**
   * Recipients not accepted: rejected (never sent), unknown (maybe sent), and not yet sent (named
   * when --to-file gives the list; else counted only, in total.notYetSent).
   */
  owed: { to: string; state: 'rejected' | 'unknown' | typeof NOT_YET_SENT; journal: string; error: string | null }[];
  statuses: Record<FunnelStatus, number>;
  failures: { errorCode: string | null; errorMessage: string | null; count: number }[];
  sendToDelivery: { count: number; p50Ms: number | null; p95Ms: number | null; maxMs: number | null };
  /** Every accepted message has a final status (delivered or failed). */
  final: boolean;
  /** GET /messages/{id} made by this report (cached final statuses are not read again). */
  reads: number;
  /**
   * Accepted messages whose status this report could not read (a network or server error after
   * the retries, or cut off by --timeout): counted as `unknown` in `statuses`.
   */
  unread: number;
}

/**
 * Where --budget stopped a journal's run (its last session), amounts in the prices' currency:
 * the not yet sent of that journal were held back by it.
 */
export interface BudgetStopDocument {
  budget: number;
  spent: number;
  /** What the message that would have passed the budget costs. */
  next: number;
  /** Its recipient. */
  to: string;
  currency: string | null;
  at: string;
}

function budgetStopDocument(stop: JournalBudgetStop | undefined): BudgetStopDocument | null {
  if (stop === undefined) return null;
  return { budget: stop.budget / UNIT, spent: stop.spent / UNIT, next: stop.next / UNIT, to: stop.to, currency: stop.currency ?? null, at: stop.at };
}

/** The state (`owed` in --json) and outcome (-o ndjson) of a recipient with no record in its journal. */
export const NOT_YET_SENT = 'not yet sent';

/** A recipient of a journal's share of the list that the journal has no record of. */
export interface NotYetSent {
  to: string;
  journal: number;
}

function sum(counts: readonly OutcomeCounts[]): OutcomeCounts {
  const total: OutcomeCounts = { recipients: 0, accepted: 0, rejected: 0, unknown: 0, notYetSent: 0, excluded: 0, optedOut: 0, zoneUnknown: 0 };
  for (const c of counts) for (const key of Object.keys(total) as (keyof OutcomeCounts)[]) total[key] += c[key];
  return total;
}

export function buildDocument(
  journals: readonly ReportJournal[],
  recipients: readonly ReportRecipient[],
  statuses: ReadonlyMap<string, MessageStatus>,
  reads: number,
  paths: readonly string[],
  notYetSent: readonly NotYetSent[] = [],
  unread = 0,
  coverage: Pick<ShardCoverage, 'runs' | 'missingShards'> = { runs: 1, missingShards: [] },
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
    if (!isSettled(status)) final = false;
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
  for (const recipient of notYetSent) owed.push({ to: recipient.to, state: NOT_YET_SENT, journal: paths[recipient.journal]!, error: null });
  delays.sort((a, b) => a - b);
  return {
    journals: journals.map((journal) => ({ path: journal.path, shard: journal.shard, from: journal.from, counts: journal.counts, budgetStop: budgetStopDocument(journal.budgetStop) })),
    total: sum(journals.map((journal) => journal.counts)),
    runs: coverage.runs,
    missingShards: coverage.missingShards,
    owed,
    statuses: funnel,
    failures: [...reasons.values()].sort((a, b) => b.count - a.count),
    sendToDelivery: { count: delays.length, p50Ms: percentile(delays, 0.5), p95Ms: percentile(delays, 0.95), maxMs: delays.length === 0 ? null : delays[delays.length - 1]! },
    final,
    reads,
    unread,
  };
}
