// Validates a phone-number `settings` object against the document's schema and merges it into
// the stored one (a partial update changes only the leaves it names; null removes a leaf).

import { NUMBER_SETTINGS_SCHEMA, type SettingsGroup, type SettingType } from '../domain/settings-schema.js';
import { settingLeafProblem } from '../domain/settings-check.js';
import { validationError } from './errors.js';
import { isObject } from './fields.js';

function checkLeaf(path: string, type: SettingType, value: unknown): void {
  const problem = settingLeafProblem(path, type, value);
  if (problem) throw validationError(`settings.${problem.path} must be ${problem.expected}, got ${JSON.stringify(problem.value)}`);
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
