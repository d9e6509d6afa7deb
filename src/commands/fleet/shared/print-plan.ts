// The plan as `diff` and `apply --dry-run` print it: JSON with --json, else the +/~/-/! lines on
// stdout (coloured on a terminal) and the notes on stderr.

import type { Context } from '../../../context.js';
import { writeJson } from '../../../output/render.js';
import { terminalPalette } from '../../../output/palette.js';
import { secretKeysOf } from '../../../fleet/load.js';
import type { DesiredFleet } from '../../../fleet/model.js';
import type { Plan } from '../../../fleet/plan.js';
import { notComparedNotes, planJson, planLines, planSummary } from '../../../fleet/render.js';

export async function printPlan(ctx: Context, plan: Plan, fleet: DesiredFleet, file: string, updateSecrets: boolean): Promise<void> {
  const notes = notComparedNotes(plan, secretKeysOf(fleet), updateSecrets);
  if (ctx.globals.output !== 'table') {
    writeJson(ctx, planJson(plan));
    return;
  }
  const palette = await terminalPalette(ctx.io.colorStdout);
  const lines = planLines(plan, palette);
  lines.push(planSummary(plan, file));
  ctx.io.stdout.write(`${lines.join('\n')}\n`);
  for (const note of notes) ctx.io.stderr.write(`${note}\n`);
}

/** --concurrency, 8 unless given. */
export function concurrencyOf(value: number | undefined): number {
  return value ?? 8;
}
