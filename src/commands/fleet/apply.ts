import type { InputFor } from '../spec.js';
import type { fleetCommands } from './index.js';
import type { Context } from '../../context.js';
import { CliError, ExitCode, UsageError } from '../../errors.js';
import { writeJson } from '../../output/render.js';
import { loadFleetFile } from '../../fleet/load.js';
import type { DesiredFleet } from '../../fleet/model.js';
import { buildPlan, type Plan } from '../../fleet/plan.js';
import { refuseBlocked, resolveSecrets } from '../../fleet/preflight.js';
import { readLiveState } from '../../fleet/read-live.js';
import { FleetReads } from '../../fleet/reads.js';
import { planSummary } from '../../fleet/render.js';
import type { SavedPlan } from '../../fleet/saved-plan.js';
import { concurrencyOf, printPlan } from './shared/print-plan.js';

type ApplyInput = InputFor<typeof fleetCommands, 'apply'>;

/** What the command line asks for, checked before anything is read or sent. */
export interface ApplyRequest {
  planFile: string | undefined;
  file: string | undefined;
  prune: boolean;
  concurrency: number;
  /** Seconds, when given. */
  waitTimeout: number | undefined;
  wait: boolean;
  updateSecrets: boolean;
}

function applyRequestOf(input: ApplyInput): ApplyRequest {
  const planFile = input.string('plan');
  const file = input.string('file');
  if (planFile !== undefined && file !== undefined) throw new UsageError('Give -f FILE or --plan PLAN.json, not both (a saved plan holds its file)');
  if (planFile === undefined && file === undefined) throw new UsageError('Which fleet file? give -f FILE (YAML, or JSON with a .json name), or --plan PLAN.json');
  if (planFile !== undefined && input.flag('prune')) throw new UsageError('--prune is decided when the plan is made (svc diff --prune --out PLAN.json), not when it is applied');
  return {
    planFile,
    file,
    prune: input.flag('prune'),
    concurrency: concurrencyOf(input.number('concurrency', '--concurrency', { min: 1, max: 64, integer: true })),
    waitTimeout: input.number('waitTimeout', '--wait-timeout', { min: 0 }),
    wait: input.has('wait') ? input.flag('wait') : true,
    updateSecrets: input.flag('updateSecrets'),
  };
}

export async function run(input: ApplyInput, ctx: Context): Promise<number> {
  if (input.flag('schema')) {
    const { fleetJsonSchemaText } = await import('../../fleet/schema.js');
    ctx.io.stdout.write(fleetJsonSchemaText());
    return 0;
  }
  const request = applyRequestOf(input);
  const { fleet, file, prune, saved } = await desiredState(request);
  const api = await ctx.api();
  if (saved !== undefined && saved.baseUrl !== api.baseUrl) {
    throw new UsageError(`${request.planFile} was planned against ${saved.baseUrl}, not ${api.baseUrl}; make the plan again against this service`);
  }
  api.preferThroughput(request.concurrency);
  const reads = new FleetReads(api, ctx.clock, ctx.signal);
  const live = await readLiveState(reads, fleet, { concurrency: request.concurrency });
  const plan = buildPlan(fleet, live, { prune });
  if (saved !== undefined) await refuseMovedPlan(saved, plan, request.planFile!, file);
  if (input.flag('dryRun')) {
    await printPlan(ctx, plan, fleet, file, request.updateSecrets);
    return 0;
  }
  refuseBlocked(plan);
  const secrets = resolveSecrets(fleet, plan, request.updateSecrets, ctx.env);
  if (plan.inSync && !(request.updateSecrets && secrets.size > 0)) {
    if (ctx.globals.output !== 'table') writeJson(ctx, { changes: [], inSync: true });
    else ctx.io.stdout.write(`${planSummary(plan, file)}\n`);
    return 0;
  }
  // The writer and what it needs are loaded only when there is something to write.
  const { applyChanges } = await import('./shared/apply-changes.js');
  return applyChanges(ctx, { reads, request, file }, fleet, plan, secrets);
}

/** The fleet to apply: the file's, or the one a saved plan was made from (with its --prune). */
async function desiredState(request: ApplyRequest): Promise<{ fleet: DesiredFleet; file: string; prune: boolean; saved: SavedPlan | undefined }> {
  if (request.planFile === undefined) return { fleet: await loadFleetFile(request.file!), file: request.file!, prune: request.prune, saved: undefined };
  const { readSavedPlan } = await import('../../fleet/saved-plan.js');
  const saved = await readSavedPlan(request.planFile);
  return { fleet: saved.fleet, file: saved.file, prune: saved.prune, saved };
}

/** A saved plan is applied only while the live state still gives the same plan. */
async function refuseMovedPlan(saved: SavedPlan, plan: Plan, planFile: string, file: string): Promise<void> {
  const { planMoves } = await import('../../fleet/saved-plan.js');
  const moves = planMoves(saved.changes, plan.changes);
  if (moves.length === 0) return;
  const listed = moves.slice(0, 20).map((m) => `  ${m}`);
  if (moves.length > 20) listed.push(`  ... and ${moves.length - 20} more`);
  throw new CliError(`The live state moved since ${planFile} was made, so nothing was changed:\n${listed.join('\n')}`, ExitCode.Failure, {
    hints: [`Make the plan again (svc diff -f ${file} --out ${planFile}) and review it.`],
  });
}
