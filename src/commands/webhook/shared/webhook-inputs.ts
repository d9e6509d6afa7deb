import type { Context } from '../../../context.js';
import { UsageError } from '../../../errors.js';
import { readInputFile } from '../../../input/files.js';
import type { BasicCredentials } from '../../../webhooks/types.js';
import { basicCredentials, webhookSecrets } from '../../../webhooks/credentials.js';
import type { CommandInput } from '../../spec.js';
import { DEFAULT_SECRET_ENV } from '../../defaults.js';
import { nonBlank } from '../../events/shared/store-options.js';

// The webhook commands' inputs: the secrets (read by src/webhooks/credentials.ts from the
// variables the flags name) and the body to sign or verify.

/**
 * The secrets named by --secret-env (comma-separated, current first), or the default variable.
 * With `optional`, an unset default variable means "no secret" rather than an error.
 */
export function secretsFromEnv(ctx: Context, input: CommandInput<'secretEnv'>, options: { single?: boolean; optional?: boolean } = {}): string[] | undefined {
  return webhookSecrets(ctx.env, { given: input.string('secretEnv'), defaultName: DEFAULT_SECRET_ENV, ...options });
}

export function basicAuthFromEnv(ctx: Context, input: CommandInput<'basicAuthEnv'>): BasicCredentials | undefined {
  const given = input.string('basicAuthEnv');
  return given === undefined ? undefined : basicCredentials(ctx.env, given, DEFAULT_SECRET_ENV);
}

/** The body exactly as stored: signatures are over bytes, so nothing is decoded or trimmed. */
export async function readBodyBytes(ctx: Context, input: CommandInput<'bodyFile'>): Promise<Buffer> {
  const file = input.string('bodyFile');
  if (file !== undefined) nonBlank(file, '--body-file', 'a file name (or - for standard input)');
  if (file !== undefined && file !== '-') {
    return readInputFile(file, '--body-file');
  }
  if (ctx.io.stdinIsTTY) {
    throw new UsageError('give the body with --body-file FILE or pipe it on standard input');
  }
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.io.stdin) {
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : (chunk as Buffer));
  }
  return Buffer.concat(chunks);
}
