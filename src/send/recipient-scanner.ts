// Turning the decoded text of a recipients file into recipients: format detection (text or
// CSV), the header and its number column, validation, duplicates. Used by both passes of
// recipients.ts (the check and the stream).

import { isE164 } from '../domain/api/patterns.js';
import { createCsvReader } from '../input/csv.js';
import { PhoneNumberMap } from './phone-number-map.js';
import { NUMBER_COLUMN_NAMES, type DuplicateRecipient, type RecipientProblem, type RecipientRow, type RecipientsFormat } from './recipient-rows.js';
import { CR, LF, TextLineParser } from './recipient-lines.js';

export interface ScanSink {
  row(row: RecipientRow): void;
  problem(problem: RecipientProblem): void;
  duplicate(duplicate: DuplicateRecipient): void;
}

/** Receives each non-blank record: its fields, the line it starts on, and a parse error if any. */
export type RecordHandler = (fields: string[], line: number, error: string | null) => void;

export interface RecordParser {
  push(text: string): void;
  end(): void;
  /** Characters of the record not yet complete. */
  pendingLength(): number;
  /** The line where that record starts. */
  pendingLine(): number;
}

/**
 * The longest record (a line, or a CSV record with its quoted line breaks) read: 64 Ki characters.
 * A longer one means the input is not a recipients file (a binary file, /dev/zero through a pipe),
 * and reading on would only grow memory.
 */
const MAX_RECORD_CHARS = 64 * 1024;

const NO_FIELDS: Record<string, string> = Object.freeze(Object.create(null) as Record<string, string>);

/** Turns decoded text into recipients: format detection, header, validation, duplicates. */
export class RecipientScanner {
  format: RecipientsFormat = 'text';
  columns: string[] = [];
  numberColumnName: string | null = null;
  dataRecords = 0;
  /** Set when the input cannot be a recipients file (binary data, a record without end). */
  fatal = false;

  private parser: RecordParser | undefined;
  private head = '';
  private numberIndex = 0;
  private headerSeen = false;
  private seen: PhoneNumberMap | undefined = new PhoneNumberMap();
  private numberGuessed = false;

  constructor(
    private readonly file: string,
    private readonly requestedColumn: string | undefined,
    private readonly sink: ScanSink,
    private readonly normalize: ((value: string) => string) | undefined = undefined,
  ) {}

  push(text: string): void {
    if (this.fatal) return;
    if (text.includes('\0')) {
      this.fail(`${this.file}: holds NUL bytes: binary data, not a list of numbers`);
      return;
    }
    if (this.parser !== undefined) {
      this.parser.push(text);
      if (this.parser.pendingLength() > MAX_RECORD_CHARS) this.failLongRecord();
      return;
    }
    this.head += text;
    const firstLine = completeFirstLine(this.head);
    if (firstLine === undefined && this.head.length < MAX_RECORD_CHARS) return;
    const parser = this.startParser(firstLine ?? this.head);
    if (parser.pendingLength() > MAX_RECORD_CHARS) this.failLongRecord();
  }

  private fail(message: string): void {
    this.fatal = true;
    this.sink.problem({ line: null, message });
  }

  private failLongRecord(): void {
    const line = this.parser?.pendingLine() ?? 1;
    this.fatal = true;
    this.sink.problem({ line, message: `${this.at(line)}: a record longer than ${MAX_RECORD_CHARS} characters: not a list of numbers` });
  }

  end(): void {
    const parser = this.parser ?? this.startParser(this.head);
    parser.end();
    if (this.format === 'csv' && !this.headerSeen) {
      this.sink.problem({ line: null, message: `${this.file}: empty file, no header row` });
    }
  }

  private startParser(firstLine: string): RecordParser {
    const handler: RecordHandler = (fields, line, error) => this.onRecord(fields, line, error);
    // A header row has a comma between names, or is a lone name: a line without a digit.
    const isCsv = firstLine.includes(',') || (firstLine.trim() !== '' && !/\d/.test(firstLine));
    this.format = isCsv ? 'csv' : 'text';
    // CSV through the CLI's one reader (src/input/csv.ts): the same rules as every command's CSV.
    const parser: RecordParser = isCsv
      ? createCsvReader((record) => handler(record.fields, record.line, record.error ?? null))
      : new TextLineParser(handler);
    this.parser = parser;
    if (!isCsv && this.requestedColumn !== undefined) {
      this.sink.problem({
        line: null,
        message: `${this.file}: a column "${this.requestedColumn}" was asked for, but this is a text file with one number a line`,
      });
    }
    const head = this.head;
    this.head = '';
    parser.push(head.charCodeAt(0) === 0xfeff ? head.slice(1) : head);
    return parser;
  }

  private onRecord(values: string[], line: number, error: string | null): void {
    if (this.format === 'csv' && !this.headerSeen) {
      this.onHeader(values, line, error);
      return;
    }
    this.dataRecords++;
    if (error !== null) {
      this.sink.problem({ line, message: `${this.at(line)}: ${error}` });
      return;
    }

    let fields: Record<string, string>;
    if (this.format === 'csv') {
      if (values.length !== this.columns.length) {
        this.sink.problem({
          line,
          message:
            `${this.at(line)}: ${plural(values.length, 'field')} where the header has ${this.columns.length}` +
            (values.length > this.columns.length ? ' (a field that contains a comma must be in double quotes)' : ''),
        });
        return;
      }
      if (this.wantFields) {
        fields = Object.create(null) as Record<string, string>;
        for (let i = 0; i < values.length; i++) fields[this.columns[i]!] = values[i]!;
      } else fields = NO_FIELDS;
    } else {
      fields = {};
    }

    const raw = values[this.numberIndex]!.trim();
    const to = this.normalize !== undefined ? this.normalize(raw) : raw;
    if (to === '') {
      this.sink.problem({ line, message: `${this.at(line)}: no number in column "${this.numberColumnName}"` });
      return;
    }
    if (!isE164(to)) {
      // Without a phone column the first one was taken: say so, rather than blame "Al".
      const guessed = this.format === 'csv' && this.numberGuessed ? `; the header has no phone column (${NUMBER_COLUMN_NAMES.join(', ')}), so the first, ${quote(this.numberColumnName ?? "")}, was read` : '';
      // As written in the file (not as normalised), so that it can be found there.
      this.sink.problem({ line, message: `${this.at(line)}: ${quote(raw)} is not an E.164 number${guessed}` });
      return;
    }
    const firstLine = this.seen?.get(to);
    if (firstLine !== undefined) {
      this.sink.duplicate({
        to,
        line,
        firstLine,
        message: `${this.at(line)}: ${to} is listed again (first on line ${firstLine}); it is sent once`,
      });
      return;
    }
    this.seen?.set(to, line);
    this.sink.row({ line, to, fields });
  }

  private wantFields = true;

  /** Done: the duplicate index's memory goes back to the system now, not at the next collection. */
  releaseIndex(): void {
    this.seen?.clear();
    this.seen = undefined;
  }

  /** About this many records are coming: the duplicate index makes room for them at once. */
  expectRecords(count: number): void {
    this.seen?.reserve(count);
  }

  /** Rows carry no fields (a check that only counts). */
  skipFields(): void {
    this.wantFields = false;
  }

  /** Trusts the caller that no number is listed twice (a check of the same bytes said so). */
  skipDuplicateIndex(): void {
    this.seen = undefined;
  }

  private at(line: number): string {
    return `${this.file}:${line}`;
  }

  private onHeader(values: string[], line: number, error: string | null): void {
    this.headerSeen = true;
    const where = `${this.file}:${line}`;
    if (error !== null) this.sink.problem({ line, message: `${where}: ${error}` });
    this.columns = values.map((value) => value.trim());

    const byLowerCase = new Map<string, string>();
    for (const name of this.columns) {
      const lower = name.toLowerCase();
      const earlier = byLowerCase.get(lower);
      if (earlier !== undefined) {
        this.sink.problem({ line, message: `${where}: the header names a column twice: ${quote(earlier)} and ${quote(name)}` });
      } else {
        byLowerCase.set(lower, name);
      }
    }

    const lowered = this.columns.map((name) => name.toLowerCase());
    if (this.requestedColumn !== undefined) {
      this.numberIndex = lowered.indexOf(this.requestedColumn.trim().toLowerCase());
      if (this.numberIndex < 0) {
        this.sink.problem({
          line,
          message: `${where}: no column named ${quote(this.requestedColumn)}; the columns are ${this.columns.map(quote).join(', ')}`,
        });
        this.numberIndex = 0;
      }
    } else {
      const named = lowered.findIndex((name) => (NUMBER_COLUMN_NAMES as readonly string[]).includes(name));
      this.numberIndex = named < 0 ? 0 : named;
      this.numberGuessed = named < 0;
    }
    this.numberColumnName = this.columns[this.numberIndex] ?? '';

    if (this.columns.some((name) => isE164(name))) {
      this.sink.problem({
        line,
        message: `${where}: the first line holds a phone number, but a CSV file needs a header row first (for example "phone,name")`,
      });
    }
  }
}

export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function quote(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);
}

/** The first non-blank line of `text` when a line break ends it, else undefined. */
function completeFirstLine(text: string): string | undefined {
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code !== LF && code !== CR) continue;
    const line = text.slice(start, i);
    if (line.trim() !== '') return line;
    start = i + 1;
  }
  return undefined;
}
