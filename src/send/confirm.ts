import type { SendContext } from './send-context.js';
import { confirmAction, DeclinedError } from '../output/ask.js';
import type { SendPlan } from './plan.js';
import { recipientFilterOf, toRecipients, type BodyStats, type SkipRecipient } from './stats.js';
import { costLine } from './summary.js';

// The questions before a send, on a terminal: a big send is confirmed, a long or UCS-2 message
// shows its cost, and --async is offered beyond 100 recipients. Without a terminal nothing is
// asked: a big send needs --yes, and --async is a warning.

/** Beyond this many recipients a send is confirmed (the service advises --async here too). */
export const CONFIRM_RECIPIENTS_ABOVE = 100;
/** Beyond this many segments in all, a send is confirmed: each segment is billed. */
export const CONFIRM_SEGMENTS_ABOVE = 250;
/** The service advises async sending beyond this many recipients. */
export const ASYNC_ADVISED_ABOVE = 100;

/** The cost of the send, counted at most once however many questions need it. */
export type CostOf = () => Promise<BodyStats>;

/**
 * A send to many recipients, or of many segments, says what it will do and asks first; --yes
 * skips that, and without a terminal --yes is required. Returns true when the person confirmed
 * (so that the send does not ask again).
 */
export async function confirmBigSend(plan: SendPlan, ctx: SendContext, skip: SkipRecipient | undefined, cost: CostOf): Promise<boolean> {
  if (plan.dryRun || plan.yes || ctx.globals.yes) return false;
  // A resumed file send is not scanned again just to count: the question says "at most".
  const atMost = plan.to === undefined && skip !== undefined;
  const recipients = plan.to !== undefined ? toRecipients(plan, recipientFilterOf(plan, skip)).length : plan.toFile!.check.recipients;
  let segments: number | undefined;
  if (recipients <= CONFIRM_RECIPIENTS_ABOVE) {
    segments = (await cost()).totalSegments;
    if (segments <= CONFIRM_SEGMENTS_ABOVE) return false;
  }
  const who = `${atMost ? 'at most ' : ''}${recipients} recipient${recipients === 1 ? '' : 's'}`;
  const what = segments !== undefined ? `${segments} segments to ${who}` : `to ${who}`;
  await confirmAction(ctx, `send ${what} from ${plan.from}${plan.toFile ? ` (${plan.toFile.path})` : ''}`);
  return true;
}

/**
 * On a terminal: shows what a long or UCS-2 message costs, offers --async beyond 100 recipients,
 * and asks before sending (unless --yes, or confirmBigSend already asked). Elsewhere: a warning
 * where --async is advised. Returns whether to send asynchronously.
 */
export async function confirmSend(plan: SendPlan, ctx: SendContext, cost: CostOf, confirmed: boolean): Promise<boolean> {
  let isAsync = plan.isAsync;
  // The --to numbers this run sends to (the exclude list leaves some out); the file's before its filters.
  const recipients = plan.to !== undefined ? (await cost()).recipients : plan.toFile!.check.recipients;
  const ask = ctx.io.canPrompt && !plan.yes;
  let shown = false;
  if (ctx.io.stderrIsTTY) {
    const stats = await cost();
    if (stats.segments > 1 || stats.encoding === 'UCS-2' || stats.cost !== undefined) {
      ctx.io.stderr.write(`This message is ${costLine(stats)}.\n`);
      shown = true;
    }
  }
  if (recipients > ASYNC_ADVISED_ABOVE && !isAsync) {
    if (ask) {
      const prompter = await ctx.prompter();
      isAsync = await prompter.confirm(`${recipients} recipients: send asynchronously (--async, advised beyond ${ASYNC_ADVISED_ABOVE})?`, true);
    } else {
      ctx.warn(`--async is advised beyond ${ASYNC_ADVISED_ABOVE} recipients (${recipients} here)`);
    }
  }
  if (shown && ask && !confirmed) {
    const prompter = await ctx.prompter();
    if (!(await prompter.confirm('Send it?', true))) throw new DeclinedError();
  }
  return isAsync;
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
