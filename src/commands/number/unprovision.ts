import type { CommandInput } from '../spec.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { requireE164, requireTenant } from '../shared/input.js';
import { submitAndReport, waitSettings } from '../order/submit.js';

export async function run(input: CommandInput, ctx: Context): Promise<number> {
  const given = input.argList(0);
  if (given.length === 0) throw new UsageError('Give the numbers to release: NUMBER...');
  const wait = waitSettings(input);
  const numbers: string[] = [];
  for (const raw of given) {
    const number = requireE164(raw, 'NUMBER');
    if (numbers.includes(number)) throw new UsageError(`${number} is listed twice`);
    numbers.push(number);
  }
  const tenantId = requireTenant(ctx, input.string('tenant'));
  return submitAndReport(ctx, { action: 'Unprovision', tenantId, phoneNumbers: numbers.map((number) => ({ number })) }, wait);
}
