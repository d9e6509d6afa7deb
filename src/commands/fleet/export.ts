import type { InputFor } from '../spec.js';
import type { fleetCommands } from './index.js';
import type { Context } from '../../context.js';
import { NotFoundError } from '../../errors.js';
import { requireGuid } from '../../input/checks.js';
import { exportFleet } from '../../fleet/export.js';
import { exportYamlText } from '../../fleet/export-yaml.js';
import { readLiveState } from '../../fleet/read-live.js';
import { FleetReads } from '../../fleet/reads.js';
import { writeExact } from '../../output/io.js';

export async function run(input: InputFor<typeof fleetCommands, 'export'>, ctx: Context): Promise<number> {
  const only = input.strings('tenant').map((t) => requireGuid(t, '--tenant').toLowerCase());
  const api = await ctx.api();
  api.preferThroughput(8);
  const live = await readLiveState(new FleetReads(api, ctx.clock, ctx.signal), { tenants: [], numbers: [] }, { concurrency: 8, everything: true });
  const missing = only.filter((id) => !live.tenants.has(id));
  if (missing.length > 0) throw new NotFoundError(`No tenant ${missing.join(', ')} in this account (svc tenant list shows them)`);
  const keep = (id: string | undefined): boolean => only.length === 0 || (id !== undefined && only.includes(id));
  const tenants = [...live.tenants.values()].filter((t) => keep(t.tenantId)).sort((a, b) => a.tenantId.localeCompare(b.tenantId));
  const numbers = [...live.numbers.values()].filter((n) => keep(n.tenantId));
  const { document, secrets, leftOut } = exportFleet(tenants, numbers);
  if (ctx.globals.output !== 'table') {
    writeExact(ctx.io.stdout, `${JSON.stringify(document, null, 2)}\n`);
  } else {
    writeExact(ctx.io.stdout, exportYamlText(document) ?? (await libraryYamlText(document)));
  }
  if (secrets.length > 0) {
    ctx.io.stderr.write('Secrets are written as references to environment variables (a read never shows them); set each before `svc apply` creates its tenant or sends it with --update-secrets:\n');
    for (const s of secrets) ctx.io.stderr.write(`  ${s.env}  (tenant ${s.tenantId} ${s.key})\n`);
  }
  if (leftOut.length > 0) {
    ctx.io.stderr.write(`Left out, as the fleet file would refuse them (${leftOut.length}):\n`);
    for (const line of leftOut.slice(0, 50)) ctx.io.stderr.write(`  ${line}\n`);
    if (leftOut.length > 50) ctx.io.stderr.write(`  ... and ${leftOut.length - 50} more\n`);
  }
  return 0;
}

/** The document as the `yaml` library writes it: for what exportYamlText does not write itself. */
async function libraryYamlText(document: Record<string, unknown>): Promise<string> {
  const yaml = await import('yaml');
  const doc = new yaml.Document(document);
  // A secret reference reads as it is written by hand: webhookSecret: {env: NAME}.
  yaml.visit(doc, {
    Map(_, node) {
      if (node.items.length === 1 && yaml.isScalar(node.items[0]!.key) && node.items[0]!.key.value === 'env') node.flow = true;
    },
  });
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}
