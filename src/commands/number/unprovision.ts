import type { InputFor } from '../spec.js';
import type { numberCommands } from './index.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { requireE164 } from '../../input/checks.js';
import { confirmAction } from '../../output/ask.js';
import { explainTenantNotFound, tenantOrAsk } from '../tenant/shared/choose-tenant.js';
import { submitAndReport, waitSettings } from '../order/shared/order-submit.js';

export async function run(input: InputFor<typeof numberCommands, 'number unprovision'>, ctx: Context): Promise<number> {
  const given = input.argList(0);
  if (given.length === 0) throw new UsageError('Give the numbers to release: NUMBER...');
  const wait = waitSettings(input);
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
