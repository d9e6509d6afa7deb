import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { stripOneTrailingNewline } from '../output/io.js';

// Secrets a command reads: from standard input or a prompt, or from an environment variable it is
// told the name of. Each is added to the context's secrets, so that no output shows it. (The
// checks of plain values and files are below the commands: src/input/checks.ts, src/input/files.ts.)

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
