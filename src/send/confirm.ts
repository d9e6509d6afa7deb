import { proseText } from '../output/wrap-lines.js';
import type { SendContext } from './send-context.js';
import { askChoice, canAsk, confirmAction, DeclinedError } from '../output/ask.js';
import type { SendPlan } from './plan.js';
import { recipientsOfRun, type BodyStats, type SkipRecipient } from './stats.js';
import { costLine } from './summary.js';

// The one question before a send, on a terminal, asked only when it matters:
// - reach: beyond 100 recipients (offering --async in the same question when it is not given);
// - cost: beyond 250 segments in all, or a message that splits into several billed segments.
// A one-segment message to a few people is sent without a question, whatever its encoding; what
// a long or UCS-2 message costs is shown first either way. Without a terminal nothing is asked: a
// send beyond either limit needs --yes, and --async beyond 100 recipients is a warning.

/** Beyond this many recipients a send is confirmed (the service advises --async here too). */
export const CONFIRM_RECIPIENTS_ABOVE = 100;
/** Beyond this many segments in all, a send is confirmed: each segment is billed. */
export const CONFIRM_SEGMENTS_ABOVE = 250;
/** The service advises async sending beyond this many recipients. */
export const ASYNC_ADVISED_ABOVE = 100;

/** The cost of the send, counted at most once however many questions need it. */
export type CostOf = () => Promise<BodyStats>;

/** What the question is about; `big` needs --yes without a terminal. */
interface SendQuestion {
  action: string;
  recipients: number;
  big: boolean;
  offerAsync: boolean;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/**
 * The question this send needs, if any. A resumed send counts the recipients still to send (the
 * journal's accepted ones left out), not the file's.
 */
async function sendQuestion(plan: SendPlan, skip: SkipRecipient | undefined, cost: CostOf): Promise<SendQuestion | undefined> {
  const recipients = await recipientsOfRun(plan, skip, cost);
  if (recipients === 0) return undefined;
  const offerAsync = recipients > ASYNC_ADVISED_ABOVE && !plan.isAsync;
  const stats = recipients > CONFIRM_RECIPIENTS_ABOVE ? undefined : await cost();
  const manySegments = stats !== undefined && stats.totalSegments > CONFIRM_SEGMENTS_ABOVE;
  const split = stats !== undefined && stats.segments > 1;
  if (stats !== undefined && !manySegments && !split) return undefined;
  const who = plural(recipients, skip !== undefined ? 'remaining recipient' : 'recipient');
  const what = stats !== undefined ? `${plural(stats.totalSegments, 'segment')} to ${who}` : `to ${who}`;
  const action = `send ${what} from ${plan.from}${plan.toFile ? ` (${plan.toFile.path})` : ''}`;
  return { action, recipients, big: stats === undefined || manySegments, offerAsync };
}

/** Asks the question: yes or no, or with --async offered, how to send it. Returns whether to send asynchronously. */
async function ask(ctx: SendContext, question: SendQuestion, isAsync: boolean): Promise<boolean> {
  if (!question.offerAsync) {
    if (question.big) {
      await confirmAction(ctx, question.action);
    } else {
      // A split message to a few people: the default is to send it.
      const prompter = await ctx.prompter();
      if (!(await prompter.confirm(`${capitalize(question.action)}?`, true))) throw new DeclinedError();
    }
    return isAsync;
  }
  // The first choice is the one the cursor starts on: sending nothing, as a y/N question would.
  const answer = await askChoice(ctx, { what: 'the answer', flag: '--yes', asked: false }, `${capitalize(question.action)}?`, async () => [
    { name: 'No, send nothing', value: 'no' },
    { name: `Yes, asynchronously (--async, advised beyond ${ASYNC_ADVISED_ABOVE} recipients)`, value: 'async' },
    { name: 'Yes, synchronously', value: 'sync' },
  ]);
  if (answer === 'no') throw new DeclinedError();
  return answer === 'async';
}

/**
 * Shows the cost of a long or UCS-2 message (on a terminal), then asks the one question the send
 * needs, if any (not with --yes); without a terminal a big send needs --yes and --async is
 * advised by a warning. Returns whether to send asynchronously.
 */
export async function confirmSend(plan: SendPlan, ctx: SendContext, skip: SkipRecipient | undefined, cost: CostOf): Promise<boolean> {
  const question = await sendQuestion(plan, skip, cost);
  const asking = question !== undefined && !plan.yes && !ctx.globals.yes;
  // Nobody to ask: a big send needs --yes (this names it and ends the command, before any other line).
  if (asking && question.big && !canAsk(ctx)) await confirmAction(ctx, question.action);
  if (ctx.io.stderrIsTTY) {
    const stats = await cost();
    if (stats.segments > 1 || stats.encoding === 'UCS-2' || stats.cost !== undefined) {
      ctx.io.stderr.write(await proseText([`This message is ${costLine(stats, plan.budget)}.`], { isTTY: true, columns: ctx.io.columns, stream: ctx.io.stderr }));
    }
  }
  if (asking && canAsk(ctx)) return ask(ctx, question, plan.isAsync);
  if (question?.offerAsync) ctx.warn(`--async is advised beyond ${ASYNC_ADVISED_ABOVE} recipients (${question.recipients} here)`);
  return plan.isAsync;
}

/**
 * --ignore-optouts sends to people who asked not to hear from the number: on a terminal it is
 * asked (default no), elsewhere it needs --yes. Nothing to ask when the list holds nobody for it.
 */
export async function confirmIgnoreOptOuts(plan: SendPlan, ctx: SendContext): Promise<void> {
  const ignored = plan.ignoredOptOuts;
  if (plan.dryRun || ignored === undefined || ignored.listed === 0) return;
  const people = ignored.listed === 1 ? 'the 1 person' : `the ${ignored.listed} people`;
  await confirmAction(ctx, `send to ${people} on the opt-out list of ${plan.from} as well, if they are among the recipients (--ignore-optouts)`, { yes: plan.yes });
}
