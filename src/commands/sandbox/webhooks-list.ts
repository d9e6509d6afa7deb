import type { Context } from '../../context.js';
import { listWebhookDeliveries } from '../../api/sandbox.js';
import { writeList } from '../../output/render.js';
import type { InputFor } from '../spec.js';
import type { sandboxCommands } from './index.js';
import { sandboxOnly } from './shared/sandbox-only.js';

type Row = Record<string, unknown>;
const text = (v: unknown): string => (v === null || v === undefined ? '' : String(v));

/** `svc sandbox webhooks list`: every attempt at delivering an event to your tenants. */
export async function run(_input: InputFor<typeof sandboxCommands, 'sandbox webhooks list'>, ctx: Context): Promise<number> {
  const api = await ctx.api();
  const rows = await sandboxOnly(api, 'svc sandbox webhooks', () => listWebhookDeliveries(api));
  await writeList<Row>(ctx, rows, [
    { header: 'AT', value: (r) => r['at'], kind: 'time', importance: 6 },
    { header: 'DELIVERY', value: (r) => r['deliveryId'], kind: 'id', importance: 7 },
    { header: 'EVENT', value: (r) => r['event'], kind: 'status', importance: 5 },
    { header: 'ATTEMPT', value: (r) => r['attempt'], kind: 'number', importance: 3 },
    { header: 'STATUS', value: (r) => text(r['status'] ?? 'no answer'), tone: (t) => (/^2\d\d$/.test(t) ? 'good' : 'bad'), kind: 'status', importance: 4 },
    { header: 'ERROR', value: (r) => text(r['error']), kind: 'text', importance: 2 },
    { header: 'URL', value: (r) => r['url'], kind: 'text', importance: 1 },
  ]);
  return 0;
}
