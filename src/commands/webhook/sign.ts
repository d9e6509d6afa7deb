import type { Context } from '../../context.js';
import { signBody } from '../../webhooks/signature.js';
import type { CommandInput } from '../spec.js';
import { readBodyBytes, secretsFromEnv } from './inputs.js';

export async function run(input: CommandInput, ctx: Context): Promise<number> {
  const [secret] = secretsFromEnv(ctx, input, { single: true }) ?? [];
  const body = await readBodyBytes(ctx, input);
  const signature = signBody(body, secret ?? '');
  ctx.io.stdout.write(ctx.globals.output === 'table' ? `${signature}\n` : `${JSON.stringify({ signature })}\n`);
  return 0;
}
