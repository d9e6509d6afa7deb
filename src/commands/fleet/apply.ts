import type { InputFor } from '../spec.js';
import type { fleetCommands } from './index.js';
import type { Context } from '../../context.js';
import { CliError, ExitCode, UsageError } from '../../errors.js';
import { confirmAction } from '../../output/ask.js';
import { startSpinner } from '../../output/spinner.js';
import { writeJson } from '../../output/render.js';
import { terminalPalette } from '../../output/palette.js';
import { firstInterval } from '../../poll/poll.js';
import { dataDir } from '../../events/paths.js';
import { FleetApplier, refuseBlocked, resolveSecrets, type ApplyResult } from '../../fleet/apply.js';
import { loadFleetFile } from '../../fleet/load.js';
import type { DesiredFleet } from '../../fleet/model.js';
import { buildPlan } from '../../fleet/plan.js';
import { readLiveState } from '../../fleet/read-live.js';
import { readRecord, recordPath, RecordWriter } from '../../fleet/record.js';
import { planLines, planSummary } from '../../fleet/render.js';
import { planMoves, readSavedPlan } from '../../fleet/saved-plan.js';
import { fleetJsonSchemaText } from '../../fleet/schema.js';
import { orderEntries, orderIdOf, orderOutcome } from '../order/shared/order-status.js';
import { concurrencyOf, printPlan } from './shared/print-plan.js';

export async function run(input: InputFor<typeof fleetCommands, 'apply'>, ctx: Context): Promise<number> {
  if (input.flag('schema')) {
    ctx.io.stdout.write(fleetJsonSchemaText());
    return 0;
  }
  const planFile = input.string('plan');
  let file = input.string('file');
  if (planFile !== undefined && file !== undefined) throw new UsageError('Give -f FILE or --plan PLAN.json, not both (a saved plan holds its file)');
  if (planFile === undefined && file === undefined) throw new UsageError('Which fleet file? give -f FILE (YAML, or JSON with a .json name), or --plan PLAN.json');
  if (planFile !== undefined && input.flag('prune')) throw new UsageError('--prune is decided when the plan is made (svc diff --prune --out PLAN.json), not when it is applied');
  const concurrency = concurrencyOf(input.number('concurrency', '--concurrency', { min: 1, max: 64, integer: true }));
  const waitTimeout = input.number('waitTimeout', '--wait-timeout', { min: 0 });
  const wait = input.has('wait') ? input.flag('wait') : true;
  const updateSecrets = input.flag('updateSecrets');

  let fleet: DesiredFleet;
  let prune = input.flag('prune');
  const saved = planFile === undefined ? undefined : await readSavedPlan(planFile);
  if (saved !== undefined) {
    fleet = saved.fleet;
    prune = saved.prune;
    file = saved.file;
  } else {
    fleet = await loadFleetFile(file!);
  }
  const fileName = file!;
  const api = await ctx.api();
  if (saved !== undefined && saved.baseUrl !== api.baseUrl) {
    throw new UsageError(`${planFile} was planned against ${saved.baseUrl}, not ${api.baseUrl}; make the plan again against this service`);
  }
  api.preferThroughput(concurrency);
  const live = await readLiveState(api, fleet, { concurrency });
  const plan = buildPlan(fleet, live, { prune });
  if (saved !== undefined) {
    const moves = planMoves(saved.changes, plan.changes);
    if (moves.length > 0) {
      const listed = moves.slice(0, 20).map((m) => `  ${m}`);
      if (moves.length > 20) listed.push(`  ... and ${moves.length - 20} more`);
      throw new CliError(`The live state moved since ${planFile} was made, so nothing was changed:\n${listed.join('\n')}`, ExitCode.Failure, {
        hints: [`Make the plan again (svc diff -f ${fileName} --out ${planFile}) and review it.`],
      });
    }
  }
  if (input.flag('dryRun')) {
    await printPlan(ctx, plan, fleet, fileName, updateSecrets);
    return 0;
  }
  refuseBlocked(plan);
  const secrets = resolveSecrets(fleet, plan, updateSecrets, ctx.env);
  const sendsSecrets = updateSecrets && secrets.size > 0;
  if (plan.inSync && !sendsSecrets) {
    if (ctx.globals.output !== 'table') writeJson(ctx, { changes: [], inSync: true });
    else ctx.io.stdout.write(`${planSummary(plan, fileName)}\n`);
    return 0;
  }
  const released = plan.changes.filter((c) => c.action === 'unprovision');
  if (released.length > 0) {
    const tenants = [...new Set(released.map((c) => c.tenant))].join(', ');
    await confirmAction(ctx, `unprovision ${released.length} number${released.length === 1 ? '' : 's'} of tenant ${tenants} that ${fileName} does not list`);
  }

  const table = ctx.globals.output === 'table';
  if (table) {
    const palette = await terminalPalette(ctx.io.colorStdout);
    ctx.io.stdout.write(`${[...planLines(plan, palette), planSummary(plan, fileName)].join('\n')}\n`);
  }
  const path = recordPath(dataDir(ctx.env), fileName, api.baseUrl, ctx.settings().username ?? '');
  const record = new RecordWriter(path);
  record.claim(fileName);
  ctx.onClose(() => record.close());
  const earlier = readRecord(path);
  if (earlier.damaged > 0) ctx.warn(`${earlier.damaged} line${earlier.damaged === 1 ? '' : 's'} of the apply record ${path} did not check out (cut short by a kill?) and ${earlier.damaged === 1 ? 'was' : 'were'} ignored; the live state decides`);
  const spinner = ctx.io.stderrIsTTY ? await startSpinner(ctx, 'Applying') : undefined;
  const say = (line: string): void => {
    if (spinner !== undefined) spinner.clear();
    ctx.io.stderr.write(`${line}\n`);
    if (spinner !== undefined) spinner.render();
  };
  const applier = new FleetApplier(
    {
      api,
      clock: ctx.clock,
      signal: ctx.signal,
      orders: { idOf: orderIdOf, outcome: orderOutcome, entries: orderEntries },
      record,
      earlier,
      events: {
        say,
        progress: (text) => {
          if (spinner !== undefined) spinner.text = text ?? 'Applying';
        },
      },
    },
    { concurrency, wait, waitTimeoutMs: waitTimeout === undefined ? undefined : waitTimeout * 1000, firstPollMs: firstInterval(undefined, ctx.env), updateSecrets, env: ctx.env },
  );
  let result: ApplyResult;
  try {
    result = await applier.run(fleet, plan, secrets);
  } finally {
    spinner?.stop();
  }
  const settled = result.inFlight.length === 0 && !result.timedOut && wait;
  // Kept while anything is in flight or failed: the next run waits for the one and names the other.
  if (settled && result.failed.length === 0) record.remove();
  else record.close();
  const code = result.failed.length > 0 || result.timedOut ? ExitCode.Timeout : 0;
  if (!table) {
    writeJson(ctx, { changes: result.changes, inSync: settled && code === 0 });
  } else {
    const done = result.changes.filter((c) => c.outcome === 'done' || c.outcome === 'waited').length;
    const submitted = result.changes.filter((c) => c.outcome === 'submitted').length;
    const parts = [`${done} change${done === 1 ? '' : 's'} made`];
    if (submitted > 0) parts.push(`${submitted} submitted and still in flight`);
    if (result.failed.length > 0) parts.push(`${result.failed.length} failed`);
    ctx.io.stdout.write(`Applied: ${parts.join(', ')}.\n`);
  }
  for (const f of result.failed) ctx.io.stderr.write(`Failed: ${f.number}${f.orderId !== '-' ? ` (order ${f.orderId})` : ''}: ${f.reason}\n`);
  if (result.failed.length > 0) ctx.io.stderr.write(`Run \`svc apply -f ${fileName}\` again to order the failed numbers again (see \`svc order get ID\` for the service's reasons).\n`);
  if (result.timedOut) ctx.io.stderr.write(`Stopped waiting after ${waitTimeout} s with orders in flight (${result.inFlight.join(', ')}); run \`svc apply -f ${fileName}\` again to wait for them (they are not ordered again).\n`);
  if (!wait && result.inFlight.length > 0) ctx.io.stderr.write(`Not waiting (--no-wait): orders ${result.inFlight.join(', ')} are in flight; numbers may still be Pending.\n`);
  return code;
}
