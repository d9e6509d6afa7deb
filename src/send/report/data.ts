// The data of `svc send report`: what the journals say (per shard and in total), then what the
// service says about each accepted message (GET /messages/{id}), with final statuses cached beside
// each journal so that a second report does not read them again.
//
// The journals are read through `readJournalRecords` (the write-ahead journal's own checked
// reader): a damaged journal is refused with its line, as `--resume` refuses it. No lock is taken,
// so a send may be writing a journal as it is read; that reader tells its moving end from damage.

import { appendFileSync, readFileSync } from 'node:fs';
import { cannotWrite } from '../../input/file-errors.js';
import { getMessage, messageOutcome, type Message } from '../../api/messages.js';
import type { ApiClient } from '../../api/http.js';
import { AuthError, InterruptedError, NotFoundError } from '../../errors.js';
import { readJournalRecords } from '../journal/parser.js';
import type { JournalBudgetStop, JournalError, JournalLine, JournalOwnCounts, JournalRun } from '../journal/format.js';

export type JournalState = 'accepted' | 'rejected' | 'unknown';

export interface ReportRecipient {
  to: string;
  /** Index of its journal in the report. */
  journal: number;
  state: JournalState;
  messageId?: string;
  /** When the journal recorded the answer (ISO 8601). */
  answeredAt?: string;
  error?: JournalError;
}

export interface Shard {
  k: number;
  n: number;
}

export interface OutcomeCounts {
  recipients: number;
  accepted: number;
  rejected: number;
  unknown: number;
  notYetSent: number;
  /** Left out by --exclude-file (never sent, not owed). */
  excluded: number;
  /** Left out because they opted out of the sending number (never sent, not owed). */
  optedOut: number;
  /**
   * Held back because their time zone could not be told (per-recipient --window; never sent by
   * guess, not owed by this run). recipients = accepted + rejected + unknown + notYetSent +
   * excluded + optedOut + zoneUnknown.
   */
  zoneUnknown: number;
}

export interface ReportJournal {
  path: string;
  shard: Shard | null;
  from: string;
  /** The run's recipients digest (`sha256:…` of the recipients file). */
  recipientsDigest: string;
  /** What the header binds the journal to: from-number, body, recipients and media digests. */
  run: JournalRun;
  counts: OutcomeCounts;
  /**
   * The digest of the --exclude-file set the run keeps to (its header's `exclude`, or the one a
   * `--resume` grew it to), when it had one.
   */
  excludeDigest?: string;
  /** The exclude list grew on a --resume: recipients the journal names may be on it now. */
  excludeGrew?: true;
  /** This run's own recipients (its shard, less the excluded), as the journal last counted them. */
  ownRecipients: number;
  /** A sharded journal of an older svc: its header does not say how many recipients its shard holds. */
  ownUnknown?: true;
  /** The --to-file the run was sent from, as its header names it (absolute), when it has one. */
  toFile?: string;
  /** Where --budget stopped the run's last session (none when it was resumed since without a new stop). */
  budgetStop?: JournalBudgetStop;
}

const ACCEPTED = 1;
const REJECTED = 2;
const UNKNOWN = 4;

/** Reads one journal into its recipients' final states (accepted beats unknown beats rejected). */
export async function readReportJournal(path: string, index: number, into: ReportRecipient[]): Promise<ReportJournal> {
  const reading = new JournalReading(index);
  for await (const record of readJournalRecords(path)) reading.add(record);
  if (!reading.sawHeader) throw new Error(`${path}: no such journal (or an empty file)`);
  return reading.finish(path, into);
}

type Tracked = { bits: number; entry: ReportRecipient };

/** One journal's records, taken in order: what its header says, and each recipient's outcomes seen so far. */
class JournalReading {
  private readonly recipients = new Map<string, Tracked>();
  /** Launches without a result yet: in flight when the journal ended means unknown. */
  private readonly open = new Map<number, string[]>();
  sawHeader = false;
  private run: JournalRun = { from: '', body: '', recipients: '', recipientCount: 0, media: [] };
  private own: JournalOwnCounts | undefined;
  private excludeDigest: string | undefined;
  private excludeGrew = false;
  private shard: Shard | null = null;
  private sharded = false;
  private budgetStop: JournalBudgetStop | undefined;
  private toFile: string | undefined;
  /**
   * Those the last resume record says it left out as opted out since (named earlier as rejected
   * or of unknown outcome): counted among `own.optedOut`, so not also as owed.
   */
  private optedOutSince = new Set<string>();

  constructor(private readonly index: number) {}

  add(record: JournalLine): void {
    switch (record.type) {
      case 'header':
        this.sawHeader = true;
        this.run = record.header.run;
        this.own = record.header.own;
        this.excludeDigest = record.header.exclude?.digest;
        this.shard = record.header.shard ?? null;
        this.sharded = record.header.shard !== undefined && record.header.shard.n > 1;
        this.toFile = record.header.toFile;
        break;
      case 'launch':
        this.open.set(record.seq, record.to);
        for (const to of record.to) this.touch(to);
        break;
      case 'result':
        this.open.delete(record.seq);
        // Sent again after all: this session's outcome is theirs.
        if (this.optedOutSince.size > 0) for (const to of record.to) this.optedOutSince.delete(to);
        this.result(record);
        break;
      case 'throttled':
        // Refused unprocessed (429/503): closed with no outcome, so not yet sent unless an
        // earlier request said otherwise.
        this.open.delete(record.seq);
        for (const to of record.to) if (this.recipients.get(to)?.bits === 0) this.recipients.delete(to);
        break;
      case 'resume':
        // A resume with a grown --exclude-file: its list and counts stand from then on.
        if (record.exclude !== undefined && record.exclude.digest !== this.excludeDigest) {
          this.excludeDigest = record.exclude.digest;
          this.excludeGrew = true;
        }
        if (record.own !== undefined) this.own = record.own;
        // Each session says afresh who it left out as opted out since: someone may have opted back in.
        this.optedOutSince = new Set(record.optedOutSince);
        // A new session: the stop of the one before is over (a larger --budget went on).
        this.budgetStop = undefined;
        break;
      case 'stop':
        this.budgetStop = record;
        break;
      case 'pause':
        break;
    }
  }

  private touch(to: string): Tracked {
    let found = this.recipients.get(to);
    if (found === undefined) this.recipients.set(to, (found = { bits: 0, entry: { to, journal: this.index, state: 'rejected' } }));
    return found;
  }

  private result(record: Extract<JournalLine, { type: 'result' }>): void {
    record.to.forEach((to, position) => {
      const found = this.touch(to);
      if (record.outcome === 'accepted') {
        if ((found.bits & ACCEPTED) === 0) {
          // Each recipient's own id (a request to several --to recipients); a journal written
          // before messageIds, or an answer without `messages`, names the first one's only.
          const messageId = record.messageIds?.[position] ?? (position === 0 ? record.messageId : undefined);
          if (messageId !== undefined && messageId !== null) found.entry.messageId = messageId;
          found.entry.answeredAt = record.at;
        }
        found.bits |= ACCEPTED;
      } else {
        found.bits |= record.outcome === 'unknown' ? UNKNOWN : REJECTED;
        if (record.error !== undefined && (found.bits & ACCEPTED) === 0) found.entry.error = record.error;
      }
    });
  }

  /** Settles each recipient's state into `into`, and counts the journal. */
  finish(path: string, into: ReportRecipient[]): ReportJournal {
    const { recipients, own, sharded, excludeDigest } = this;
    for (const to of this.open.values()) for (const number of to) this.touch(number).bits |= UNKNOWN;
    const counts: OutcomeCounts = { recipients: 0, accepted: 0, rejected: 0, unknown: 0, notYetSent: 0, excluded: 0, optedOut: 0, zoneUnknown: 0 };
    let named = 0;
    for (const { bits, entry } of recipients.values()) {
      entry.state = bits & ACCEPTED ? 'accepted' : bits & UNKNOWN ? 'unknown' : 'rejected';
      // Opted out since they were tried: one of own.optedOut, neither owed nor counted twice.
      if (entry.state !== 'accepted' && this.optedOutSince.has(entry.to)) continue;
      if (entry.state !== 'accepted') delete entry.messageId;
      counts[entry.state]++;
      named++;
      into.push(entry);
    }
    // The header's run counts the whole list; its `own` counts this run's share of it (its shard,
    // less --exclude-file). A journal written before `own` existed: the whole list when it was not
    // sharded, else only the recipients it names (its shard's not-yet-sent cannot be known).
    const ownRecipients = own?.recipients ?? (sharded ? named : this.run.recipientCount);
    counts.excluded = own?.excluded ?? 0;
    counts.optedOut = own?.optedOut ?? 0;
    counts.zoneUnknown = own?.zoneUnknown ?? 0;
    counts.notYetSent = Math.max(0, ownRecipients - named);
    counts.recipients = Math.max(ownRecipients, named) + counts.excluded + counts.optedOut + counts.zoneUnknown;
    return {
      path,
      shard: this.shard,
      from: this.run.from,
      recipientsDigest: this.run.recipients,
      run: this.run,
      counts,
      ownRecipients,
      ...(excludeDigest !== undefined ? { excludeDigest } : {}),
      ...(this.excludeGrew ? { excludeGrew: true as const } : {}),
      ...(own === undefined && sharded ? { ownUnknown: true } : {}),
      ...(this.budgetStop !== undefined ? { budgetStop: this.budgetStop } : {}),
      ...(this.toFile !== undefined ? { toFile: this.toFile } : {}),
    };
  }
}

/**
 * Leaves out of a journal's recipients those not accepted that are on its exclude list now (a
 * resumed run's list that grew: people who opted out after they were tried): they are counted as
 * excluded, never as owed. Returns the recipients kept, of every journal.
 */
export function leaveOutExcluded(journal: ReportJournal, index: number, recipients: readonly ReportRecipient[], excluded: (to: string) => boolean): ReportRecipient[] {
  let named = 0;
  const kept = recipients.filter((recipient) => {
    if (recipient.journal !== index) return true;
    if (recipient.state !== 'accepted' && excluded(recipient.to)) {
      journal.counts[recipient.state]--;
      return false;
    }
    named++;
    return true;
  });
  const { counts } = journal;
  counts.notYetSent = Math.max(0, journal.ownRecipients - named);
  counts.recipients = Math.max(journal.ownRecipients, named) + counts.excluded + counts.optedOut + counts.zoneUnknown;
  return kept;
}

/** Whether the journals are the shards of one send, and which of its shards are not among them. */
export interface ShardCoverage {
  /** Distinct sends among the journals (1 when they are one send's shards, or one journal). */
  runs: number;
  /** Shards of the send with no journal given (ascending); null when the journals are of several sends. */
  missingShards: number[] | null;
  /** Why the journals are of several sends (for the warning), when they are. */
  unrelated: string[];
  /** Shards given more than once (two journals of one shard): `K/N: a.jsonl, b.jsonl`. */
  repeated: string[];
}

/**
 * Journals are of one send when their headers bind them to the same run (from-number, body,
 * recipients and media digests), the same exclude list and the same shard count N; a send's
 * shards are 1..N, so those not given are missing (the totals are then of the shards given).
 * The header holds no run id: two sends of the same list, body and number read as one.
 */
export function shardCoverage(journals: readonly ReportJournal[]): ShardCoverage {
  const n = (journal: ReportJournal): number => (journal.shard !== null && journal.shard.n > 1 ? journal.shard.n : 1);
  const first = journals[0];
  if (first === undefined) return { runs: 0, missingShards: [], unrelated: [], repeated: [] };
  const keyOf = (journal: ReportJournal): string =>
    JSON.stringify([journal.run.from, journal.run.body, journal.run.recipients, journal.run.media, journal.excludeDigest ?? null, n(journal)]);
  const runs = new Set(journals.map(keyOf)).size;
  if (runs > 1) {
    const unrelated: string[] = [];
    for (const other of journals.slice(1)) {
      if (keyOf(other) === keyOf(first)) continue;
      const why: string[] = [];
      if (other.run.from !== first.run.from) why.push(`sent from ${other.run.from}, not ${first.run.from}`);
      if (other.run.recipients !== first.run.recipients) why.push('another recipients list');
      if (other.run.body !== first.run.body) why.push('another body');
      if (JSON.stringify(other.run.media) !== JSON.stringify(first.run.media)) why.push('other media');
      if ((other.excludeDigest ?? null) !== (first.excludeDigest ?? null)) why.push('another --exclude-file');
      if (n(other) !== n(first)) why.push(n(other) === 1 ? 'not sharded' : n(first) === 1 ? `sharded in ${n(other)}` : `${n(other)} shards, not ${n(first)}`);
      unrelated.push(`${other.path} (${why.join(', ')})`);
    }
    return { runs, missingShards: null, unrelated, repeated: [] };
  }
  const total = n(first);
  if (total === 1) return { runs, missingShards: [], unrelated: [], repeated: [] };
  const given = new Map<number, string[]>();
  for (const journal of journals) {
    const k = journal.shard!.k;
    given.set(k, [...(given.get(k) ?? []), journal.path]);
  }
  const missingShards: number[] = [];
  for (let k = 1; k <= total; k++) if (!given.has(k)) missingShards.push(k);
  const repeated = [...given].filter(([, paths]) => paths.length > 1).map(([k, paths]) => `${k}/${total}: ${paths.join(', ')}`);
  return { runs, missingShards, unrelated: [], repeated };
}

// ---------------------------------------------------------------------------------------------
// Statuses

export const FUNNEL = ['delivered', 'sent', 'sending', 'queued', 'failed', 'unknown'] as const;
export type FunnelStatus = (typeof FUNNEL)[number];

export interface MessageStatus {
  messageId: string;
  status: FunnelStatus;
  /** The status word as the service gave it. */
  raw: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  queuedAt: string | null;
  sentAt: string | null;
  deliveredAt: string | null;
  /**
   * The service answered 404: it does not know the message now. An `unknown` for this report
   * only: not final, never cached (a message just sent may not be readable yet), read again by
   * the next --watch round and the next report.
   */
  notFound?: true;
}

export function funnelStatus(message: Message): FunnelStatus {
  const outcome = messageOutcome(message);
  if (outcome === 'delivered') return 'delivered';
  if (outcome === 'failed') return 'failed';
  const word = typeof message.status === 'string' ? message.status.trim().toLowerCase() : '';
  if (word === 'sent' || word === 'sending' || word === 'queued') return word;
  return 'unknown';
}

export function isFinal(status: FunnelStatus): boolean {
  return status === 'delivered' || status === 'failed';
}

/** A status that will not change: delivered or failed (a 404 is not one: it is read again). */
export function isSettled(status: MessageStatus | undefined): boolean {
  return status !== undefined && status.notFound !== true && isFinal(status.status);
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

export function statusFrom(messageId: string, message: Message): MessageStatus {
  return {
    messageId,
    status: funnelStatus(message),
    raw: text(message.status),
    errorCode: text(message['errorCode']),
    errorMessage: text(message['errorMessage']),
    queuedAt: text(message['queuedAt']),
    sentAt: text(message['sentAt']),
    deliveredAt: text(message['deliveredAt']),
  };
}

/** Final statuses kept beside a journal: `<journal>.statuses.ndjson`, one JSON object a line. */
export function cachePath(journal: string): string {
  return `${journal}.statuses.ndjson`;
}

export function readCache(journal: string): Map<string, MessageStatus> {
  const cache = new Map<string, MessageStatus>();
  let textContent: string;
  try {
    textContent = readFileSync(cachePath(journal), 'utf8');
  } catch {
    return cache;
  }
  for (const line of textContent.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const value = JSON.parse(line) as MessageStatus;
      // Only final statuses: a 404 that an older svc cached as final is read again.
      if (typeof value.messageId === 'string' && (FUNNEL as readonly string[]).includes(value.status) && isSettled(value)) cache.set(value.messageId, value);
    } catch {
      /* a torn last line: that status is read again */
    }
  }
  return cache;
}

export function appendCache(journal: string, statuses: readonly MessageStatus[]): void {
  const final = statuses.filter((status) => isSettled(status));
  if (final.length === 0) return;
  try {
    appendFileSync(cachePath(journal), final.map((status) => `${JSON.stringify(status)}\n`).join(''), { mode: 0o600 });
  } catch (error) {
    throw cannotWrite('the status cache', cachePath(journal), error);
  }
}

export interface ReadStatusesOptions {
  concurrency: number;
  /** Ctrl-C: the report stops (InterruptedError). */
  signal: AbortSignal;
  /**
   * The report's --timeout: when it aborts, the reads in flight are cut off (through to the HTTP
   * request and its retry waits), nothing more is read, and the ids not read are in `cutOff`.
   */
  deadline?: AbortSignal | undefined;
  onProgress?: (done: number, total: number) => void;
}

export interface ReadStatusesResult {
  statuses: MessageStatus[];
  /** Reads that failed (a network or server error, after the client's own retries). */
  failed: { messageId: string; message: string }[];
  /** Ids not read because the deadline came first (in flight then, or not started). */
  cutOff: string[];
  reads: number;
}

/**
 * Reads each message's status, `concurrency` at a time (the API client retries a failed read
 * itself). A message the service does not know (404) is an `unknown` for this report only (never
 * cached, read again next time); a read that still fails is left out of `statuses` and named in
 * `failed` (to be told, and read again by --watch), never taken for a status. Credentials that do
 * not work stop the report; so does Ctrl-C. The deadline stops the reads without an error.
 */
export async function readStatuses(api: ApiClient, ids: readonly string[], options: ReadStatusesOptions): Promise<ReadStatusesResult> {
  const statuses: MessageStatus[] = [];
  const failed: { messageId: string; message: string }[] = [];
  const cutOff: string[] = [];
  const { deadline } = options;
  // One signal for every read of this call: the HTTP layer listens once per signal, not per read.
  const signal = deadline === undefined ? options.signal : AbortSignal.any([options.signal, deadline]);
  let next = 0;
  let done = 0;
  let reads = 0;
  const worker = async (): Promise<void> => {
    while (next < ids.length) {
      if (options.signal.aborted) throw new InterruptedError();
      if (deadline?.aborted) return;
      const at = next++;
      const id = ids[at]!;
      reads++;
      try {
        statuses.push(statusFrom(id, await getMessage(api, id, signal)));
      } catch (error) {
        if (options.signal.aborted) throw error;
        if (deadline?.aborted) {
          cutOff.push(id);
          return;
        }
        if (error instanceof AuthError || error instanceof InterruptedError) throw error;
        const message = error instanceof Error ? error.message : String(error);
        if (error instanceof NotFoundError) {
          statuses.push({ messageId: id, status: 'unknown', raw: null, errorCode: null, errorMessage: message, queuedAt: null, sentAt: null, deliveredAt: null, notFound: true });
        } else {
          failed.push({ messageId: id, message });
        }
      }
      done++;
      options.onProgress?.(done, ids.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, ids.length) }, worker));
  // Those no worker started before the deadline.
  for (let at = next; at < ids.length; at++) cutOff.push(ids[at]!);
  return { statuses, failed, cutOff, reads };
}

export function percentile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}
