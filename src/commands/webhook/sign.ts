import type { Context } from '../../context.js';
import { signBody } from '../../domain/signature.js';
import type { InputFor } from '../spec.js';
import type { webhookCommands } from './index.js';
import { readBodyBytes, secretsFromEnv } from './shared/webhook-inputs.js';

export async function run(input: InputFor<typeof webhookCommands, 'webhook sign'>, ctx: Context): Promise<number> {
  const [secret] = secretsFromEnv(ctx, input, { single: true }) ?? [];
  const body = await readBodyBytes(ctx, input);
  const signature = signBody(body, secret ?? '');
  ctx.io.stdout.write(ctx.globals.output === 'table' ? `${signature}\n` : `${JSON.stringify({ signature })}\n`);
  return 0;
}
