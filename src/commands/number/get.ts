import type { InputFor } from '../spec.js';
import type { numberCommands } from './index.js';
import type { Context } from '../../context.js';
import { getPhoneNumber } from '../../api/numbers.js';
import { requireE164 } from '../../input/checks.js';
import { writeNumber } from './shared/number-view.js';
import { chooseActiveNumber } from './shared/choose-number.js';

export async function run(input: InputFor<typeof numberCommands, 'number get'>, ctx: Context): Promise<number> {
  const number = requireE164(input.arg(0) ?? (await chooseActiveNumber(ctx, { what: 'NUMBER (E.164 number)', flag: 'it after `svc number get`' })), 'NUMBER');
  await writeNumber(ctx, await getPhoneNumber(await ctx.api(), number));
  return 0;
}
