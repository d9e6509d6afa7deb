// Validates a phone-number `settings` object against the document's schema and merges it into
// the stored one (a partial update changes only the leaves it names; null removes a leaf).

import { NUMBER_SETTINGS_SCHEMA, type SettingsGroup, type SettingType } from '../domain/settings-schema.js';
import { isCronExpression, isIsoDateTime } from '../domain/validate.js';
import { validationError } from './errors.js';
import { isObject } from './fields.js';

function checkLeaf(path: string, type: SettingType, value: unknown): void {
  const fail = (what: string): never => {
    throw validationError(`settings.${path} must be ${what}, got ${JSON.stringify(value)}`);
  };
  switch (type) {
    case 'boolean':
      if (typeof value !== 'boolean') fail('true or false');
      break;
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) fail('an integer');
      break;
    case 'string':
      if (typeof value !== 'string') fail('a string');
      break;
    case 'datetime':
      if (typeof value !== 'string' || !isIsoDateTime(value)) fail('an ISO 8601 date-time');
      break;
    case 'cron':
      if (typeof value !== 'string' || !isCronExpression(value)) fail('a cron expression');
      break;
    case 'string[]':
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) fail('an array of strings');
      break;
  }
}

/** Returns `current` with `update` merged in; throws a 400 naming the first bad path. */
export function mergeNumberSettings(
  update: unknown,
  current: Record<string, unknown>,
  schema: SettingsGroup = NUMBER_SETTINGS_SCHEMA,
  prefix = '',
): Record<string, unknown> {
  if (!isObject(update)) throw validationError(`settings${prefix ? `.${prefix}` : ''} must be an object`);
  const next: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(update)) {
    const path = prefix ? `${prefix}.${key}` : key;
    const type = Object.prototype.hasOwnProperty.call(schema, key) ? schema[key] : undefined;
    if (type === undefined) throw validationError(`settings.${path} is not a phone-number setting`);
    if (value === null) {
      delete next[key];
      continue;
    }
    if (typeof type === 'string') {
      checkLeaf(path, type, value);
      next[key] = value;
    } else {
      const inner = isObject(next[key]) ? (next[key] as Record<string, unknown>) : {};
      next[key] = mergeNumberSettings(value, inner, type, path);
    }
  }
  return next;
}
