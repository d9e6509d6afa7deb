// Provision entry drafts from every place a user can give them: NUMBER arguments, a JSON file (an
// array of entries, one entry, or a whole request), or a CSV file with a header row. A draft holds
// what the user wrote and the problems found reading it, each naming file:line; the entries are
// built and checked from the drafts by provision-entries.ts.

import { arrayElementLines, jsonKeyLines, parseJsonText } from '../input/json.js';
import { readCsv, type CsvRecord } from '../input/csv.js';
import { closestKey } from '../input/known-keys.js';
import { UsageError } from '../errors.js';
import { isE164 } from '../domain/api/patterns.js';
import { checkSettingsObject, requireSettingLeaf, SettingError, settingsFromAssignments, typeSettingValue, type SettingAssignment, type SettingsObject } from './settings.js';
import { TEXT_FIELD_NAMES, type EntryDraft, type EntryTextField, type ProvisionFile } from './provision-entries.js';

function normaliseName(name: string): string {
  return name.trim().toLowerCase().replace(/[\s_-]/g, '');
}

type ColumnMeaning =
  | { kind: 'number' }
  | { kind: 'text'; field: EntryTextField }
  | { kind: 'type' }
  | { kind: 'class' }
  | { kind: 'setting'; path: string };

const COLUMN_NAMES: Record<string, ColumnMeaning> = {
  number: { kind: 'number' },
  phonenumber: { kind: 'number' },
  phone: { kind: 'number' },
  type: { kind: 'type' },
  provisiontype: { kind: 'type' },
  class: { kind: 'class' },
  provisionclass: { kind: 'class' },
  ...Object.fromEntries(TEXT_FIELD_NAMES.map((f) => [f.toLowerCase(), { kind: 'text', field: f }])),
};

export const CSV_COLUMNS = ['number', ...TEXT_FIELD_NAMES, 'type', 'class', 'settings.PATH'];

function columnMeaning(header: string): ColumnMeaning | undefined {
  const trimmed = header.trim();
  if (/^settings\./i.test(trimmed)) return { kind: 'setting', path: trimmed.slice('settings.'.length) };
  return COLUMN_NAMES[normaliseName(trimmed)];
}

/** A settings.PATH column names a leaf of the settings schema, else the header is refused. */
function checkSettingColumn(path: string, name: string, where: string): void {
  try {
    requireSettingLeaf(path, '');
  } catch (error) {
    if (error instanceof SettingError) throw new UsageError(`${where}: column ${JSON.stringify(name)}: ${error.message.replace(/ \(value ""\)$/, '').replace(/, not ""$/, '')}`, error.hints);
    throw error;
  }
}

/** What each column of the header row means; an unknown, repeated or missing column is refused. */
function csvColumnMeanings(header: CsvRecord | undefined, file: string): ColumnMeaning[] {
  if (header === undefined) throw new UsageError(`${file}: empty file, expected a header row (${CSV_COLUMNS.join(',')})`);
  const where = `${file}:${header.line}`;
  if (header.error !== undefined) throw new UsageError(`${where}: ${header.error}`);
  if (header.fields.some((f) => isE164(f.trim()))) {
    throw new UsageError(`${where}: the first row holds a phone number, but a CSV file needs a header row first (for example "number,email")`);
  }
  const meanings: ColumnMeaning[] = [];
  const seen = new Map<string, string>();
  for (const name of header.fields.map((f) => f.trim())) {
    const meaning = columnMeaning(name);
    if (meaning === undefined) {
      const near = closestKey(name, CSV_COLUMNS);
      throw new UsageError(`${where}: unknown column ${JSON.stringify(name)}${near ? `; did you mean "${near}"?` : ''}; the columns are ${CSV_COLUMNS.join(', ')}`);
    }
    if (meaning.kind === 'setting') checkSettingColumn(meaning.path, name, where);
    const key = meaning.kind === 'text' ? meaning.field : meaning.kind === 'setting' ? `settings.${meaning.path}` : meaning.kind;
    const earlier = seen.get(key);
    if (earlier !== undefined) throw new UsageError(`${where}: columns ${JSON.stringify(earlier)} and ${JSON.stringify(name)} say the same thing`);
    seen.set(key, name);
    meanings.push(meaning);
  }
  if (!meanings.some((m) => m.kind === 'number')) {
    throw new UsageError(`${where}: no "number" column; the header is ${JSON.stringify(header.fields.join(','))}`);
  }
  return meanings;
}

/** One row's draft: each non-empty field put where its column says; problems kept on the draft. */
function draftFromCsvRecord(record: CsvRecord, meanings: readonly ColumnMeaning[], file: string): EntryDraft {
  const draft: EntryDraft = { where: `${file}:${record.line}`, number: undefined, fields: {}, problems: [] };
  if (record.error !== undefined) {
    draft.problems.push(record.error);
    return draft;
  }
  if (record.fields.length !== meanings.length) {
    draft.problems.push(
      `${record.fields.length} fields where the header has ${meanings.length}` +
        (record.fields.length > meanings.length ? ' (a field that holds a comma must be in double quotes)' : ''),
    );
    return draft;
  }
  const assignments: SettingAssignment[] = [];
  record.fields.forEach((raw, index) => {
    const meaning = meanings[index]!;
    const value = raw.trim();
    if (value === '') return;
    switch (meaning.kind) {
      case 'number':
        draft.number = value;
        break;
      case 'text':
        draft.fields[meaning.field] = value;
        break;
      case 'type':
        draft.provisionType = value;
        break;
      case 'class':
        draft.provisionClass = value;
        break;
      case 'setting':
        try {
          const type = requireSettingLeaf(meaning.path, value);
          assignments.push({ path: meaning.path.split('.'), value: typeSettingValue(meaning.path, type, value) });
        } catch (error) {
          if (!(error instanceof SettingError)) throw error;
          draft.problems.push(error.message);
        }
        break;
    }
  });
  if (assignments.length > 0) draft.settings = settingsFromAssignments(assignments);
  return draft;
}

/** Entries from a CSV file with a header row; one entry a row. */
export function draftsFromCsv(text: string, file: string): ProvisionFile {
  const records = readCsv(text);
  const meanings = csvColumnMeanings(records[0], file);
  return { drafts: records.slice(1).map((record) => draftFromCsvRecord(record, meanings, file)) };
}

const REQUEST_KEYS = ['action', 'tenantId', 'phoneNumbers'];
const ENTRY_KEYS = ['number', 'phoneNumber', ...TEXT_FIELD_NAMES, 'messagingFeature', 'provisionType', 'provisionClass', 'type', 'class', 'settings'];

function draftFromJson(value: unknown, where: string): EntryDraft {
  const draft: EntryDraft = { where, number: undefined, fields: {}, problems: [] };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    draft.problems.push(`an entry must be an object like {"number": "+15551234567"}, not ${JSON.stringify(value)}`);
    return draft;
  }
  const entry = value as Record<string, unknown>;
  const text = (key: string): string | undefined => {
    const v = entry[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') {
      draft.problems.push(`"${key}" must be a string, not ${JSON.stringify(v)}`);
      return undefined;
    }
    return v.trim() === '' ? undefined : v;
  };
  for (const key of Object.keys(entry)) {
    if (!ENTRY_KEYS.includes(key)) {
      const near = closestKey(key, ENTRY_KEYS);
      draft.problems.push(`unknown field "${key}"${near ? `; did you mean "${near}"?` : ''} (an entry has ${['number', ...TEXT_FIELD_NAMES, 'messagingFeature', 'settings'].join(', ')})`);
    }
  }
  draft.number = text('number') ?? text('phoneNumber');
  for (const field of TEXT_FIELD_NAMES) {
    const v = text(field);
    if (v !== undefined) draft.fields[field] = v;
  }
  const feature = entry['messagingFeature'];
  if (feature !== undefined && feature !== null) {
    if (typeof feature !== 'object' || Array.isArray(feature)) {
      draft.problems.push(`"messagingFeature" must be an object with provisionType and provisionClass, not ${JSON.stringify(feature)}`);
    } else {
      const f = feature as Record<string, unknown>;
      for (const key of Object.keys(f)) {
        if (key !== 'provisionType' && key !== 'provisionClass') draft.problems.push(`unknown field "messagingFeature.${key}"`);
      }
      for (const key of ['provisionType', 'provisionClass'] as const) {
        const v = f[key];
        if (v === undefined || v === null) continue;
        if (typeof v !== 'string') draft.problems.push(`"messagingFeature.${key}" must be a string, not ${JSON.stringify(v)}`);
        else draft[key] = v;
      }
    }
  }
  draft.provisionType ??= text('provisionType') ?? text('type');
  draft.provisionClass ??= text('provisionClass') ?? text('class');
  const settings = entry['settings'];
  if (settings !== undefined && settings !== null) {
    const problems = checkSettingsObject(settings);
    if (problems.length > 0) draft.problems.push(...problems);
    else draft.settings = settings as SettingsObject;
  }
  return draft;
}

/** Entries from JSON: an array of entries, a whole provision request, or a single entry. */
export function draftsFromJson(text: string, file: string): ProvisionFile {
  const clean = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const data = parseJsonText(text, file);
  if (Array.isArray(data)) {
    const lines = arrayElementLines(clean);
    return { drafts: data.map((value, i) => draftFromJson(value, `${file}:${lines[i] ?? 1}`)) };
  }
  if (typeof data !== 'object' || data === null) {
    throw new UsageError(`${file}:1:1: expected an array of entries or a provision request ({"tenantId", "phoneNumbers": [...]}), not ${JSON.stringify(data)}`);
  }
  const root = data as Record<string, unknown>;
  if (!('phoneNumbers' in root)) {
    if ('number' in root || 'phoneNumber' in root) return { drafts: [draftFromJson(root, `${file}:1`)] };
    throw new UsageError(`${file}:1:1: expected an array of entries or a provision request with "phoneNumbers"`);
  }
  for (const key of Object.keys(root)) {
    if (!REQUEST_KEYS.includes(key)) {
      const near = closestKey(key, REQUEST_KEYS);
      throw new UsageError(`${file}:${jsonKeyLines(clean).get(key) ?? 1}: unknown field "${key}" in the request${near ? `; did you mean "${near}"?` : ''} (it has ${REQUEST_KEYS.join(', ')})`);
    }
  }
  const list = root['phoneNumbers'];
  if (!Array.isArray(list)) throw new UsageError(`${file}: "phoneNumbers" must be an array of entries`);
  const stringOrUndefined = (key: string): string | undefined => {
    const v = root[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') throw new UsageError(`${file}: "${key}" must be a string, not ${JSON.stringify(v)}`);
    return v;
  };
  const lines = arrayElementLines(clean, 'phoneNumbers');
  return {
    drafts: list.map((value, i) => draftFromJson(value, `${file}:${lines[i] ?? 1}`)),
    tenantId: stringOrUndefined('tenantId'),
    action: stringOrUndefined('action'),
  };
}

/** JSON by extension (.json) or first character ([ or {); CSV otherwise. */
export function draftsFromFileText(text: string, file: string): ProvisionFile {
  const lower = file.toLowerCase();
  const first = text.replace(/^\uFEFF/, '').trimStart()[0];
  const isJson = lower.endsWith('.json') || (!lower.endsWith('.csv') && (first === '[' || first === '{'));
  return isJson ? draftsFromJson(text, file) : draftsFromCsv(text, file);
}

export function draftsFromArguments(numbers: readonly string[]): EntryDraft[] {
  return numbers.map((number) => ({ where: undefined, number, fields: {}, problems: [] }));
}
