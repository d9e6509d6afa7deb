import { isE164, isGuid } from '../domain/api/patterns.js';
import { readCsv } from '../input/csv.js';
import { normalizeExcludedNumber } from '../send/pace/exclude.js';
import { EVERY_NUMBER } from './log.js';
import type { OptOutEntry } from './list.js';

// The opt-out list as a spreadsheet has it. Export writes one row per entry under a header, every
// field quoted where CSV needs it, with a byte-order mark when it goes to a file (so that Excel
// reads the text as UTF-8). Import takes that file back, any CSV with a header that names a number
// column, or a plain list of numbers, one a line.
//
// Spreadsheets take liberties with what they open: a number such as +14155551001 comes back as
// 14155551001, so a value of 8 to 15 digits without its plus is read as E.164 again; and text that
// starts with = + - @ would run as a formula, so free-text fields that start so are written after
// an apostrophe, which a spreadsheet shows as text.

export const EXPORT_HEADER = ['number', 'sending_number', 'opted_out_at', 'cause', 'keyword', 'event_id', 'reason', 'by', 'tenant'] as const;

function quote(value: string): string {
  return /[",\r\n]|^\s|\s$/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

function text(value: string | undefined): string {
  if (value === undefined) return '';
  return quote(/^[=+\-@\t\r]/.test(value) ? `'${value}` : value);
}

export function optOutsCsv(entries: readonly OptOutEntry[]): string {
  const lines = [EXPORT_HEADER.join(',')];
  for (const e of entries) {
    lines.push(
      [quote(e.number), quote(e.from === EVERY_NUMBER ? '' : e.from), quote(e.at), e.cause, text(e.keyword), text(e.event), text(e.reason), text(e.by), text(e.tenant)].join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

export interface ImportRow {
  line: number;
  number: string;
  /** The row's sending number, when its file names one. */
  from: string | undefined;
  reason: string | undefined;
  /** The row's tenant (an exported every-number opt-out of one tenant), when its file names one. */
  tenant: string | undefined;
}

const NUMBER_COLUMNS = ['number', 'phone', 'to', 'recipient', 'phone_number', 'phonenumber', 'mobile'];
const FROM_COLUMNS = ['sending_number', 'from', 'sender', 'sending number'];
const REASON_COLUMNS = ['reason', 'why', 'note'];
const TENANT_COLUMNS = ['tenant', 'tenant_id', 'tenantid'];

/** An E.164 number as typed or as a spreadsheet left it, or undefined. */
export function forgivingNumber(value: string): string | undefined {
  const compact = normalizeExcludedNumber(value.trim()).replace(/^'/, '');
  if (isE164(compact)) return compact;
  if (/^[1-9]\d{7,14}$/.test(compact)) return `+${compact}`;
  if (/^00[1-9]\d{7,14}$/.test(compact)) return `+${compact.slice(2)}`;
  return undefined;
}

export class ImportError extends Error {
  constructor(readonly problems: string[]) {
    super(problems[0]);
  }
}

/** The rows of an import file; every bad row is named (FILE:LINE) and nothing is imported when one is bad. */
export function parseOptOutImport(content: string, name: string): ImportRow[] {
  const records = readCsv(content);
  const problems: string[] = [];
  if (records.length === 0) throw new ImportError([`${name}: no numbers in the file`]);
  const first = records[0]!;
  if (first.error !== undefined) throw new ImportError([`${name}:${first.line}: ${first.error}`]);
  // A header is a first row whose first cell is not a number.
  const hasHeader = forgivingNumber(first.fields[0] ?? '') === undefined;
  const header = hasHeader ? first.fields.map((field) => field.trim().toLowerCase()) : [];
  const column = (names: readonly string[]): number => header.findIndex((field) => names.includes(field));
  const numberAt = hasHeader ? Math.max(0, column(NUMBER_COLUMNS)) : 0;
  const fromAt = hasHeader ? column(FROM_COLUMNS) : -1;
  const reasonAt = hasHeader ? column(REASON_COLUMNS) : -1;
  const tenantAt = hasHeader ? column(TENANT_COLUMNS) : -1;
  const rows: ImportRow[] = [];
  for (const record of hasHeader ? records.slice(1) : records) {
    if (record.error !== undefined) {
      problems.push(`${name}:${record.line}: ${record.error}`);
      continue;
    }
    const numberText = record.fields[numberAt] ?? '';
    const number = forgivingNumber(numberText);
    if (number === undefined) {
      problems.push(`${name}:${record.line}: ${JSON.stringify(numberText)} is not a phone number in E.164 form (+ and 8 to 15 digits)`);
      continue;
    }
    let from: string | undefined;
    const fromText = fromAt >= 0 ? (record.fields[fromAt] ?? '').trim() : '';
    if (fromText !== '' && fromText !== EVERY_NUMBER) {
      from = forgivingNumber(fromText);
      if (from === undefined) {
        problems.push(`${name}:${record.line}: sending number ${JSON.stringify(fromText)} is not in E.164 form`);
        continue;
      }
    }
    const tenantText = tenantAt >= 0 ? (record.fields[tenantAt] ?? '').trim() : '';
    if (tenantText !== '' && !isGuid(tenantText)) {
      problems.push(`${name}:${record.line}: tenant ${JSON.stringify(tenantText)} is not a GUID`);
      continue;
    }
    const reasonText = reasonAt >= 0 ? (record.fields[reasonAt] ?? '').trim().replace(/^'(?=[=+\-@])/, '') : '';
    rows.push({ line: record.line, number, from, reason: reasonText === '' ? undefined : reasonText.slice(0, 500), tenant: tenantText === '' ? undefined : tenantText });
  }
  if (problems.length > 0) throw new ImportError(problems);
  if (rows.length === 0) throw new ImportError([`${name}: no numbers in the file (only its header)`]);
  return rows;
}
