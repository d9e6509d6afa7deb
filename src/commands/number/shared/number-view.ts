import type { Context } from '../../../context.js';
import type { PhoneNumber } from '../../../api/numbers.js';
import { statusTone, writeObject, type Column } from '../../../output/render.js';

// How a phone number is shown: JSON as the server sent it; for people, its fields first and its
// settings (flattened as settings.group.field) after them.

export const numberColumns: Column<PhoneNumber>[] = [
  { header: 'NUMBER', value: (n) => n.phoneNumber ?? n['number'], kind: 'id', importance: 7 },
  { header: 'STATUS', value: (n) => n.status, tone: statusTone, kind: 'status', importance: 6 },
  { header: 'TYPE', value: (n) => n['provisionType'], kind: 'status', importance: 5 },
  { header: 'CLASS', value: (n) => n['provisionClass'], kind: 'status', importance: 4 },
  { header: 'NAME', value: (n) => n['friendlyName'], kind: 'text', importance: 3 },
  { header: 'TENANT', value: (n) => n['tenantId'], kind: 'id', importance: 2 },
  { header: 'ACTIVATED', value: (n) => n['activatedAt'], kind: 'time', importance: 1 },
];

export async function writeNumber(ctx: Context, number: PhoneNumber): Promise<void> {
  const shownNumber = typeof number.phoneNumber === 'string' ? number.phoneNumber : typeof number['number'] === 'string' ? number['number'] : undefined;
  const title = shownNumber === undefined ? 'Phone number' : `Phone number ${shownNumber}`;
  if (ctx.globals.output !== 'table') {
    await writeObject(ctx, number, { title });
    return;
  }
  const { settings, ...fields } = number;
  await writeObject(ctx, settings === undefined ? fields : { ...fields, settings }, { title });
}
