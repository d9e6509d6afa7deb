import type { Context } from '../../context.js';
import { listFailedWebhooks } from '../../api/sandbox.js';
import { statusTone, writeList } from '../../output/render.js';
import type { InputFor } from '../spec.js';
import type { sandboxCommands } from './index.js';
import { sandboxOnly } from './shared/sandbox-only.js';

type Row = Record<string, unknown>;
const text = (v: unknown): string => (v === null || v === undefined ? '' : String(v));

/** `svc sandbox webhooks failed`: the failure queue. */
export async function run(_input: InputFor<typeof sandboxCommands, 'sandbox webhooks failed'>, ctx: Context): Promise<number> {
  const api = await ctx.api();
  const rows = await sandboxOnly(api, 'svc sandbox webhooks', () => listFailedWebhooks(api));
  await writeList<Row>(ctx, rows, [
    { header: 'DELIVERY', value: (r) => r['deliveryId'], kind: 'id', importance: 6 },
    { header: 'EVENT', value: (r) => r['event'], kind: 'status', importance: 5 },
    { header: 'ATTEMPTS', value: (r) => r['attempts'], kind: 'number', importance: 3 },
    { header: 'LAST STATUS', value: (r) => text(r['lastStatus'] ?? 'no answer'), tone: statusTone, kind: 'status', importance: 4 },
    { header: 'LAST ERROR', value: (r) => text(r['lastError']), kind: 'text', importance: 2 },
    { header: 'LAST ATTEMPT', value: (r) => r['lastAttemptAt'], kind: 'time', importance: 1 },
  ]);
  return 0;
}
