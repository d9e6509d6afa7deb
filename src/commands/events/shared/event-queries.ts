import { existsSync } from 'node:fs';
import type { Context } from '../../../context.js';
import { isE164 } from '../../../domain/api/patterns.js';
import { WEBHOOK_EVENT_KINDS } from '../../../domain/api/enums.js';
import { requireE164 } from '../../../input/checks.js';
import { NotFoundError, UsageError } from '../../../errors.js';
import { EventStoreReader } from '../../../events/store/reader.js';
import { normalizeNumber } from '../../../events/store/index-entries.js';
import type { StoredRecord } from '../../../events/store/record.js';
import type { CommandInput } from '../../spec.js';
import { parseTime, readStoreDir } from './store-options.js';

/**
 * The kinds a stored event may have: the service's; OptOut and OptIn, which the listener records
 * when a message changes the opt-out list; or unknown when the service named none we know.
 */
export const EVENT_TYPES = [...WEBHOOK_EVENT_KINDS, 'OptOut', 'OptIn', 'unknown'] as const;

export function eventType(text: string): string {
  const match = EVENT_TYPES.find((type) => type.toLowerCase() === text.trim().toLowerCase());
  if (match === undefined) throw new UsageError(`--type must be one of ${EVENT_TYPES.join(', ')}, not "${text}"`);
  return match;
}

/**
 * A number as the store keeps it: E.164, written with or without the spaces, dashes, dots and
 * brackets people type; anything else gets the one E.164 message, naming what was typed.
 */
export function numberArg(text: string, what: string): string {
  const number = normalizeNumber(text.trim());
  return isE164(number) ? number : requireE164(text, what);
}

export function timeRange(ctx: Context, sinceText: string | undefined, untilText?: string): { since?: number; until?: number } {
  const now = ctx.clock.now();
  const range: { since?: number; until?: number } = {};
  if (sinceText !== undefined) range.since = parseTime(sinceText, '--since', now);
  if (untilText !== undefined) range.until = parseTime(untilText, '--until', now);
  if (range.since !== undefined && range.until !== undefined && range.since >= range.until) {
    throw new UsageError(`--since ${sinceText} is not before --until ${untilText}`);
  }
  return range;
}

export function openReader(input: CommandInput<'store'>, ctx: Context): { dir: string; reader: EventStoreReader; exists: boolean } {
  const dir = readStoreDir(input, ctx.env);
  return { dir, reader: new EventStoreReader(dir, { notice: (message) => ctx.warn(message) }), exists: existsSync(dir) };
}

export function requireId(input: CommandInput<never>): string {
  const id = (input.arg(0) ?? '').trim();
  if (id === '') {
    throw new UsageError("give the event id: a received event's X-Svc-Delivery (like dlv_0123456789abcdef01234567), or sent:MESSAGE_ID for a message sent, as `svc events list` shows them");
  }
  return id;
}

export function findEvent(reader: EventStoreReader, dir: string, id: string): StoredRecord {
  const record = reader.get(id);
  if (record === undefined) throw new NotFoundError(`no event ${JSON.stringify(id)} in the event store ${dir}`);
  return record;
}
