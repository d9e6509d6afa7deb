import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { listFailedWebhooks, listWebhookDeliveries, replayFailedWebhook } from '../../api/sandbox.js';
import { statusTone, writeList, writeObject } from '../../output/render.js';
import type { InputFor } from '../spec.js';
import type { sandboxCommands } from './index.js';
import { sandboxOnly } from './trigger-shared.js';

type Row = Record<string, unknown>;
const text = (v: unknown): string => (v === null || v === undefined ? '' : String(v));

/** `svc sandbox webhooks list`: every attempt at delivering an event to your tenants. */
export async function list(_input: InputFor<typeof sandboxCommands, 'sandbox webhooks list'>, ctx: Context): Promise<number> {
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

/** `svc sandbox webhooks failed`: the failure queue. */
export async function failed(_input: InputFor<typeof sandboxCommands, 'sandbox webhooks failed'>, ctx: Context): Promise<number> {
  const api = await ctx.api();
  const rows = await sandboxOnly(api, 'svc sandbox webhooks', () => listFailedWebhooks(api));
  await writeList<Row>(ctx, rows, [
    { header: 'DELIVERY', value: (r) => r['deliveryId'] },
    { header: 'EVENT', value: (r) => r['event'] },
    { header: 'ATTEMPTS', value: (r) => r['attempts'] },
    { header: 'LAST STATUS', value: (r) => text(r['lastStatus'] ?? 'no answer'), tone: statusTone },
    { header: 'LAST ERROR', value: (r) => text(r['lastError']) },
    { header: 'LAST ATTEMPT', value: (r) => r['lastAttemptAt'] },
  ]);
  return 0;
}

/** `svc sandbox webhooks replay ID`: a failed event goes out again (same delivery id). */
export async function replay(input: InputFor<typeof sandboxCommands, 'sandbox webhooks replay'>, ctx: Context): Promise<number> {
  const id = (input.arg(0) ?? '').trim();
  if (id === '') throw new UsageError('replay needs the delivery id of a failed event (svc sandbox webhooks failed lists them)');
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(id)) throw new UsageError(`"${id}" is not a delivery id (like dlv_0123abcd...)`);
  const api = await ctx.api();
  const result = await sandboxOnly(api, 'svc sandbox webhooks', () => replayFailedWebhook(api, id));
  await writeObject(ctx, result, { title: 'Replayed' });
  ctx.io.stderr.write(`Event ${id} is queued again, with a fresh retry schedule; svc sandbox webhooks list shows its attempts.\n`);
  return 0;
}
