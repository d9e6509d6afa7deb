// Reading an order whatever the server put in it: when it is finished, whether it failed, and
// the status of each number. The contract: finished on `Completed`, a failure word (Failed,
// Error, Rejected, Cancelled/Canceled) or a `completionDate`; other statuses are shown as they are.

export type { Order } from '../../../domain/provisioning.js';
import type { Order } from '../../../domain/provisioning.js';
import { UsageError } from '../../../errors.js';
import { visibleLine } from '../../../output/terminal.js';

export type OrderOutcome = 'pending' | 'completed' | 'failed';

export interface OrderEntryView {
  number: string;
  status: string;
  phoneNumberId: string | undefined;
  /** The reason a number failed, when the server gave one. */
  error: string | undefined;
}

const FAILURE = /fail|error|reject|cancel|declin|abort/i;
const SUCCESS = /^(completed?|succeeded|success|successful|done|finished)$/i;

function text(value: unknown): string | undefined {
  if (typeof value === 'string' && value.trim() !== '') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** The order id from an answer, whichever field carries it. */
export function orderIdOf(order: unknown): string | undefined {
  if (typeof order !== 'object' || order === null) return undefined;
  const o = order as Order;
  return text(o['orderId']) ?? text(o['id']) ?? text(o['orderNumber']);
}

export function orderStatus(order: Order): string {
  return text(order['status']) ?? text(order['orderStatus']) ?? text(order['state']) ?? 'unknown';
}

export function isFailureStatus(status: string): boolean {
  return FAILURE.test(status);
}

export function orderEntries(order: Order): OrderEntryView[] {
  const list = order['phoneNumbers'] ?? order['numbers'] ?? order['entries'];
  if (!Array.isArray(list)) return [];
  return list.map((raw): OrderEntryView => {
    if (typeof raw === 'string') return { number: raw, status: '', phoneNumberId: undefined, error: undefined };
    const e = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
    return {
      number: text(e['number']) ?? text(e['phoneNumber']) ?? '',
      status: text(e['status']) ?? '',
      phoneNumberId: text(e['phoneNumberId']),
      error: text(e['errorMessage']) ?? text(e['error']) ?? text(e['statusReason']) ?? text(e['reason']),
    };
  });
}

/**
 * Finished or not, and how. A finished order whose own status is fine but where a number failed
 * counts as failed: a script asked for every number.
 */
export function orderOutcome(order: Order): OrderOutcome {
  const status = orderStatus(order);
  const finished = SUCCESS.test(status) || isFailureStatus(status) || text(order['completionDate']) !== undefined;
  if (!finished) return 'pending';
  if (isFailureStatus(status)) return 'failed';
  return orderEntries(order).some((e) => isFailureStatus(e.status)) ? 'failed' : 'completed';
}

/** What changed between two reads of an order, one plain line per change. */
export function describeOrderChanges(orderId: string, previous: Order | undefined, next: Order): string[] {
  const lines: string[] = [];
  const status = orderStatus(next);
  const entries = orderEntries(next);
  if (previous === undefined) {
    const numbers = entries.map((e) => `${e.number} ${e.status || '?'}`).join(', ');
    lines.push(`order ${orderId}: ${status}${numbers ? ` (${numbers})` : ''}`);
    return lines;
  }
  if (orderStatus(previous) !== status) lines.push(`order ${orderId}: ${status}`);
  const before = new Map(orderEntries(previous).map((e) => [e.number, e]));
  for (const entry of entries) {
    const old = before.get(entry.number);
    if (old === undefined || old.status !== entry.status || old.error !== entry.error) {
      lines.push(`order ${orderId}: ${entry.number} ${entry.status || '?'}${entry.error ? ` (${entry.error})` : ''}`);
    }
  }
  return lines;
}

/** At most this many numbers get a line of their own under the spinner; the rest are counted. */
const DETAIL_LINES = 8;

/** "2 Active, 1 Pending": how many numbers are in each status, the commonest first. */
export function entryCounts(entries: readonly OrderEntryView[]): string {
  const counts = new Map<string, number>();
  for (const entry of entries) counts.set(entry.status || '?', (counts.get(entry.status || '?') ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1]).map(([status, count]) => `${count} ${visibleLine(status)}`).join(', ');
}

/**
 * The lines under the spinner: a line per number, and past DETAIL_LINES a count of the rest (a
 * spinner taller than the terminal cannot be redrawn in place).
 */
export function orderDetails(order: Order): string[] {
  const entries = orderEntries(order);
  const lines = entries.slice(0, DETAIL_LINES).map((entry) => `  ${visibleLine(entry.number).padEnd(16)} ${visibleLine(entry.status || '?')}${entry.error ? `  ${visibleLine(entry.error)}` : ''}`);
  const rest = entries.slice(DETAIL_LINES);
  if (rest.length > 0) lines.push(`  and ${rest.length} more: ${entryCounts(rest)}`);
  return lines;
}

/** Where an order stands, in one line: its status and how many numbers are where. */
export function orderStanding(order: Order): string {
  const entries = orderEntries(order);
  const status = visibleLine(orderStatus(order));
  if (entries.length === 0) return status;
  return `${status}; ${entries.length === 1 ? `${visibleLine(entries[0]!.number)} ${visibleLine(entries[0]!.status || '?')}` : `${entries.length} numbers: ${entryCounts(entries)}`}`;
}

/** One sentence for the end of a failed order. */
export function failureSummary(orderId: string, order: Order): string {
  const status = orderStatus(order);
  const failed = orderEntries(order).filter((e) => isFailureStatus(e.status));
  const which = failed.map((e) => `${e.number}${e.error ? ` (${e.error})` : ''}`).join(', ');
  if (isFailureStatus(status)) return `Order ${orderId} ended ${status}${which ? `: ${which}` : ''}`;
  return `Order ${orderId} ended ${status}, but ${failed.length} number${failed.length === 1 ? '' : 's'} failed: ${which}`;
}

/** Orders are numbered in the document; any short token without a slash is let through. */
export function requireOrderId(value: string | undefined): string {
  const id = (value ?? '').trim();
  // The service numbers its orders: anything else is a typo, refused before a request.
  if (!/^[0-9]{1,18}$/.test(id)) {
    throw new UsageError(`The order ID must be the number the provision answer gave (like 1042), not "${value ?? ''}"`);
  }
  return id;
}
