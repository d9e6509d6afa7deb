import type { InputFor } from '../spec.js';
import type { numberCommands } from './index.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { requireE164 } from '../../input/checks.js';
import { confirmAction, type MissingValue } from '../../output/ask.js';
import { chooseActiveNumber } from './shared/choose-number.js';
import { explainTenantNotFound, tenantOrAsk } from '../tenant/shared/choose-tenant.js';
import { submitAndReport, waitSettings } from '../order/shared/order-submit.js';

const NUMBER_MISSING: MissingValue = { what: 'NUMBER... (the numbers to release)', flag: 'them after `svc number unprovision`', hint: 'For example: svc number unprovision +15551234567 --wait' };

export async function run(input: InputFor<typeof numberCommands, 'number unprovision'>, ctx: Context): Promise<number> {
  const wait = waitSettings(input);
  // On a terminal, a number is chosen among the active ones; several are given as arguments.
  const given = input.argList(0).length > 0 ? input.argList(0) : [await chooseActiveNumber(ctx, NUMBER_MISSING, 'Release which number?')];
  const numbers: string[] = [];
  for (const raw of given) {
    const number = requireE164(raw, 'NUMBER');
    if (numbers.includes(number)) throw new UsageError(`${number} is listed twice`);
    numbers.push(number);
  }
  const tenantId = await tenantOrAsk(ctx, input.string('tenant'));
  const listed = numbers.length <= 3 ? numbers.join(', ') : `${numbers.slice(0, 3).join(', ')} and ${numbers.length - 3} more`;
  await confirmAction(ctx, `release ${numbers.length === 1 ? 'number' : `${numbers.length} numbers`} ${listed} of tenant ${tenantId}`);
  return explainTenantNotFound(ctx, input.string('tenant'), () =>
    submitAndReport(ctx, { action: 'Unprovision', tenantId, phoneNumbers: numbers.map((number) => ({ number })) }, wait),
  );
}
