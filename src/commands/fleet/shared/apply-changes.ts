// The writing part of `svc apply`, loaded only when the plan has something to change: the prune
// question, the plan shown, the write-ahead record, the applier with its progress, and the report.

import type { Context } from '../../../context.js';
import { ExitCode } from '../../../errors.js';
import { confirmAction } from '../../../output/ask.js';
import { startSpinner } from '../../../output/spinner.js';
import { writeJson } from '../../../output/render.js';
import { terminalPalette } from '../../../output/palette.js';
import { firstInterval } from '../../../poll/poll.js';
import { dataDir } from '../../../events/paths.js';
import { FleetApplier, type ApplyResult } from '../../../fleet/apply.js';
import type { DesiredFleet } from '../../../fleet/model.js';
import type { Plan } from '../../../fleet/plan.js';
import type { FleetReads } from '../../../fleet/reads.js';
import { readRecord, recordPath, RecordWriter, type RecordState } from '../../../fleet/record.js';
import { planLines, planSummary } from '../../../fleet/render.js';
import { orderEntries, orderIdOf, orderOutcome } from '../../order/shared/order-status.js';
import type { ApplyRequest } from '../apply.js';

/** What the command hands on: the run's reads, what was asked, and the file's name. */
export interface ApplyRun {
  reads: FleetReads;
  request: ApplyRequest;
  file: string;
}

/** Makes the changes of `plan` (asking first when it prunes); the exit code. */
export async function applyChanges(ctx: Context, run: ApplyRun, fleet: DesiredFleet, plan: Plan, secrets: ReadonlyMap<string, string>): Promise<number> {
  const { reads, request, file } = run;
  await confirmPrune(ctx, plan, file);
  if (ctx.globals.output === 'table') {
    const palette = await terminalPalette(ctx.io.colorStdout);
    ctx.io.stdout.write(`${[...planLines(plan, palette), planSummary(plan, file)].join('\n')}\n`);
  }
  const path = recordPath(dataDir(ctx.env), file, reads.api.baseUrl, ctx.settings().username ?? '');
  const record = openRecord(ctx, path, file);
  const result = await makeChanges(ctx, { reads, record, earlier: readRecord(path), request }, fleet, plan, secrets);
  return reportResult(ctx, result, record, request, file);
}

/** Unprovisioning is destructive: asked on a terminal, --yes otherwise. */
async function confirmPrune(ctx: Context, plan: Plan, file: string): Promise<void> {
  const released = plan.changes.filter((c) => c.action === 'unprovision');
  if (released.length === 0) return;
  const tenants = [...new Set(released.map((c) => c.tenant))].join(', ');
  await confirmAction(ctx, `unprovision ${released.length} number${released.length === 1 ? '' : 's'} of tenant ${tenants} that ${file} does not list`);
}

/** The write-ahead record of this file and account, held for the run (a second apply of it waits its turn). */
function openRecord(ctx: Context, path: string, file: string): RecordWriter {
  const record = new RecordWriter(path);
  record.claim(file);
  ctx.onClose(() => record.close());
  return record;
}

interface ApplyParts {
  reads: FleetReads;
  record: RecordWriter;
  earlier: RecordState;
  request: ApplyRequest;
}

/** Runs the applier, its progress on a spinner on a terminal and its notes on stderr. */
async function makeChanges(ctx: Context, parts: ApplyParts, fleet: DesiredFleet, plan: Plan, secrets: ReadonlyMap<string, string>): Promise<ApplyResult> {
  const { reads, record, earlier, request } = parts;
  if (earlier.damaged > 0) ctx.warn(`${earlier.damaged} line${earlier.damaged === 1 ? '' : 's'} of the apply record ${record.path} did not check out (cut short by a kill?) and ${earlier.damaged === 1 ? 'was' : 'were'} ignored; the live state decides`);
  const spinner = ctx.io.stderrIsTTY ? await startSpinner(ctx, 'Applying') : undefined;
  const say = (line: string): void => {
    if (spinner !== undefined) spinner.clear();
    ctx.io.stderr.write(`${line}\n`);
    if (spinner !== undefined) spinner.render();
  };
  const progress = (text: string | undefined): void => {
    if (spinner !== undefined) spinner.text = text ?? 'Applying';
  };
  const applier = new FleetApplier(
    { api: reads.api, reads, clock: ctx.clock, signal: ctx.signal, orders: { idOf: orderIdOf, outcome: orderOutcome, entries: orderEntries }, record, earlier, events: { say, progress } },
    {
      concurrency: request.concurrency,
      wait: request.wait,
      waitTimeoutMs: request.waitTimeout === undefined ? undefined : request.waitTimeout * 1000,
      firstPollMs: firstInterval(undefined, ctx.env),
      updateSecrets: request.updateSecrets,
      env: ctx.env,
    },
  );
  try {
    return await applier.run(fleet, plan, secrets);
  } finally {
    spinner?.stop();
  }
}

/** The summary (or --json), what failed and how to go on; the exit code. */
function reportResult(ctx: Context, result: ApplyResult, record: RecordWriter, request: ApplyRequest, file: string): number {
  const settled = result.inFlight.length === 0 && !result.timedOut && request.wait;
  // Kept while anything is in flight or failed: the next run waits for the one and names the other.
  if (settled && result.failed.length === 0) record.remove();
  else record.close();
  // A number no request can provision is the blocked change's exit 1: running again will not mend it.
  const code = result.blocked.length > 0 ? ExitCode.Failure : result.failed.length > 0 || result.timedOut ? ExitCode.Timeout : 0;
  if (ctx.globals.output !== 'table') {
    writeJson(ctx, { changes: result.changes, inSync: settled && code === 0 });
  } else {
    const done = result.changes.filter((c) => c.outcome === 'done' || c.outcome === 'waited').length;
    const submitted = result.changes.filter((c) => c.outcome === 'submitted').length;
    const parts = [`${done} change${done === 1 ? '' : 's'} made`];
    if (submitted > 0) parts.push(`${submitted} submitted and still in flight`);
    if (result.failed.length > 0) parts.push(`${result.failed.length} failed`);
    if (result.blocked.length > 0) parts.push(`${result.blocked.length} blocked`);
    ctx.io.stdout.write(`Applied: ${parts.join(', ')}.\n`);
  }
  const err = ctx.io.stderr;
  for (const b of result.blocked) err.write(`Blocked: ${b.number}: ${b.reason}\n`);
  for (const f of result.failed) err.write(`Failed: ${f.number}${f.orderId !== '-' ? ` (order ${f.orderId})` : ''}: ${f.reason}\n`);
  if (result.failed.length > 0) err.write(`Run \`svc apply -f ${file}\` again to order the failed numbers again (see \`svc order get ID\` for the service's reasons).\n`);
  if (result.timedOut) err.write(`Stopped waiting after ${request.waitTimeout} s with orders in flight (${result.inFlight.join(', ')}); run \`svc apply -f ${file}\` again to wait for them (they are not ordered again).\n`);
  if (!request.wait && result.inFlight.length > 0) err.write(`Not waiting (--no-wait): orders ${result.inFlight.join(', ')} are in flight; numbers may still be Pending.\n`);
  return code;
}
