// The one check of a phone-number settings value, used by the CLI before a request (`--set`,
// settings from files) and by the sandbox on receipt, so that both refuse the same values.
// Each side words the problem its own way; what is expected is said here.

import { isCronExpression } from './cron.js';
import type { SettingsGroup, SettingType } from './settings-schema.js';
import { isEmailAddress, isIsoDateTime } from './validate.js';

export interface SettingProblem {
  /** Below `settings`, dotted; an element of a list is `autoForward.emailAddresses[1]`. */
  path: string;
  /** What the document wants there: "an integer of at least 0". */
  expected: string;
  value: unknown;
}

/** What a leaf of each type takes, as JSON. */
export const SETTING_EXPECTED: Readonly<Record<SettingType, string>> = {
  boolean: 'true or false',
  integer: 'an integer of at least 0',
  string: 'a string',
  datetime: 'an ISO 8601 date-time',
  'string[]': 'an array of strings',
  'email[]': 'an array of strings (e-mail addresses)',
  cron: 'a cron expression of 5 fields (minute hour day-of-month month day-of-week)',
};

function wrongLeaf(path: string, type: SettingType, value: unknown): SettingProblem {
  return { path, expected: SETTING_EXPECTED[type], value };
}

/** The problem of a JSON value at a leaf, or undefined when the document allows it. */
export function settingLeafProblem(path: string, type: SettingType, value: unknown): SettingProblem | undefined {
  // A good value is the rule (every leaf of a fleet file is checked): nothing is built for it.
  switch (type) {
    case 'boolean':
      return typeof value === 'boolean' ? undefined : wrongLeaf(path, type, value);
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? undefined : wrongLeaf(path, type, value);
    case 'string':
      return typeof value === 'string' ? undefined : wrongLeaf(path, type, value);
    case 'datetime':
      return typeof value === 'string' && isIsoDateTime(value) ? undefined : wrongLeaf(path, type, value);
    case 'cron':
      return typeof value === 'string' && isCronExpression(value) ? undefined : wrongLeaf(path, type, value);
    case 'string[]':
    case 'email[]': {
      if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) return wrongLeaf(path, type, value);
      if (type === 'string[]') return undefined;
      const index = value.findIndex((item) => !isEmailAddress(item as string));
      return index < 0 ? undefined : { path: `${path}[${index}]`, expected: 'an e-mail address', value: value[index] };
    }
  }
}

/** What is at a path of the schema: a leaf type, a group, or nothing. */
export function schemaChild(group: SettingsGroup, key: string): SettingType | SettingsGroup | undefined {
  return Object.prototype.hasOwnProperty.call(group, key) ? group[key] : undefined;
}
