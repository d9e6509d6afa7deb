// Phone-number settings as the user writes them: `--set settings.PATH=VALUE` typed by the
// document's schema (src/domain/settings-schema.ts), and settings objects from files checked
// against it. Every problem names the path and the value.

import { schemaChild, settingLeafProblem } from '../domain/settings-check.js';
import { NUMBER_SETTINGS_SCHEMA, settingLeafPaths, settingTypeAt, type SettingType, type SettingsGroup, type SettingsObject } from '../domain/settings-schema.js';

export type { SettingsObject } from '../domain/settings-schema.js';

export interface SettingAssignment {
  /** Below `settings`: ['optOut', 'periodicCron']. */
  path: string[];
  value: unknown;
}

/** A `--set` value that cannot be used; the message names the path and the value. */
export class SettingError extends Error {
  constructor(
    message: string,
    readonly hints: string[] = [],
  ) {
    super(message);
    this.name = 'SettingError';
  }
}

const TRUE_WORDS = ['true', 'yes', '1', 'on'];
const FALSE_WORDS = ['false', 'no', '0', 'off'];

export function describeType(type: SettingType): string {
  switch (type) {
    case 'boolean':
      return 'true or false (also yes/no, 1/0)';
    case 'integer':
      return 'a whole number of at least 0';
    case 'string':
      return 'text';
    case 'datetime':
      return 'an ISO 8601 date-time such as 2026-07-01T09:00:00Z';
    case 'string[]':
      return 'a comma-separated list';
    case 'email[]':
      return 'a comma-separated list of email addresses';
    case 'cron':
      return 'a cron expression of 5 fields (minute hour day-of-month month day-of-week) such as "0 9 * * 1"';
  }
}

/** A boolean typed by a person: true/false, yes/no, 1/0, on/off (any case), or undefined. */
export function parseBooleanWord(text: string): boolean | undefined {
  const word = text.trim().toLowerCase();
  if (TRUE_WORDS.includes(word)) return true;
  if (FALSE_WORDS.includes(word)) return false;
  return undefined;
}

/**
 * Text typed for a leaf, converted to its JSON value and checked by the rule the sandbox uses
 * too (src/domain/settings-check.ts); a SettingError names path and value.
 */
export function typeSettingValue(path: string, type: SettingType, text: string): unknown {
  const bad = (): never => {
    throw new SettingError(`settings.${path} takes ${describeType(type)}, not ${JSON.stringify(text)}`);
  };
  const value = valueOfText(type, text);
  if (value === undefined) return bad();
  const problem = settingLeafProblem(path, type, value);
  if (problem === undefined) return value;
  if (problem.path !== path) {
    throw new SettingError(`settings.${path} takes ${describeType(type)}; ${JSON.stringify(problem.value)} is not one`);
  }
  return bad();
}

/** The JSON value a person meant by the text, before the check; undefined when it is none. */
function valueOfText(type: SettingType, text: string): unknown {
  switch (type) {
    case 'boolean':
      return parseBooleanWord(text);
    case 'integer':
      return /^\d+$/.test(text.trim()) ? Number(text.trim()) : undefined;
    case 'string':
      return text;
    case 'datetime':
      return text.trim();
    case 'cron':
      return text.trim().replace(/\s+/g, ' ');
    case 'string[]':
    case 'email[]':
      return text
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '');
  }
}

function editDistance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0]!;
    previous[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j]!;
      previous[j] = Math.min(above + 1, previous[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return previous[b.length]!;
}

/** Leaf paths close to a mistyped one: a small edit distance, or the same last word. */
export function closeSettingPaths(path: string, limit = 3): string[] {
  const wanted = path.toLowerCase();
  const last = wanted.split('.').pop() ?? wanted;
  const scored = settingLeafPaths()
    .map((candidate) => {
      const lower = candidate.toLowerCase();
      const distance = editDistance(wanted, lower);
      const sameLeaf = (lower.split('.').pop() ?? '') === last;
      const sameGroup = lower.startsWith(`${wanted.split('.')[0]}.`);
      return { candidate, score: distance - (sameLeaf ? 3 : 0) - (sameGroup ? 1 : 0) };
    })
    .filter((s) => s.score <= Math.max(2, Math.floor(wanted.length / 4)))
    .sort((a, b) => a.score - b.score || a.candidate.localeCompare(b.candidate));
  return scored.slice(0, limit).map((s) => s.candidate);
}

/** The leaf type at a path below `settings`, or a SettingError naming the path (with close paths). */
export function requireSettingLeaf(path: string, value: string): SettingType {
  const node = path === '' ? undefined : settingTypeAt(path);
  if (typeof node === 'string') return node;
  if (node !== undefined) {
    const fields = settingLeafPaths(node, path).map((p) => `settings.${p}`);
    throw new SettingError(`settings.${path} is a group, not a setting: give one of its fields (${fields.join(', ')}), not ${JSON.stringify(value)}`);
  }
  const close = closeSettingPaths(path);
  const hints = close.length > 0 ? [`Did you mean ${close.map((p) => `settings.${p}`).join(' or ')}?`] : [];
  hints.push(`Settings: ${settingLeafPaths().map((p) => `settings.${p}`).join(', ')}`);
  throw new SettingError(`settings.${path} is not a phone-number setting (value ${JSON.stringify(value)})`, hints);
}

/** `settings.optOut.enabled=yes` (the `settings.` prefix may be left out) to a typed assignment. */
export function parseSetAssignment(text: string): SettingAssignment {
  const equals = text.indexOf('=');
  if (equals <= 0) throw new SettingError(`--set takes settings.PATH=VALUE, not ${JSON.stringify(text)}`);
  const rawPath = text.slice(0, equals).trim();
  const value = text.slice(equals + 1);
  const path = rawPath.replace(/^settings\./, '');
  const type = requireSettingLeaf(path, value);
  return { path: path.split('.'), value: typeSettingValue(path, type, value) };
}

/** Writes each assignment into a nested settings object (the last one for a path wins). */
export function settingsFromAssignments(assignments: readonly SettingAssignment[]): SettingsObject {
  const settings: SettingsObject = {};
  for (const { path, value } of assignments) {
    let holder = settings;
    for (const key of path.slice(0, -1)) {
      const next = holder[key];
      if (typeof next === 'object' && next !== null && !Array.isArray(next)) holder = next as SettingsObject;
      else holder = holder[key] = {};
    }
    holder[path[path.length - 1]!] = value;
  }
  return settings;
}

/** `b` merged into `a`, group by group (for a file's settings under `--set` ones). */
export function mergeSettings(a: SettingsObject, b: SettingsObject): SettingsObject {
  const out: SettingsObject = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const current = out[key];
    const bothGroups =
      typeof current === 'object' && current !== null && !Array.isArray(current) && typeof value === 'object' && value !== null && !Array.isArray(value);
    out[key] = bothGroups ? mergeSettings(current as SettingsObject, value as SettingsObject) : value;
  }
  return out;
}

function jsonLeafProblem(path: string, type: SettingType, value: unknown): string | undefined {
  const problem = settingLeafProblem(path, type, value);
  return problem && `settings.${problem.path} takes ${problem.expected}, not ${JSON.stringify(problem.value)}`;
}

/** Every problem of a settings object from a file (JSON types, unknown paths). Empty when valid. */
export function checkSettingsObject(value: unknown, group: SettingsGroup = NUMBER_SETTINGS_SCHEMA, prefix = ''): string[] {
  const where = prefix === '' ? 'settings' : `settings.${prefix}`;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`${where} must be an object, not ${JSON.stringify(value)}`];
  const problems: string[] = [];
  for (const [key, inner] of Object.entries(value)) {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    const type = schemaChild(group, key);
    if (type === undefined) {
      const close = closeSettingPaths(path);
      problems.push(`settings.${path} is not a phone-number setting${close.length > 0 ? ` (did you mean ${close.map((p) => `settings.${p}`).join(' or ')}?)` : ''}`);
    } else if (typeof type === 'string') {
      const problem = jsonLeafProblem(path, type, inner);
      if (problem !== undefined) problems.push(problem);
    } else {
      problems.push(...checkSettingsObject(inner, type, path));
    }
  }
  return problems;
}
