import { countSegments, type SmsEncoding } from '../sms/segments.js';
import { readRecipients } from './recipients.js';
import type { SendPlan } from './plan.js';
import { RecipientFilter } from './pace/filter.js';

// What a send will cost before it is made: recipients, requests, encoding and segments. With a
// templated body every recipient's text is rendered and counted (streamed, nothing kept).

export interface BodyStats {
  requests: number;
  recipients: number;
  /** Recipients left out because the journal shows them accepted, or unknown with --unknown skip (--resume). */
  skipped: number;
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
  /** Recipients on the --exclude-file list (in this shard). */
  excluded: number;
  /** Recipients that belong to the other shards (--shard). */
  otherShards: number;
}

const MAX_LISTED = 20;

/** Whether --resume leaves a recipient out. */
export type SkipRecipient = (to: string) => boolean;

export async function bodyStats(plan: SendPlan, skip: SkipRecipient | undefined): Promise<BodyStats> {
  const stats: BodyStats = {
    requests: 0,
    recipients: 0,
    skipped: 0,
    encoding: 'GSM-7',
    characters: 0,
    segments: 0,
    totalSegments: 0,
    nonGsmCharacters: [],
    templated: !plan.template.isStatic,
    excluded: 0,
    otherShards: 0,
  };
  const add = (text: string, recipients: number): void => {
    const info = countSegments(text);
    if (info.encoding === 'UCS-2') stats.encoding = 'UCS-2';
    stats.characters = Math.max(stats.characters, info.characters);
    stats.segments = Math.max(stats.segments, info.segments);
    stats.totalSegments += info.segments * recipients;
    for (const character of info.nonGsmCharacters) {
      if (stats.nonGsmCharacters.length < MAX_LISTED && !stats.nonGsmCharacters.includes(character)) stats.nonGsmCharacters.push(character);
    }
  };

  if (plan.to !== undefined) {
    const remaining = plan.to.filter((to) => !skip?.(to));
    stats.recipients = remaining.length;
    stats.skipped = plan.to.length - remaining.length;
    stats.requests = remaining.length > 0 ? 1 : 0;
    add(plan.body, remaining.length);
    return stats;
  }

  const file = plan.toFile!;
  const filter = new RecipientFilter(plan.pace.exclude?.list, plan.pace.shard);
  if (plan.template.isStatic && skip === undefined && !filter.active) {
    stats.recipients = file.check.recipients;
    stats.requests = file.check.recipients;
    add(plan.body, file.check.recipients);
    return stats;
  }
  const staticInfo = plan.template.isStatic ? countSegments(plan.body) : undefined;
  for await (const row of readRecipients(file.source)) {
    if (filter.active && !filter.admits(row.to)) continue;
    if (skip?.(row.to)) {
      stats.skipped++;
      continue;
    }
    stats.recipients++;
    if (staticInfo === undefined) add(plan.template.render(row.fields), 1);
  }
  stats.requests = stats.recipients;
  stats.excluded = filter.excluded;
  stats.otherShards = filter.otherShards;
  if (staticInfo !== undefined) add(plan.body, stats.recipients);
  return stats;
}
