import { readFile } from 'node:fs/promises';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { BasicCredentials } from '../../webhooks/listener.js';
import type { CommandInput } from '../spec.js';
import { DEFAULT_SECRET_ENV } from '../defaults.js';

// Secrets reach these commands only through environment variables named on the command line, so
// that they never show in shell history or `ps`. Messages name the variable, never its value:
// a user who typed the secret itself where a name belongs must not see it echoed into a log.

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function variableNames(text: string, flag: string): string[] {
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.length === 0 || names.some((name) => !VARIABLE_NAME.test(name))) {
    throw new UsageError(`${flag} takes the name of an environment variable (letters, digits, _), not the secret itself`, [
      `e.g. export ${DEFAULT_SECRET_ENV}=... then ${flag} ${DEFAULT_SECRET_ENV}`,
    ]);
  }
  return names;
}

function valueOf(ctx: Context, name: string, what: string, flag: string): string {
  const value = ctx.env[name];
  if (value === undefined || value === '') {
    throw new UsageError(`environment variable ${name} is not set (it should hold ${what})`, [
      `set it, or name another variable with ${flag}`,
    ]);
  }
  return value;
}

/**
 * The secrets named by --secret-env (comma-separated, current first), or the default variable.
 * With `optional`, an unset default variable means "no secret" rather than an error.
 */
export function secretsFromEnv(ctx: Context, input: CommandInput<'secretEnv'>, options: { single?: boolean; optional?: boolean } = {}): string[] | undefined {
  const given = input.string('secretEnv');
  if (given === undefined && options.optional === true) {
    const fallback = ctx.env[DEFAULT_SECRET_ENV];
    return fallback === undefined || fallback === '' ? undefined : [fallback];
  }
  const names = variableNames(given ?? DEFAULT_SECRET_ENV, '--secret-env');
  if (options.single === true && names.length > 1) {
    throw new UsageError('--secret-env takes one variable here: a body is signed with the current secret only');
  }
  return names.map((name) => valueOf(ctx, name, 'the webhook secret', '--secret-env'));
}

export function basicAuthFromEnv(ctx: Context, input: CommandInput<'basicAuthEnv'>): BasicCredentials | undefined {
  const given = input.string('basicAuthEnv');
  if (given === undefined) return undefined;
  const names = variableNames(given, '--basic-auth-env');
  if (names.length > 1) throw new UsageError('--basic-auth-env takes one variable');
  const name = names[0] ?? '';
  const value = valueOf(ctx, name, 'USER:PASSWORD', '--basic-auth-env');
  const colon = value.indexOf(':');
  if (colon <= 0 || colon === value.length - 1) {
    throw new UsageError(`environment variable ${name} must hold USER:PASSWORD (both non-empty)`);
  }
  return { username: value.slice(0, colon), password: value.slice(colon + 1) };
}

/** The body exactly as stored: signatures are over bytes, so nothing is decoded or trimmed. */
export async function readBodyBytes(ctx: Context, input: CommandInput<'bodyFile'>): Promise<Buffer> {
  const file = input.string('bodyFile');
  if (file !== undefined && file !== '-') {
    try {
      return await readFile(file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : code ?? 'unreadable';
      throw new UsageError(`cannot read --body-file ${file}: ${why}`);
    }
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
