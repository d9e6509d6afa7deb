import type { SendContext } from './send-context.js';
import { confirmIgnoreOptOuts, confirmSend } from './confirm.js';
import { planSend, type SendRequest } from './plan.js';
import { resumeFrom, type Resumed } from './resume.js';
import { runSend, type SendOutcome } from './run.js';
import { bodyStats, type BodyStats } from './stats.js';
import { writeDryRun } from './summary.js';

// `svc send` as one pipeline, each stage in its own module of this folder:
//   plan.ts     every input read and checked once, before anything is sent (usage errors, exit 2)
//   resume.ts   the write-ahead journal: refused, started, or resumed (who is skipped)
//   confirm.ts  the one question on a terminal (reach, cost; --async offered in it); stats.ts counts the cost
//   run.ts      media upload, then the requests through the paced engine (engine.ts, pace/),
//               each result journaled (journal.ts) and printed (results.ts) as it arrives
//   summary.ts  the dry run's document, or the run's summary line and what to do next
// The command (src/commands/send/send.ts) asks for what is missing, reads its command line into a
// SendRequest (request.ts there), calls this, and turns the outcome into an exit code. Nothing in
// this folder knows the command line.

/** A dry run sends nothing; a send says what happened. */
export type SendResult = { dryRun: true } | ({ dryRun: false; from: string } & SendOutcome);

export async function sendPipeline(request: SendRequest, ctx: SendContext): Promise<SendResult> {
  const plan = await planSend(request, ctx);
  let resumed: Resumed | undefined;
  try {
    await confirmIgnoreOptOuts(plan, ctx);
    resumed = await resumeFrom(plan, ctx);
    const skip = resumed?.skip;
    // With a templated body the cost is a pass over the recipients: made once, when first asked.
    let counted: Promise<BodyStats> | undefined;
    const cost = (): Promise<BodyStats> => (counted ??= bodyStats(plan, skip));
    if (plan.dryRun) {
      await writeDryRun(ctx, plan, await cost(), resumed);
      return { dryRun: true };
    }
    const isAsync = await confirmSend(plan, ctx, skip, cost);
    return { dryRun: false, from: plan.from, ...(await runSend(plan, ctx, { isAsync, resumed, cost })) };
  } finally {
    // After the journal's writer has closed (runSend waits for it): the next run may take it.
    resumed?.lock?.release();
    plan.close();
  }
}
