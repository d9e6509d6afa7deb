import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { verifySignature } from '../../domain/signature.js';
import type { InputFor } from '../spec.js';
import type { webhookCommands } from './index.js';
import { readBodyBytes, secretsFromEnv } from './shared/webhook-inputs.js';

const REASONS = {
  missing: 'the signature is empty',
  malformed: 'the signature is not Base64 of a 32-byte HMAC-SHA256 digest',
  mismatch: 'the signature does not match the body under the given secret(s)',
} as const;

export async function run(input: InputFor<typeof webhookCommands, 'webhook verify'>, ctx: Context): Promise<number> {
  const signature = input.string('signature');
  if (signature === undefined) throw new UsageError('--signature is required: the X-Svc-Signature value to check');
  const secrets = secretsFromEnv(ctx, input) ?? [];
  const body = await readBodyBytes(ctx, input);
  const verdict = verifySignature(body, signature, secrets);
  if (ctx.globals.output !== 'table') {
    ctx.io.stdout.write(`${JSON.stringify(verdict.valid ? { valid: true, secretIndex: verdict.secretIndex } : { valid: false, reason: verdict.reason })}\n`);
  } else {
    ctx.io.stdout.write(verdict.valid ? 'valid\n' : 'invalid\n');
  }
  if (!verdict.valid) {
    ctx.io.stderr.write(`${REASONS[verdict.reason]}\n`);
    return 1;
  }
  if (verdict.secretIndex > 0 && ctx.globals.output === 'table') {
    ctx.io.stderr.write(`matched secret ${verdict.secretIndex + 1} of ${secrets.length} (a previous one)\n`);
  }
  return 0;
}
