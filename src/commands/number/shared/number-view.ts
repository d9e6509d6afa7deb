import type { Context } from '../../../context.js';
import type { PhoneNumber } from '../../../api/numbers.js';
import { statusTone, writeObject, type Column } from '../../../output/render.js';

// How a phone number is shown: JSON as the server sent it; for people, its fields first and its
// settings (flattened as settings.group.field) after them.

export const numberColumns: Column<PhoneNumber>[] = [
  { header: 'NUMBER', value: (n) => n.phoneNumber ?? n['number'] },
  { header: 'STATUS', value: (n) => n.status, tone: statusTone },
  { header: 'TYPE', value: (n) => n['provisionType'] },
  { header: 'CLASS', value: (n) => n['provisionClass'] },
  { header: 'NAME', value: (n) => n['friendlyName'] },
  { header: 'TENANT', value: (n) => n['tenantId'] },
  { header: 'ACTIVATED', value: (n) => n['activatedAt'] },
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
