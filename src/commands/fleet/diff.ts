import type { InputFor } from '../spec.js';
import type { fleetCommands } from './index.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { loadFleetFile } from '../../fleet/load.js';
import { buildPlan } from '../../fleet/plan.js';
import { readLiveState } from '../../fleet/read-live.js';
import { FleetReads } from '../../fleet/reads.js';
import { savedPlanOf, writeSavedPlan } from '../../fleet/saved-plan.js';
import { concurrencyOf, printPlan } from './shared/print-plan.js';

/** `svc diff --exit-code`: the command worked and found differences. */
export const DIFFERENCES_FOUND = 7;

export async function run(input: InputFor<typeof fleetCommands, 'diff'>, ctx: Context): Promise<number> {
  const file = input.string('file');
  if (file === undefined) throw new UsageError('Which fleet file? give -f FILE (YAML, or JSON with a .json name)', ['svc export > fleet.yaml writes one from the live state.']);
  const concurrency = concurrencyOf(input.number('concurrency', '--concurrency', { min: 1, max: 64, integer: true }));
  const out = input.string('out');
  const fleet = await loadFleetFile(file);
  const api = await ctx.api();
  api.preferThroughput(concurrency);
  const prune = input.flag('prune');
  const live = await readLiveState(new FleetReads(api, ctx.clock, ctx.signal), fleet, { concurrency });
  const plan = buildPlan(fleet, live, { prune });
  if (out !== undefined) await writeSavedPlan(out, savedPlanOf(plan, fleet, { file, baseUrl: api.baseUrl, prune }));
  await printPlan(ctx, plan, fleet, file, false);
  return input.flag('exitCode') && !plan.inSync ? DIFFERENCES_FOUND : 0;
}
