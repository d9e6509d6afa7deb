import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { replayFailedWebhook } from '../../api/sandbox.js';
import { writeObject } from '../../output/render.js';
import type { InputFor } from '../spec.js';
import type { sandboxCommands } from './index.js';
import { sandboxOnly } from './shared/sandbox-only.js';

/** `svc sandbox webhooks replay ID`: a failed event goes out again (same delivery id). */
export async function run(input: InputFor<typeof sandboxCommands, 'sandbox webhooks replay'>, ctx: Context): Promise<number> {
  const id = (input.arg(0) ?? '').trim();
  if (id === '') throw new UsageError('replay needs the delivery id of a failed event (svc sandbox webhooks failed lists them)');
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(id)) throw new UsageError(`"${id}" is not a delivery id (like dlv_0123abcd...)`);
  const api = await ctx.api();
  const result = await sandboxOnly(api, 'svc sandbox webhooks', () => replayFailedWebhook(api, id));
  await writeObject(ctx, result, { title: 'Replayed' });
  ctx.io.stderr.write(`Event ${id} is queued again, with a fresh retry schedule; svc sandbox webhooks list shows its attempts.\n`);
  return 0;
}
