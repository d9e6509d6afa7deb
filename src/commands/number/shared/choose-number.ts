import type { Context } from '../../../context.js';
import { listActiveNumbers } from '../../../api/numbers.js';
import { askChoice, type MissingValue } from '../../../output/ask.js';

// A phone number chosen on a terminal among the account's active numbers.

/** The first page the server allows is enough to choose from; more is typed as NUMBER. */
const CHOICES_PAGE_LIMIT = 100;

/** What a terminal user is told when the account has no number to choose from. */
const NO_NUMBERS = { message: 'The account has no active numbers yet, so there is none to choose', hint: 'Provision one: svc number provision +15551234567 --type SMS --class P2P' };

export async function chooseActiveNumber(ctx: Context, missing: MissingValue, message = 'Which number?'): Promise<string> {
  return askChoice(ctx, missing, message, async () => {
    const { items } = await listActiveNumbers(await ctx.api(), { page: 1, limit: CHOICES_PAGE_LIMIT });
    return items
      .filter((n): n is Record<string, unknown> => typeof n === 'object' && n !== null)
      .map((n) => {
        const number = typeof n['phoneNumber'] === 'string' ? n['phoneNumber'] : typeof n['number'] === 'string' ? n['number'] : undefined;
        const label = [n['status'], n['provisionType'], n['friendlyName'] ?? n['description']].filter((v) => typeof v === 'string' && v !== '').join('  ');
        return number === undefined ? undefined : { name: label ? `${number}  ${label}` : number, value: number };
      })
      .filter((c): c is { name: string; value: string } => c !== undefined);
  }, { empty: NO_NUMBERS });
}
