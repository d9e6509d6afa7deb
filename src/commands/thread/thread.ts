import type { Context } from '../../context.js';
import type { StoredRecord } from '../../events/store/record.js';
import { paint, projectFields, statusTone, writeJson, writeList } from '../../output/render.js';
import { visibleLine, visibleText } from '../../output/terminal.js';
import { cutToWidth, widthRuleFor, wrapToWidth } from '../../output/width.js';
import { parsePayload } from '../../webhooks/payloads.js';
import { describeConsentRecord } from '../../optouts/record.js';
import { numberArg, openReader, timeRange } from '../events/shared/event-queries.js';
import { sendsInJournals, type JournalSend } from './shared/journal-sends.js';
import type { InputFor } from '../spec.js';
import type { threadCommands } from './index.js';
import { writeExact } from '../../output/io.js';

// One conversation with a number: what was sent to it, what came back from it, and what the
// receipts said about each sent message, in time order.

export interface ThreadItem {
  at: string;
  /** out: sent to the number; in: received from it; receipt: a delivery receipt of a sent message. */
  direction: 'out' | 'in' | 'receipt' | 'event';
  id: string;
  type: string;
  messageId: string | null;
  from: string | null;
  to: string[];
  body: string | null;
  status: string | null;
  errorCode?: string | null;
  errorMessage?: string | null;
  /** A send known only from this journal (its body is not recorded there). */
  journal?: string;
}

function payloadOf(record: StoredRecord): Record<string, unknown> {
  try {
    const value = parsePayload(record.body);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);

export function threadItem(record: StoredRecord, number: string): ThreadItem {
  const base = {
    at: record.at,
    id: record.id,
    type: record.type,
    messageId: record.messageId ?? null,
    from: record.from ?? null,
    to: record.to ?? [],
    status: record.status ?? null,
  };
  if (record.kind === 'sent') return { ...base, direction: 'out', body: record.body };
  const payload = payloadOf(record);
  if (record.type === 'DeliveryReceipt') {
    return { ...base, direction: 'receipt', body: null, errorCode: str(payload['errorCode']), errorMessage: str(payload['errorMessage']) };
  }
  if (record.type === 'MessageReceived') {
    return { ...base, direction: record.from === number ? 'in' : 'out', body: str(payload['message']) ?? str(payload['body']) ?? '' };
  }
  if (record.type === 'OptOut' || record.type === 'OptIn') return { ...base, direction: 'event', body: describeConsentRecord(record.type, record.body) ?? null };
  return { ...base, direction: 'event', body: null };
}

function clock(iso: string): string {
  const date = new Date(iso);
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${two(date.getHours())}:${two(date.getMinutes())}`;
}

function day(iso: string): string {
  const date = new Date(iso);
  return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;
}

/** A message's text as the chat shows it: its own line breaks kept, other control characters visible. */
function chatText(body: string): string {
  return visibleText(body.replace(/\r\n?/g, '\n').replace(/\t/g, ' '));
}

async function renderChat(ctx: Context, number: string, items: readonly ThreadItem[]): Promise<string> {
  // Widths are display columns (CJK and emoji take two; a cluster is never split): width.ts.
  const columns = Math.max(20, Math.min(ctx.io.columns || 80, 120));
  const bubble = Math.max(16, Math.floor(columns * 0.6));
  // The latest receipt of each sent message shows under it.
  const receipts = new Map<string, ThreadItem>();
  for (const item of items) if (item.direction === 'receipt' && item.messageId !== null) receipts.set(item.messageId, item);
  const rule = await widthRuleFor(items.map((item) => `${item.body ?? ''} ${item.from ?? ''} ${item.to.join('')} ${item.status ?? ''} ${item.errorMessage ?? ''} ${item.id}`));
  const out: string[] = [await paint(ctx, 'stdout', 'accent', `Conversation with ${number}`)];
  /** A line pushed to the right edge. */
  const right = (line: string): string => `${' '.repeat(Math.max(0, columns - rule.width(line) - 2))}${line}`;
  let lastDay = '';
  for (const item of items) {
    if (item.direction === 'receipt') continue;
    const today = day(item.at);
    if (today !== lastDay) {
      out.push('', await paint(ctx, 'stdout', 'dim', `── ${today} ──`));
      lastDay = today;
    }
    if (item.direction === 'event') {
      const what = item.body !== null ? `${item.type}: ${visibleLine(item.body)}` : `${item.type} ${visibleLine(item.id)}`;
      out.push(await paint(ctx, 'stdout', 'dim', cutToWidth(rule, `   ${clock(item.at)} ${what}`, columns)));
      continue;
    }
    const text = item.body === null ? [await paint(ctx, 'stdout', 'dim', '(text not recorded: from the journal)')] : wrapToWidth(rule, chatText(item.body), bubble - 2);
    if (item.direction === 'in') {
      for (const line of text) out.push(`  ${line}`);
      for (const line of wrapToWidth(rule, `${clock(item.at)} from ${visibleLine(item.from ?? '?')}`, columns - 2)) out.push(await paint(ctx, 'stdout', 'dim', `  ${line}`));
    } else {
      for (const line of text) out.push(await paint(ctx, 'stdout', 'accent', right(line)));
      const receipt = item.messageId === null ? undefined : receipts.get(item.messageId);
      const status = receipt?.status ?? item.status ?? 'sent';
      const detail = receipt?.errorMessage ? ` (${visibleLine(receipt.errorMessage)})` : '';
      const meta = `${clock(item.at)} to ${visibleLine(item.to.join(', '))} · ${visibleLine(status)}${detail}`;
      const tone = statusTone(status) === 'bad' ? 'bad' : 'dim';
      for (const line of wrapToWidth(rule, meta, columns - 2)) out.push(await paint(ctx, 'stdout', tone, right(line)));
    }
  }
  if (items.length === 0) out.push('', 'Nothing stored for this number yet.');
  return out.join('\n');
}

/** A send known from a journal only: no body (a journal keeps the body's digest). */
export function journalItem(send: JournalSend): ThreadItem {
  return {
    at: send.at,
    direction: 'out',
    id: send.messageId === null ? `journal:${send.journal}#${send.seq}` : `sent:${send.messageId}`,
    type: 'sent',
    messageId: send.messageId,
    from: send.from,
    to: [send.to],
    body: null,
    status: send.status,
    journal: send.journal,
  };
}

/**
 * The thread: the store's records about the number, and the sends the journals name that the
 * store does not hold (deduplicated by message id), with the receipts of those messages too.
 */
async function threadItems(input: InputFor<typeof threadCommands, 'thread'>, ctx: Context, number: string): Promise<ThreadItem[]> {
  const range = timeRange(ctx, input.string('since'));
  const { reader, exists } = openReader(input, ctx);
  const records = exists ? reader.query({ number, linkReceipts: true, ...range }) : [];
  const items = records.map((record) => threadItem(record, number));
  const journals = input.strings('journal');
  if (journals.length === 0) return items;
  const known = new Set(records.map((record) => record.messageId).filter((id): id is string => id !== undefined));
  const inRange = (at: string): boolean => {
    const time = Date.parse(at);
    return (range.since === undefined || time >= range.since) && (range.until === undefined || time < range.until);
  };
  const added: ThreadItem[] = [];
  const addedIds: string[] = [];
  for (const send of await sendsInJournals(journals, number)) {
    if (!inRange(send.at)) continue;
    if (send.messageId !== null) {
      if (known.has(send.messageId)) continue;
      known.add(send.messageId);
      addedIds.push(send.messageId);
    }
    added.push(journalItem(send));
  }
  // Receipts name only the message: those of journal-only sends are found by their ids.
  const receipts = exists && addedIds.length > 0 ? reader.query({ kinds: ['event'], messageIds: addedIds, ...range }) : [];
  const seen = new Set(records.map((record) => record.id));
  for (const record of receipts) if (!seen.has(record.id)) added.push(threadItem(record, number));
  // A stable merge by time: store items keep their order, journal items slot in by their time.
  return [...items, ...added].map((item, i) => ({ item, i })).sort((a, b) => Date.parse(a.item.at) - Date.parse(b.item.at) || a.i - b.i).map(({ item }) => item);
}

export async function run(input: InputFor<typeof threadCommands, 'thread'>, ctx: Context): Promise<number> {
  const number = numberArg(input.arg(0) ?? '', 'NUMBER');
  const items = await threadItems(input, ctx, number);
  if (ctx.globals.output === 'json') {
    writeJson(ctx, items);
    return 0;
  }
  if (ctx.globals.fields !== undefined && ctx.globals.fields.length > 0 && ctx.globals.output === 'table') {
    // With --fields, a table of those fields (tab-separated when piped) instead of the chat.
    await writeList(ctx, items, []);
    return 0;
  }
  if (ctx.globals.output === 'table' && ctx.io.stdoutIsTTY) {
    ctx.io.stdout.write(`${await renderChat(ctx, number, items)}\n`);
    return 0;
  }
  const shown = projectFields(ctx, items) as unknown[];
  writeExact(ctx.io.stdout, shown.map((item) => `${JSON.stringify(item)}\n`).join(''));
  return 0;
}
