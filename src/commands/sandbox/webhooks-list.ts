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
    { header: 'AT', value: (r) => r['at'] },
    { header: 'DELIVERY', value: (r) => r['deliveryId'] },
    { header: 'EVENT', value: (r) => r['event'] },
    { header: 'ATTEMPT', value: (r) => r['attempt'] },
    { header: 'STATUS', value: (r) => text(r['status'] ?? 'no answer'), tone: (t) => (/^2\d\d$/.test(t) ? 'good' : 'bad') },
    { header: 'ERROR', value: (r) => text(r['error']) },
    { header: 'URL', value: (r) => r['url'] },
  ]);
  return 0;
}
