import { readFile, stat } from 'node:fs/promises';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { isE164, isGuid } from '../../domain/validate.js';
import { stripOneTrailingNewline } from '../../output/io.js';
import { parseJsonText } from '../../input/json.js';

// Input checks shared by commands. Each failure is a usage error (exit 2) naming the bad value,
// and for files the file and the line.

export { lineColumnAt, parseJsonText } from '../../input/json.js';

export async function readTextFile(path: string, what = 'file'): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : code === 'EACCES' ? 'permission denied' : String(code ?? error);
    throw new UsageError(`Cannot read ${what} ${path}: ${reason}`);
  }
}

/** The size of a regular file, or a usage error naming the file and what is wrong with it. */
export async function fileSize(path: string, what = 'file'): Promise<number> {
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new UsageError(`${path}: not a file`);
    return info.size;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`Cannot read ${what} ${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : String(code ?? error)}`);
  }
}

export async function readJsonFile(path: string): Promise<unknown> {
  return parseJsonText(await readTextFile(path, 'JSON file'), path);
}

/** A JSON object from a file, or a usage error naming the file. */
export async function readJsonObjectFile(path: string): Promise<Record<string, unknown>> {
  const data = await readJsonFile(path);
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new UsageError(`${path}:1:1: expected a JSON object`);
  }
  return data as Record<string, unknown>;
}

export function requireGuid(value: string, what: string): string {
  if (!isGuid(value)) throw new UsageError(`${what} must be a GUID (like 3f2504e0-4f89-11d3-9a0c-0305e82c3301), not "${value}"`);
  return value;
}

export function requireE164(value: string, what: string): string {
  if (!isE164(value.trim())) {
    throw new UsageError(`${what} "${value}" is not an E.164 number (a + then 8 to 15 digits, the first not 0, e.g. +15551234567)`);
  }
  return value.trim();
}

/** A secret from stdin (one trailing newline dropped), or from a prompt when a person is there. */
export async function readSecretFromStdin(ctx: Context, flag: string): Promise<string> {
  if (ctx.io.stdinIsTTY && ctx.io.canPrompt) {
    const prompter = await ctx.prompter();
    const typed = await prompter.password(`${flag.replace(/^--/, '').replace(/-stdin$/, '').replace(/-/g, ' ')}:`);
    ctx.io.secrets.add(typed);
    return typed;
  }
  const secret = stripOneTrailingNewline(await ctx.readStdin(flag));
  if (secret === '') throw new UsageError(`${flag}: standard input was empty`);
  ctx.io.secrets.add(secret);
  return secret;
}

/** A secret from the environment variable a flag names. */
export function secretFromEnv(ctx: Context, variable: string, flag: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable)) {
    // The value is not repeated: someone who typed the secret itself here must not see it echoed.
    throw new UsageError(`${flag} takes the NAME of an environment variable (letters, digits and _), not a value`);
  }
  const value = ctx.env[variable];
  if (value === undefined || value === '') throw new UsageError(`${flag}: the environment variable ${variable} is not set or empty`);
  ctx.io.secrets.add(value);
  return value;
}
