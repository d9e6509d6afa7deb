import type { Context } from '../../../context.js';
import { renderTable, statusTone, writeList, writeObject, type Column } from '../../../output/render.js';
import { orderEntries, orderIdOf, type Order, type OrderEntryView } from './order-status.js';

// How an order is shown: JSON as the server sent it; for people, its fields and then a table with
// each number and its status.

export const orderEntryColumns: Column<OrderEntryView>[] = [
  { header: 'NUMBER', value: (e) => e.number, kind: 'id', importance: 4 },
  { header: 'STATUS', value: (e) => e.status, tone: statusTone, kind: 'status', importance: 3 },
  { header: 'PHONE NUMBER ID', value: (e) => e.phoneNumberId, kind: 'id', importance: 1 },
  { header: 'DETAIL', value: (e) => e.error, kind: 'text', importance: 2 },
];

/** The order's own fields on a TTY (numbers apart), or every field flattened when piped. */
export async function writeOrder(ctx: Context, order: Order): Promise<void> {
  const id = orderIdOf(order);
  const title = id === undefined ? 'Order' : `Order ${id}`;
  if (ctx.globals.output !== 'table' || !ctx.io.stdoutIsTTY) {
    await writeObject(ctx, order, { title });
    return;
  }
  const { phoneNumbers: _numbers, ...fields } = order;
  await writeObject(ctx, fields, { title });
  const entries = orderEntries(order);
  if (entries.length > 0) ctx.io.stdout.write(`\n${await renderTable(ctx, entries, orderEntryColumns)}\n`);
}

/** The end of a wait: the order as it ended (JSON), or the table of its numbers. */
export async function writeOrderNumbers(ctx: Context, order: Order): Promise<void> {
  const entries = orderEntries(order);
  if (ctx.globals.output !== 'table' || entries.length === 0) {
    await writeObject(ctx, order, { title: `Order ${orderIdOf(order) ?? ''}`.trim() });
    return;
  }
  await writeList(ctx, entries, orderEntryColumns);
}
