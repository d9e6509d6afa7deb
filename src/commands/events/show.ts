import type { Context } from '../../context.js';
import { eventJson } from './shared/event-view.js';
import { writeJson, writeNdjson, writeObject, paint } from '../../output/render.js';
import { visibleLine } from '../../output/terminal.js';
import { shownTime } from '../../output/time.js';
import type { InputFor } from '../spec.js';
import type { eventsCommands } from './index.js';
import { findEvent, openReader, requireId } from './shared/event-queries.js';

export async function run(input: InputFor<typeof eventsCommands, 'events show'>, ctx: Context): Promise<number> {
  const id = requireId(input);
  const { dir, reader } = openReader(input, ctx);
  const record = findEvent(reader, dir, id);
  const json = eventJson(record, true);
  if (ctx.globals.output === 'json') {
    writeJson(ctx, json);
    return 0;
  }
  if (ctx.globals.output === 'ndjson') {
    writeNdjson(ctx, json);
    return 0;
  }
  if (ctx.globals.fields !== undefined && ctx.globals.fields.length > 0) {
    await writeObject(ctx, json);
    return 0;
  }
  const label = async (text: string): Promise<string> => paint(ctx, 'stdout', 'dim', text.padEnd(12));
  const lines = [
    await paint(ctx, 'stdout', 'accent', `${record.kind === 'sent' ? 'Sent message' : 'Event'} ${visibleLine(record.id)}`),
    `${await label('type')}${record.type}`,
    `${await label(record.kind === 'sent' ? 'sent' : 'received')}${shownTime(ctx, record.at)}`,
  ];
  if (record.messageId !== undefined) lines.push(`${await label('message')}${visibleLine(record.messageId)}`);
  if (record.status !== undefined) lines.push(`${await label('status')}${visibleLine(record.status)}`);
  if (record.verified === true) lines.push(`${await label('signature')}verified`);
  if (record.verified === false) {
    lines.push(`${await label('signature')}${await paint(ctx, 'stdout', 'warn', 'NOT verified (accepted by webhook listen --no-verify)')}`);
  }
  const headers = Object.entries(record.headers ?? {});
  if (headers.length > 0) {
    lines.push(await paint(ctx, 'stdout', 'accent', 'Headers'));
    for (const [name, value] of headers) lines.push(`  ${name}: ${visibleLine(value)}`);
  }
  lines.push(await paint(ctx, 'stdout', 'accent', record.kind === 'sent' ? 'Body' : 'Payload'));
  const pretty = typeof json.payload === 'string' ? json.payload : JSON.stringify(json.payload, null, 2);
  lines.push(...pretty.split('\n').map((line) => `  ${visibleLine(line)}`));
  ctx.io.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
