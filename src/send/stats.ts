import { countSegments, gsmLookalikeOf, toGsmLookalikes, type SegmentInfo, type SmsEncoding } from '../domain/segments.js';
import { CostBook, type CostSummary, type EncodingCounts } from './cost/book.js';
import type { PriceList } from './cost/prices.js';
import { readRecipients } from './recipients.js';
import type { RecipientRow } from './recipient-rows.js';
import type { CompiledTemplate } from './template.js';
import type { SendPlan } from './plan.js';
import { RecipientFilter, type SkipRecipient } from './pace/filter.js';

export type { SkipRecipient } from './pace/filter.js';

// What a send will cost before it is made: recipients, requests, encoding and segments. With a
// templated body every recipient's text is rendered and counted (streamed, nothing kept).

export interface BodyStats {
  requests: number;
  recipients: number;
  /** Recipients left out by --resume: `skippedAccepted` plus `skippedUnknown`. */
  skipped: number;
  /** Of `skipped`: those the journal shows as accepted (already sent). */
  skippedAccepted: number;
  /** Of `skipped`: those of unknown outcome in the journal, left out by --unknown skip (or until it chooses). */
  skippedUnknown: number;
  /** UCS-2 when any recipient's text needs it. */
  encoding: SmsEncoding;
  /** Characters of one message (the longest, for a templated body). */
  characters: number;
  /** Segments of one message (the most, for a templated body). */
  segments: number;
  /** Segments billed over all recipients. */
  totalSegments: number;
  /** Characters that forced UCS-2, distinct, first seen first. */
  nonGsmCharacters: string[];
  /** True when the body has placeholders, so that counts vary by recipient. */
  templated: boolean;
  /** Recipients on the --exclude-file list (in this shard, not already accepted). */
  excluded: number;
  /** Recipients that belong to the other shards (--shard). */
  otherShards: number;
  /** Recipients who opted out of the sending number (not already accepted). */
  optedOut: number;
  /** Messages and segments by encoding, over all recipients. */
  byEncoding: EncodingCounts;
  /**
   * Segments in total were every character outside GSM-7 that has a plain look-alike spelt so
   * (curly quotes, dashes, ellipsis, odd spaces): less than totalSegments when that spelling
   * would take messages out of UCS-2.
   */
  gsmSpellingSegments: number;
  /** The characters of nonGsmCharacters that have a GSM-7 spelling, with it. */
  respellable: { character: string; as: string }[];
  /** With --prices: the cost by country. */
  cost?: CostSummary;
  /** Per-recipient --window: recipients held back because their zone cannot be told, and the first of them. */
  zoneUnknown: number;
  zoneUnknownNumbers: string[];
}

const MAX_LISTED = 20;

/** The filter of this run's recipients: its shard, the exclude list, and what --resume skips. */
export function recipientFilterOf(plan: SendPlan, skip: SkipRecipient | undefined): RecipientFilter {
  return new RecipientFilter(plan.pace.exclude?.list, plan.pace.shard, skip, plan.optOuts?.lookup, plan.recipientWindows);
}

/** The --to recipients this run sends to (in order), less those `filter` leaves out (it counts them). */
export function toRecipients(plan: SendPlan, filter: RecipientFilter): string[] {
  return plan.to!.filter((to) => filter.admits(to));
}

/**
 * How many recipients this run sends to: the --to numbers its filters leave in; the file's count
 * when nothing leaves any out; else as the check counted them, or (resumed) by the cost's pass.
 */
export async function recipientsOfRun(plan: SendPlan, skip: SkipRecipient | undefined, cost: () => Promise<BodyStats>, filter = recipientFilterOf(plan, skip)): Promise<number> {
  if (plan.to !== undefined) return toRecipients(plan, filter).length;
  if (!filter.active) return plan.toFile!.check.recipients;
  const counted = skip === undefined ? plan.toFile!.admitted : undefined;
  return counted !== undefined ? counted.admittedCount : (await cost()).recipients;
}

export async function bodyStats(plan: SendPlan, skip: SkipRecipient | undefined): Promise<BodyStats> {
  // Counted as the check read the file (planSend), when nothing the journal says could change it.
  if (skip === undefined && plan.toFile?.cost !== undefined) return plan.toFile.cost;
  const stats = emptyStats(!plan.template.isStatic);
  const filter = recipientFilterOf(plan, skip);
  if (plan.to !== undefined) {
    const remaining = toRecipients(plan, filter);
    stats.recipients = remaining.length;
    stats.requests = remaining.length > 0 ? 1 : 0;
    countLeftOut(stats, filter);
    const info = addText(stats, plan.body, remaining.length);
    if (plan.prices !== undefined) {
      const book = new CostBook(plan.prices);
      for (const to of remaining) book.add(to, info.segments);
      stats.cost = book.summary();
    }
    return stats;
  }

  const file = plan.toFile!;
  if (plan.template.isStatic && !filter.active && plan.prices === undefined) {
    stats.recipients = file.check.recipients;
    stats.requests = file.check.recipients;
    addText(stats, plan.body, file.check.recipients);
    return stats;
  }
  const tally = new CostTally(plan.body, () => plan.template, filter, plan.prices);
  for await (const row of readRecipients(file.source)) tally.row(row, []);
  return tally.finish()!;
}

function countLeftOut(stats: BodyStats, filter: RecipientFilter): void {
  stats.skipped = filter.skipped;
  stats.skippedAccepted = filter.accepted;
  stats.skippedUnknown = filter.unknownSkipped;
  stats.excluded = filter.excluded;
  stats.otherShards = filter.otherShards;
  stats.optedOut = filter.optedOut;
  stats.zoneUnknown = filter.zoneUnknown;
  stats.zoneUnknownNumbers = [...filter.zoneUnknownNumbers];
}

function emptyStats(templated: boolean): BodyStats {
  return {
    requests: 0,
    recipients: 0,
    skipped: 0,
    skippedAccepted: 0,
    skippedUnknown: 0,
    encoding: 'GSM-7',
    characters: 0,
    segments: 0,
    totalSegments: 0,
    nonGsmCharacters: [],
    templated,
    excluded: 0,
    otherShards: 0,
    optedOut: 0,
    byEncoding: { 'GSM-7': { messages: 0, segments: 0 }, 'UCS-2': { messages: 0, segments: 0 } },
    gsmSpellingSegments: 0,
    respellable: [],
    zoneUnknown: 0,
    zoneUnknownNumbers: [],
  };
}

/** Counts `recipients` messages of `text`; returns the text's segment count. */
function addText(stats: BodyStats, text: string, recipients: number): SegmentInfo {
  const info = countSegments(text);
  stats.characters = Math.max(stats.characters, info.characters);
  stats.segments = Math.max(stats.segments, info.segments);
  stats.totalSegments += info.segments * recipients;
  const encoding = stats.byEncoding[info.encoding];
  encoding.messages += recipients;
  encoding.segments += info.segments * recipients;
  if (info.encoding === 'GSM-7') {
    stats.gsmSpellingSegments += info.segments * recipients;
    return info;
  }
  stats.encoding = 'UCS-2';
  stats.gsmSpellingSegments += countSegments(toGsmLookalikes(text)).segments * recipients;
  for (const character of info.nonGsmCharacters) {
    if (stats.nonGsmCharacters.length < MAX_LISTED && !stats.nonGsmCharacters.includes(character)) {
      stats.nonGsmCharacters.push(character);
      const as = gsmLookalikeOf(character);
      if (as !== undefined) stats.respellable.push({ character, as });
    }
  }
  return info;
}

/**
 * The cost of a file send, counted row by row: by bodyStats' own pass, or by the check of the
 * file as it reads it (planSend), so that a dry run reads the file once. The template comes from
 * `templateFor` when the first row arrives (the check knows the header's columns by then); a
 * template that does not compile leaves the count to bodyStats, after the check has refused it.
 */
export class CostTally {
  private template: CompiledTemplate | undefined;
  private failed = false;
  private staticInfo: { text: string } | undefined;
  private readonly stats: BodyStats;
  private readonly book: CostBook | undefined;
  /** A static body's segments (counted once), for pricing each recipient. */
  private staticSegments: number | undefined;

  constructor(
    private readonly body: string,
    private readonly templateFor: (columns: readonly string[]) => CompiledTemplate,
    private readonly filter: RecipientFilter,
    prices?: PriceList | undefined,
  ) {
    this.stats = emptyStats(false);
    this.book = prices !== undefined ? new CostBook(prices) : undefined;
  }

  readonly row = (row: RecipientRow, columns: readonly string[]): void => {
    if (this.failed) return;
    if (this.template === undefined) {
      try {
        this.template = this.templateFor(columns);
      } catch {
        this.failed = true;
        return;
      }
      this.stats.templated = !this.template.isStatic;
      if (this.template.isStatic) this.staticInfo = { text: this.body };
    }
    if (this.filter.active && !this.filter.admits(row.to, row.fields)) return;
    this.stats.recipients++;
    if (this.staticInfo === undefined) {
      const info = addText(this.stats, this.template.render(row.fields), 1);
      this.book?.add(row.to, info.segments);
    } else if (this.book !== undefined) {
      this.staticSegments ??= countSegments(this.body).segments;
      this.book.add(row.to, this.staticSegments);
    }
  };

  /** The cost, or undefined when the template did not compile. */
  finish(): BodyStats | undefined {
    if (this.failed) return undefined;
    const { stats } = this;
    stats.requests = stats.recipients;
    countLeftOut(stats, this.filter);
    if (this.template === undefined || this.staticInfo !== undefined) addText(stats, this.body, stats.recipients);
    if (this.book !== undefined) stats.cost = this.book.summary();
    return stats;
  }
}
