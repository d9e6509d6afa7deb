import type { Context } from '../../context.js';
import { eventJson } from './shared/event-view.js';
import { classifyEvent, parsePayload } from '../../webhooks/payloads.js';
import { statusTone, writeList, type Column } from '../../output/render.js';
import type { StoredRecord } from '../../events/store/record.js';
import type { InputFor } from '../spec.js';
import type { eventsCommands } from './index.js';
import { eventType, numberArg, openReader, timeRange } from './shared/event-queries.js';
import { nonBlank } from './shared/store-options.js';

function summaryText(record: StoredRecord): string {
  try {
    const { summary } = classifyEvent(parsePayload(record.body), record.type);
    return summary.text ?? '';
  } catch {
    return '';
  }
}

const COLUMNS: Column<StoredRecord>[] = [
  { header: 'RECEIVED', value: (r) => r.at, kind: 'time', importance: 8 },
  { header: 'TYPE', value: (r) => r.type, kind: 'status', importance: 7 },
  // The id is what `events show ID` and `events replay ID` take: other columns give way first.
  { header: 'ID', value: (r) => r.id, kind: 'id', importance: 9 },
  { header: 'MESSAGE', value: (r) => r.messageId ?? '', kind: 'id', importance: 1 },
  { header: 'FROM', value: (r) => r.from ?? '', kind: 'id', importance: 6 },
  { header: 'TO', value: (r) => (r.to ?? []).join(', '), kind: 'id', importance: 2 },
  { header: 'STATUS', value: (r) => r.status ?? '', tone: statusTone, kind: 'status', importance: 3 },
  { header: 'TEXT', value: (r) => summaryText(r), kind: 'text', importance: 4 },
];

export async function run(input: InputFor<typeof eventsCommands, 'events list'>, ctx: Context): Promise<number> {
  const types = input.strings('type').map(eventType);
  const numberText = input.string('number');
  const number = numberText === undefined ? undefined : numberArg(numberText, '--number');
  const messages = input.strings('message').map((id) => nonBlank(id, '--message', 'a message id').trim());
  const range = timeRange(ctx, input.string('since'), input.string('until'));
  const { dir, reader, exists } = openReader(input, ctx);
  const records = exists
    ? reader.query({
        kinds: ['event'],
        ...(types.length > 0 ? { types } : {}),
        ...(number !== undefined ? { number, linkReceipts: true } : {}),
        ...(messages.length > 0 ? { messageIds: messages } : {}),
        ...range,
      })
    : [];
  if (!exists && ctx.globals.output === 'table') ctx.io.stderr.write(`No event store at ${dir} yet: svc webhook listen creates it.\n`);
  // With --fields, the fields are those of the JSON form, in a table too.
  if (ctx.globals.output === 'table' && (ctx.globals.fields === undefined || ctx.globals.fields.length === 0)) {
    await writeList(ctx, records, COLUMNS);
    return 0;
  }
  // With --fields in a table, an `id` column is kept whole all the same.
  await writeList(
    ctx,
    records.map((record) => eventJson(record)),
    [{ header: 'ID', value: (event) => event.id, kind: 'id' }],
  );
  return 0;
}
