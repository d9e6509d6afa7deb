import type { InputFor } from '../../spec.js';
import type { sendCommands } from '../index.js';
import type { Context } from '../../../context.js';
import { isE164 } from '../../../domain/api/patterns.js';
import { askText, canAsk } from '../../../output/ask.js';
import { chooseActiveNumber } from '../../number/shared/choose-number.js';

// What `svc send` asks a person at a terminal: the number to send from (a choice among the
// account's active numbers), the recipients and the body when they are missing (the questions
// before sending are src/send/confirm.ts). Without a terminal nothing is asked: planSend names
// the missing flag.

/** The input with what was missing filled in from answers (unchanged when nothing was asked). */
export async function askSendInputs(input: InputFor<typeof sendCommands, 'send'>, ctx: Context): Promise<InputFor<typeof sendCommands, 'send'>> {
  if (!canAsk(ctx)) return input;
  const extra: { from?: string; to?: string[]; body?: string } = {};
  if (input.string('from') === undefined) {
    extra['from'] = await chooseActiveNumber(ctx, { what: 'the number to send from', flag: '--from NUMBER' }, 'Send from which number?');
  }
  if (input.strings('to').length === 0 && input.string('toFile') === undefined) {
    const text = await askText(ctx, { what: 'the recipients', flag: '--to NUMBER... or --to-file FILE' }, 'Send to (E.164 numbers, separated by spaces or commas)', (value) => {
      const numbers = value.split(/[\s,]+/).filter((v) => v !== '');
      if (numbers.length === 0) return 'at least one number, like +15557650001';
      const bad = numbers.find((n) => !isE164(n));
      return bad === undefined ? true : `"${bad}" is not an E.164 number (a + then 8 to 15 digits)`;
    });
    extra['to'] = text.split(/[\s,]+/).filter((v) => v !== '');
  }
  const hasBody = input.string('body') !== undefined || input.string('bodyFile') !== undefined;
  const hasMedia = input.strings('media').length > 0 || input.strings('mediaFile').length > 0;
  if (!hasBody && !hasMedia) {
    extra['body'] = await askText(ctx, { what: 'the message body', flag: '--body TEXT or --body-file FILE' }, 'Message', (value) =>
      value.trim() === '' ? 'a message needs some text' : true,
    );
  }
  return Object.keys(extra).length === 0 ? input : input.with(extra);
}

/** A refusal that names the number sent from points to the list of numbers that can send. */
export function fromNumberHints(from: string, error: { status: number | null; message: string }): string[] {
  const refused = error.status !== null && error.status >= 400 && error.status < 500 && error.status !== 401 && error.status !== 429;
  if (!refused || !error.message.includes(from)) return [];
  return [`Is ${from} one of your active numbers? \`svc number list\` shows them (on a terminal, leave out --from to choose one).`];
}
