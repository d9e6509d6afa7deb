import type { SendContext } from './send-context.js';
import type { SendElement } from './results.js';
import { cellText, paint, statusTone, writeList, writeObject, type Column } from '../output/render.js';
import { visibleLine } from '../output/terminal.js';
import { widthRuleFor } from '../output/width.js';
import { commandLine } from '../output/command-line.js';
import { messageOutcome } from '../api/messages.js';

// What a person sees after `svc send --to ...` (one request): one row per recipient, whatever
// the answer's shape (the service answers the first recipient's fields and a `messages` list
// for several); no field the service left empty; and on a terminal, the command to run next.
// --json and --fields keep the answer as it came (results.ts).

export interface SentRecipient {
  to: string;
  messageId: string;
  status: string;
  /** Why the service refused this recipient, when it says so in the list. */
  detail: string;
}

const text = (value: unknown): string => (value === undefined || value === null ? '' : cellText(value));

/** One row per recipient: from the answer's `messages` list, or the answer itself for one. */
export function sentRecipients(element: SendElement): SentRecipient[] {
  const list = element['messages'];
  if (Array.isArray(list) && list.length > 0) {
    return list.map((raw, i): SentRecipient => {
      const entry = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
      const detail = [text(entry['errorCode']), text(entry['errorMessage'])].filter((part) => part !== '').join(': ');
      return { to: text(entry['to']) || (element.to[i] ?? ''), messageId: text(entry['messageId']), status: text(entry['status']), detail };
    });
  }
  return [{ to: element.to.join(', '), messageId: text(element['messageId']), status: text(element['status']), detail: '' }];
}

/** The value without what says nothing: null, empty text, empty lists and objects, at any depth. */
export function withoutEmpty(value: unknown): unknown {
  if (Array.isArray(value)) {
    const kept = value.map(withoutEmpty).filter((item) => item !== undefined);
    return kept.length === 0 ? undefined : kept;
  }
  if (typeof value === 'object' && value !== null) {
    const kept = Object.entries(value).flatMap(([key, inner]) => {
      const shown = withoutEmpty(inner);
      return shown === undefined ? [] : [[key, shown] as const];
    });
    return kept.length === 0 ? undefined : Object.fromEntries(kept);
  }
  if (value === null || value === '') return undefined;
  return value;
}

const RECIPIENT_COLUMNS: Column<SentRecipient>[] = [
  { header: 'TO', value: (r) => r.to, kind: 'id', importance: 4 },
  { header: 'MESSAGE ID', value: (r) => r.messageId, kind: 'id', importance: 3 },
  { header: 'STATUS', value: (r) => r.status, tone: statusTone, kind: 'status', importance: 2 },
  { header: 'DETAIL', value: (r) => r.detail, kind: 'text', importance: 1 },
];

/**
 * The answer of a one-request send, for people. Piped: a tab-separated row per recipient (to,
 * accepted, or failed when the service says so of that recipient, message id, status), the rows a
 * bulk send prints, so that one `cut -f3` reads the ids of either. On a terminal: one recipient as a key/value view, several as what they share
 * and then a table with a row each.
 */
export async function writeSent(ctx: SendContext, element: SendElement): Promise<void> {
  const recipients = sentRecipients(element);
  if (!ctx.io.stdoutIsTTY) {
    for (const r of recipients) {
      const outcome = messageOutcome({ status: r.status }) === 'failed' ? 'failed' : 'accepted';
      ctx.io.stdout.write(`${[r.to, outcome, r.messageId, r.status].map((cell) => cell.replace(/[\t\r\n]+/g, ' ')).join('\t')}\n`);
    }
    return;
  }
  const { messages: _list, ...fields } = element;
  if (recipients.length === 1) {
    await writeObject(ctx, withoutEmpty({ ...fields, to: recipients[0]!.to }) ?? {}, { title: 'Sent', fieldsChecked: true });
  } else {
    // The answer's own messageId and status are the first recipient's: the table says them for each.
    const { to: _to, messageId: _id, status: _status, ...shared } = fields;
    const common = withoutEmpty(shared);
    const title = `Sent to ${recipients.length} recipients`;
    if (common === undefined) ctx.io.stdout.write(`${title}\n`);
    else await writeObject(ctx, common, { title, fieldsChecked: true });
    ctx.io.stdout.write('\n');
    await writeRecipients(ctx, recipients);
  }
  writeSentHint(ctx, recipients);
}

/**
 * The recipients as a table, or, on a terminal too narrow for a number, its id and its status
 * side by side, a block each: the table would leave out the ids, which are the point.
 */
async function writeRecipients(ctx: SendContext, recipients: readonly SentRecipient[]): Promise<void> {
  // DETAIL only when a recipient has one: an empty column is a blank field in every row.
  const columns = recipients.some((r) => r.detail !== '') ? RECIPIENT_COLUMNS : RECIPIENT_COLUMNS.filter((c) => c.header !== 'DETAIL');
  const rule = await widthRuleFor(recipients.flatMap((r) => [r.to, r.messageId, r.status].map(visibleLine)));
  const widest = (pick: (r: SentRecipient) => string): number => Math.max(...recipients.map((r) => rule.width(visibleLine(pick(r)))));
  const needed = widest((r) => r.to) + widest((r) => r.messageId) + widest((r) => r.status) + 4;
  if (needed <= ctx.io.columns) {
    await writeList(ctx, recipients, columns);
    return;
  }
  const lines: string[] = [];
  for (const r of recipients) {
    const status = r.status === '' ? '' : `  ${await paint(ctx, 'stdout', statusTone(r.status) ?? 'dim', visibleLine(r.status))}`;
    lines.push(`${visibleLine(r.to)}${status}`, `  ${visibleLine(r.messageId)}`);
    if (r.detail !== '') lines.push(`  ${visibleLine(r.detail)}`);
  }
  ctx.io.stdout.write(`${lines.join('\n')}\n`);
}

/** On a terminal, what to run next: following the message (or one of them) to its delivery. */
function writeSentHint(ctx: SendContext, recipients: readonly SentRecipient[]): void {
  if (!ctx.io.stderrIsTTY) return;
  const ids = recipients.map((r) => r.messageId).filter((id) => id !== '');
  if (ids.length === 0) return;
  const watch = commandLine(ctx.globals, ['message', 'watch', ids[0]!]);
  ctx.io.stderr.write(ids.length === 1 ? `Follow it: ${watch}\n` : `Follow one (ids above): ${watch}\n`);
}
