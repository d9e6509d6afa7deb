import { UsageError } from '../errors.js';

// --fields a,b.c: only these dotted paths of what is printed, kept nested as in the source
// object (`settings.rateLimit` stays `{"settings": {"rateLimit": ...}}`). Arrays are leaves.

const FIELD_PATH = /^[^.,\s]+(\.[^.,\s]+)*$/;

/** The list from `--fields a, b.c`; a malformed path is a usage error naming it. */
export function parseFieldList(text: string): string[] {
  const fields = text
    .split(',')
    .map((f) => f.trim())
    .filter((f) => f !== '');
  if (fields.length === 0) throw new UsageError('--fields needs at least one field name, like --fields phoneNumber,status');
  for (const field of fields) {
    if (!FIELD_PATH.test(field)) throw new UsageError(`--fields: "${field}" is not a field path (names joined by dots, like settings.rateLimit)`);
  }
  return [...new Set(fields)];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every dotted path of an object, inner objects included (`settings`, `settings.rateLimit`). */
export function fieldPaths(value: unknown, prefix = ''): string[] {
  if (!isRecord(value)) return [];
  const paths: string[] = [];
  for (const [key, inner] of Object.entries(value)) {
    const path = prefix ? `${prefix}.${key}` : key;
    paths.push(path);
    paths.push(...fieldPaths(inner, path));
  }
  return paths;
}

export function valueAt(value: unknown, path: string): unknown {
  let current: unknown = value;
  for (const key of path.split('.')) {
    if (!isRecord(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

function hasPath(value: unknown, path: string): boolean {
  let current: unknown = value;
  for (const key of path.split('.')) {
    if (!isRecord(current) || !Object.hasOwn(current, key)) return false;
    current = current[key];
  }
  return true;
}

/**
 * Checks the fields against sample objects: a field that none of them has is a usage error
 * listing those they have. Non-objects (a bare string) have no fields to select.
 */
export function checkFields(samples: readonly unknown[], fields: readonly string[]): void {
  const objects = samples.filter(isRecord);
  if (objects.length === 0) return;
  const unknown = fields.filter((f) => !objects.some((o) => hasPath(o, f)));
  if (unknown.length === 0) return;
  const available = [...new Set(objects.flatMap((o) => fieldPaths(o)))];
  const listed = available.length > 40 ? `${available.slice(0, 40).join(', ')}, ...` : available.join(', ');
  throw new UsageError(`--fields: ${unknown.map((f) => `"${f}"`).join(', ')} ${unknown.length === 1 ? 'is not a field' : 'are not fields'} of what this command prints`, [
    `Available: ${listed}`,
  ]);
}

/** A copy holding only the fields, nested as in the source; absent ones are left out. */
export function selectFields(value: unknown, fields: readonly string[]): unknown {
  if (Array.isArray(value)) return value.map((v) => selectFields(v, fields));
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    if (!hasPath(value, field)) continue;
    const keys = field.split('.');
    let target = out;
    for (const key of keys.slice(0, -1)) {
      const next = target[key];
      if (!isRecord(next)) target[key] = {};
      target = target[key] as Record<string, unknown>;
    }
    target[keys[keys.length - 1]!] = valueAt(value, field);
  }
  return out;
}
