// The global options (--json, -o, --timeout, --fields, ...) as the Context holds them.

import type { GlobalOptions, OutputFormat } from '../context.js';
import { UsageError } from '../errors.js';
import { parseFieldList } from '../output/fields.js';

function parseTimeout(text: string | undefined): number {
  if (text === undefined) return 30_000;
  const seconds = Number(text);
  if (text.trim() === '' || !Number.isFinite(seconds) || seconds <= 0) {
    throw new UsageError(`--timeout must be a positive number of seconds, not "${text}"`);
  }
  // At least 1 ms: undici reads a timeout of 0 as "no timeout".
  return Math.max(1, Math.round(seconds * 1000));
}

export function globalsFrom(values: Record<string, unknown>): GlobalOptions {
  let output: OutputFormat = 'table';
  const requested = values['output'];
  if (typeof requested === 'string') output = requested as OutputFormat;
  if (values['json'] === true) output = 'json';
  const str = (name: string): string | undefined => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  const fields = str('fields');
  return {
    output,
    profile: str('profile'),
    baseUrl: str('baseUrl'),
    debug: values['debug'] === true,
    timeoutMs: parseTimeout(str('timeout')),
    fields: fields === undefined ? undefined : parseFieldList(fields),
    pager: values['pager'] !== false,
    yes: values['yes'] === true,
  };
}
