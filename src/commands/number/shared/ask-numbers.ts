import type { Context } from '../../../context.js';
import { isE164 } from '../../../domain/api/patterns.js';
import { askText, type MissingValue } from '../../../output/ask.js';

// Phone numbers typed at a terminal: several on one line, separated by spaces or commas, each
// checked as it is typed so that a slip is retyped, not found after the question.

function splitNumbers(value: string): string[] {
  return value.split(/[\s,]+/).filter((v) => v !== '');
}

export async function askNumbers(ctx: Context, missing: MissingValue, message: string): Promise<string[]> {
  const text = await askText(ctx, missing, message, (value) => {
    const numbers = splitNumbers(value);
    if (numbers.length === 0) return 'at least one number, like +15551234567';
    const bad = numbers.find((n) => !isE164(n));
    return bad === undefined ? true : `"${bad}" is not an E.164 number (a + then 8 to 15 digits)`;
  });
  return splitNumbers(text);
}
