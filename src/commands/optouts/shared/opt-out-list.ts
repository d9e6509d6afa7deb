import { hostname, userInfo } from 'node:os';
import type { Context } from '../../../context.js';
import { EVERY_NUMBER, type ConsentChange } from '../../../optouts/log.js';
import { OptOutList, type OptOutEntry } from '../../../optouts/list.js';
import type { Column } from '../../../output/render.js';
import type { CommandInput } from '../../spec.js';
import { readStoreDir } from '../../events/shared/store-options.js';
import { numberArg } from '../../events/shared/event-queries.js';
import { requireGuid } from '../../../input/checks.js';

// What the optouts verbs share: the store, the sending number, who is acting, the table.

export function optOutsDir(input: CommandInput<'store'>, ctx: Context): string {
  return readStoreDir(input, ctx.env);
}

/** The list in `dir`, with a warning naming damaged lines (a torn write is skipped, never fatal). */
export function readList(dir: string, ctx: Context): OptOutList {
  const { list, damaged } = OptOutList.read(dir);
  if (damaged.length > 0) {
    const lines = damaged.slice(0, 5).join(', ') + (damaged.length > 5 ? ` and ${damaged.length - 5} more` : '');
    ctx.warn(`${dir}/optouts.ndjson: line${damaged.length === 1 ? '' : 's'} ${lines} could not be read (cut short or edited) and ${damaged.length === 1 ? 'was' : 'were'} skipped`);
  }
  return list;
}

/** --number FROM as the store keeps it, or EVERY_NUMBER when it is not given. */
export function sendingNumber(input: CommandInput<'number'>): string {
  const text = input.string('number');
  return text === undefined ? EVERY_NUMBER : numberArg(text, '--number');
}

/** --tenant GUID as given (trimmed), or undefined; anything but a GUID is refused naming it (exit 2). */
export function tenantOption(input: CommandInput<'tenant'>): string | undefined {
  const text = input.string('tenant');
  return text === undefined ? undefined : requireGuid(text.trim(), '--tenant');
}

/**
 * The entries `optouts list` and `export` show: every one, or those a send from --number for
 * --tenant would honour (each flag narrows on its own).
 */
export function selectedEntries(input: CommandInput<'number' | 'tenant' | 'store'>, ctx: Context): { entries: OptOutEntry[]; from?: string; tenant?: string } {
  const fromText = input.string('number');
  const from = fromText === undefined ? undefined : numberArg(fromText, '--number');
  const tenant = tenantOption(input);
  const entries = readList(optOutsDir(input, ctx), ctx).entries(from, tenant);
  return { entries, ...(from !== undefined ? { from } : {}), ...(tenant !== undefined ? { tenant } : {}) };
}

/** Who makes a change by hand: the user and the machine, as a log of consent should say. */
export function actingUser(): string {
  let user = 'unknown user';
  try {
    user = userInfo().username;
  } catch {
    // No passwd entry (some containers): the machine alone still says where it came from.
  }
  return `${user}@${hostname()}`;
}

/** `+15551230000`, `every number of tenant GUID`, `every number` (of every tenant). */
export function describeSender(from: string, tenant?: string): string {
  if (from !== EVERY_NUMBER) return from;
  return tenant === undefined ? 'every number' : `every number of tenant ${tenant}`;
}

/** Why, in words: `STOP (event dlv-1)`, `added by hand: asked on the phone`. */
export function describeCause(entry: ConsentChange): string {
  if (entry.cause === 'keyword') return `${entry.keyword ?? 'keyword'}${entry.event !== undefined ? ` (event ${entry.event})` : ''}`;
  const base = entry.cause === 'hand' ? 'added by hand' : 'imported';
  return entry.reason !== undefined ? `${base}: ${entry.reason}` : base;
}

export const ENTRY_COLUMNS: Column<OptOutEntry>[] = [
  { header: 'NUMBER', value: (e) => e.number, kind: 'id', importance: 5 },
  { header: 'OPTED OUT OF', value: (e) => describeSender(e.from, e.tenant), kind: 'id', importance: 4 },
  { header: 'SINCE', value: (e) => e.at, kind: 'time', importance: 3 },
  { header: 'WHY', value: (e) => describeCause(e), kind: 'text', importance: 2 },
  { header: 'BY', value: (e) => e.by, kind: 'text', importance: 1 },
];

/** The JSON form of an entry: the log's fields, `from` null for every number. */
export function entryJson(entry: OptOutEntry): Record<string, unknown> {
  return {
    number: entry.number,
    from: entry.from === EVERY_NUMBER ? null : entry.from,
    at: entry.at,
    cause: entry.cause,
    keyword: entry.keyword ?? null,
    event: entry.event ?? null,
    tenant: entry.tenant ?? null,
    reason: entry.reason ?? null,
    by: entry.by,
  };
}
