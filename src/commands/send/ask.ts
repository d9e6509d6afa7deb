import type { CommandInput } from '../spec.js';
import type { Context } from '../../context.js';
import { isE164 } from '../../domain/validate.js';
import { askText, canAsk, confirmAction } from '../../output/ask.js';
import { chooseActiveNumber } from '../number/choose.js';
import type { SendPlan } from '../../send/plan.js';
import { bodyStats, type SkipRecipient } from '../../send/stats.js';

// What `svc send` asks a person at a terminal: the number to send from (a choice among the
// account's active numbers), the recipients and the body when they are missing; and, before a
// big send, whether to go ahead. Without a terminal nothing is asked: planSend names the missing
// flag, and a big send needs --yes.

/** Beyond this many recipients a send is confirmed (the service advises --async here too). */
export const CONFIRM_RECIPIENTS_ABOVE = 100;
/** Beyond this many segments in all, a send is confirmed: each segment is billed. */
export const CONFIRM_SEGMENTS_ABOVE = 250;

/** The input with what was missing filled in from answers (unchanged when nothing was asked). */
export async function askSendInputs(input: CommandInput, ctx: Context): Promise<CommandInput> {
  if (!canAsk(ctx)) return input;
  const extra: Record<string, string | string[]> = {};
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

/**
 * A send to many recipients, or of many segments, says what it will do and asks first; --yes
 * skips that, and without a terminal --yes is required. Returns true when the person confirmed
 * (so that the send does not ask again).
 */
export async function confirmBigSend(plan: SendPlan, ctx: Context, skip: SkipRecipient | undefined): Promise<boolean> {
  if (plan.dryRun || plan.yes || ctx.globals.yes) return false;
  // A resumed file send is not scanned again just to count: the question says "at most".
  const atMost = plan.to === undefined && skip !== undefined;
  const recipients = plan.to !== undefined ? plan.to.filter((to) => !skip?.(to)).length : plan.toFile!.check.recipients;
  let segments: number | undefined;
  if (recipients <= CONFIRM_RECIPIENTS_ABOVE) {
    segments = (await bodyStats(plan, skip)).totalSegments;
    if (segments <= CONFIRM_SEGMENTS_ABOVE) return false;
  }
  const who = `${atMost ? 'at most ' : ''}${recipients} recipient${recipients === 1 ? '' : 's'}`;
  const what = segments !== undefined ? `${segments} segments to ${who}` : `to ${who}`;
  await confirmAction(ctx, `send ${what} from ${plan.from}${plan.toFile ? ` (${plan.toFile.path})` : ''}`);
  return true;
}

/** A refusal that names the number sent from points to the list of numbers that can send. */
export function fromNumberHints(from: string, error: { status: number | null; message: string }): string[] {
  const refused = error.status !== null && error.status >= 400 && error.status < 500 && error.status !== 401 && error.status !== 429;
  if (!refused || !error.message.includes(from)) return [];
  return [`Is ${from} one of your active numbers? \`svc number list\` shows them (on a terminal, leave out --from to choose one).`];
}
