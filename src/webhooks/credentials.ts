// The listener's and the signer's secrets, read from environment variables named on the command
// line, so that they never show in shell history or `ps`. Messages name the variable, never its
// value: a user who typed the secret itself where a name belongs must not see it echoed into a log.

import { UsageError } from '../errors.js';
import type { BasicCredentials } from './types.js';

type Env = Readonly<Record<string, string | undefined>>;

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function variableNames(text: string, flag: string, example: string): string[] {
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.length === 0 || names.some((name) => !VARIABLE_NAME.test(name))) {
    throw new UsageError(`${flag} takes the name of an environment variable (letters, digits, _), not the secret itself`, [
      `e.g. export ${example}=... then ${flag} ${example}`,
    ]);
  }
  return names;
}

function valueOf(env: Env, name: string, what: string, flag: string): string {
  const value = env[name];
  if (value === undefined || value === '') {
    throw new UsageError(`environment variable ${name} is not set (it should hold ${what})`, [`set it, or name another variable with ${flag}`]);
  }
  return value;
}

export interface SecretSource {
  /** The --secret-env value as given (comma-separated names, current first), if any. */
  given: string | undefined;
  /** The variable read when none is named. */
  defaultName: string;
  /** Only one secret (signing uses the current one). */
  single?: boolean;
  /** An unset default variable means "no secret" rather than an error. */
  optional?: boolean;
}

/** The webhook secrets the named variables hold (current first), or undefined when optional and unset. */
export function webhookSecrets(env: Env, source: SecretSource): string[] | undefined {
  if (source.given === undefined && source.optional === true) {
    const fallback = env[source.defaultName];
    return fallback === undefined || fallback === '' ? undefined : [fallback];
  }
  const names = variableNames(source.given ?? source.defaultName, '--secret-env', source.defaultName);
  if (source.single === true && names.length > 1) {
    throw new UsageError('--secret-env takes one variable here: a body is signed with the current secret only');
  }
  return names.map((name) => valueOf(env, name, 'the webhook secret', '--secret-env'));
}

/** The Basic credentials (USER:PASSWORD) the named variable holds. */
export function basicCredentials(env: Env, given: string, example: string): BasicCredentials {
  const names = variableNames(given, '--basic-auth-env', example);
  if (names.length > 1) throw new UsageError('--basic-auth-env takes one variable');
  const name = names[0] ?? '';
  const value = valueOf(env, name, 'USER:PASSWORD', '--basic-auth-env');
  const colon = value.indexOf(':');
  if (colon <= 0 || colon === value.length - 1) {
    throw new UsageError(`environment variable ${name} must hold USER:PASSWORD (both non-empty)`);
  }
  return { username: value.slice(0, colon), password: value.slice(colon + 1) };
}
