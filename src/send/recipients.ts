// Reading the recipients of a bulk send (`svc send --to-file FILE`), as decisions.md describes:
// a text file with one number a line, or a CSV file (RFC 4180, read by the CLI's one CSV reader,
// src/input/csv.ts) with a header row whose number column is named phone, number, to or recipient
// (any case), else the first column.
//
// The file is streamed in chunks and never held whole, so memory stays flat for any length:
// the only state that grows is the duplicate index (about 24 bytes per distinct number, see
// PhoneNumberMap) and the capped lists of reported problems.
//
// Two entry points share one scanner:
//   checkRecipientsFile  a validating pass that reports every bad line, every duplicate and the
//                        counts, so that the command can refuse (exit 2) before sending anything;
//   readRecipients       the streaming iterator the sender consumes, one row per unique recipient.

import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { TextDecoder } from 'node:util';
import type { InputSource } from './input-source.js';
import { isE164 } from '../domain/validate.js';
import { PhoneNumberMap } from './phone-number-map.js';
import { createCsvReader } from '../input/csv.js';

/** Header names that mark the number column, in the order they are looked for. */
export const NUMBER_COLUMN_NAMES = ['phone', 'number', 'to', 'recipient'] as const;

export type RecipientsFormat = 'text' | 'csv';

export interface RecipientRow {
  /** Line of the file where the record starts (1-based; the header is line 1 of a CSV file). */
  line: number;
  /** The E.164 number, trimmed. */
  to: string;
  /** Every column of the row by its header name (empty for a text file). */
  fields: Record<string, string>;
}

export interface RecipientProblem {
  /** The line at fault, or null for a problem with the file as a whole. */
  line: number | null;
  /** Ready to print, prefixed with `file:line: `. */
  message: string;
}

export interface DuplicateRecipient {
  to: string;
  line: number;
  firstLine: number;
  /** Ready to print as a warning, prefixed with `file:line: `. */
  message: string;
}

export interface RecipientsOptions {
  /** How the file is named in messages; defaults to the path as given. */
  displayName?: string;
  /** Use this column (case-insensitive) for the number instead of the default choice. */
  numberColumn?: string;
  /** Read size in bytes; small values exercise chunk boundaries in tests. */
  highWaterMark?: number;
  /** Rewrites each number before it is checked (the suppression list tolerates spaces and dashes). */
  normalizeNumber?: (value: string) => string;
}

export interface CheckRecipientsOptions extends RecipientsOptions {
  /** At most this many problems and duplicates are kept in the result (all are counted). */
  maxReported?: number;
  /**
   * Each valid, first-seen recipient, with the header's columns, as the check reads it: what a
   * caller counts in the same pass (a dry run's cost) instead of reading the file again.
   */
  onRow?: (row: RecipientRow, columns: readonly string[]) => void;
}

export interface RecipientsCheck {
  file: string;
  format: RecipientsFormat;
  /** Header names of a CSV file, trimmed, in order; empty for a text file. */
  columns: string[];
  /** The header name of the number column; null for a text file. */
  numberColumn: string | null;
  /** Non-blank data records, the header excluded. */
  rows: number;
  /** Valid, distinct numbers: the recipients a send will reach. */
  recipients: number;
  problems: RecipientProblem[];
  problemCount: number;
  duplicates: DuplicateRecipient[];
  duplicateCount: number;
  /** SHA-256 of the bytes read (hex): what a send journal binds its run to. */
  sha256: string;
}

export interface ReadRecipientsOptions extends RecipientsOptions {
  /** Told about each number listed again; the repeat is skipped either way. */
  onDuplicate?: (duplicate: DuplicateRecipient) => void;
  /**
   * False when a check of the same bytes found no number listed twice: the duplicate index
   * (about 24 bytes a number, 36 MB at a million with its growth) is then not built again.
   */
  findDuplicates?: boolean;
}

/** A recipients file that cannot be read or has bad lines; the command reports it as exit 2. */
export class RecipientsFileError extends Error {
  readonly file: string;
  readonly line: number | null;
  readonly problems: RecipientProblem[];

  constructor(file: string, problems: RecipientProblem[], message = problems[0]?.message ?? `${file}: unreadable`) {
    super(message);
    this.name = 'RecipientsFileError';
    this.file = file;
    this.line = problems[0]?.line ?? null;
    this.problems = problems;
  }
}

/**
 * Reads the whole file once and reports every problem, duplicate and count, without keeping rows.
 * Throws RecipientsFileError only when the file cannot be read at all.
 */
export async function checkRecipientsFile(
  path: string | InputSource,
  options: CheckRecipientsOptions = {},
): Promise<RecipientsCheck> {
  const file = options.displayName ?? nameOf(path);
  const maxReported = options.maxReported ?? 100;
  const result: RecipientsCheck = {
    file,
    format: 'text',
    columns: [],
    numberColumn: null,
    rows: 0,
    recipients: 0,
    problems: [],
    problemCount: 0,
    duplicates: [],
    duplicateCount: 0,
    sha256: '',
  };
  const hash = createHash('sha256');
  const onRow = options.onRow;
  const scanner = new RecipientScanner(file, options.numberColumn, {
    row(row) {
      result.recipients++;
      onRow?.(row, scanner.columns);
    },
    problem(problem) {
      result.problemCount++;
      if (result.problems.length < maxReported) result.problems.push(problem);
    },
    duplicate(duplicate) {
      result.duplicateCount++;
      if (result.duplicates.length < maxReported) result.duplicates.push(duplicate);
    },
  });
  // Nobody reads the rows' fields: they are not built.
  if (onRow === undefined) scanner.skipFields();
  // A file on disk: once its first rows are read, its size tells how many numbers to make room for.
  let sizeLeft = typeof path === 'string' ? fileSize(path) : path.size;
  let bytesRead = 0;
  const onBytes = (bytes: Buffer): void => {
    hash.update(bytes);
    bytesRead += bytes.length;
  };
  for await (const text of decodeFile(path, file, options.highWaterMark, onBytes)) {
    scanner.push(text);
    if (sizeLeft !== undefined && scanner.dataRecords >= 64) {
      scanner.expectRecords(Math.ceil(((sizeLeft / bytesRead) * scanner.dataRecords) * 1.02));
      sizeLeft = undefined;
    }
    // A fault that makes the rest meaningless (binary data, a line without end): stop reading.
    if (scanner.fatal) break;
  }
  if (!scanner.fatal) scanner.end();
  // The send that follows builds its own when it needs one: this one's memory goes back now.
  scanner.releaseIndex();
  result.sha256 = hash.digest('hex');
  result.format = scanner.format;
  result.columns = scanner.columns;
  result.numberColumn = scanner.numberColumnName;
  result.rows = scanner.dataRecords;
  return result;
}

/**
 * Yields each valid, first-seen recipient in file order. Repeats are skipped (and passed to
 * `onDuplicate`); a bad line throws RecipientsFileError, since `checkRecipientsFile` is meant
 * to have been run first. Stopping early (break, return) closes the file.
 */
export async function* readRecipients(
  path: string | InputSource,
  options: ReadRecipientsOptions = {},
): AsyncGenerator<RecipientRow, void, undefined> {
  for await (const batch of readRecipientBatches(path, options)) yield* batch;
}

/**
 * The same rows as `readRecipients`, a batch per chunk of the file (at most one chunk's rows are
 * held). A bulk send iterates these: one asynchronous step per chunk instead of one per row is
 * a measurable share of its time.
 */
export async function* readRecipientBatches(
  path: string | InputSource,
  options: ReadRecipientsOptions = {},
): AsyncGenerator<RecipientRow[], void, undefined> {
  const file = options.displayName ?? nameOf(path);
  let pending: RecipientRow[] = [];
  let failure: RecipientProblem | undefined;
  const scanner = new RecipientScanner(file, options.numberColumn, {
    row(row) {
      if (failure === undefined) pending.push(row);
    },
    problem(problem) {
      failure ??= problem;
    },
    duplicate(duplicate) {
      if (failure === undefined) options.onDuplicate?.(duplicate);
    },
  }, options.normalizeNumber);
  if (options.findDuplicates === false) scanner.skipDuplicateIndex();
  const take = (): RecipientRow[] => {
    const batch = pending;
    pending = [];
    return batch;
  };

  for await (const text of decodeFile(path, file, options.highWaterMark)) {
    scanner.push(text);
    if (pending.length > 0) yield take();
    if (failure !== undefined) throw new RecipientsFileError(file, [failure]);
  }
  scanner.end();
  scanner.releaseIndex();
  if (pending.length > 0) yield take();
  if (failure !== undefined) throw new RecipientsFileError(file, [failure]);
}

/**
 * The file as text chunks. Decoded as UTF-8 unless it starts with a UTF-16 byte-order mark
 * (spreadsheets save "Unicode text" that way); the mark itself is dropped by TextDecoder.
 */
function fileSize(path: string): number | undefined {
  try {
    const stats = statSync(path);
    return stats.isFile() ? stats.size : undefined;
  } catch {
    return undefined;
  }
}

function nameOf(path: string | InputSource): string {
  return typeof path === 'string' ? path : path.name;
}

async function* decodeFile(
  path: string | InputSource,
  file: string,
  highWaterMark = 64 * 1024,
  onBytes?: (bytes: Buffer) => void,
): AsyncGenerator<string> {
  const stream = typeof path === 'string' ? createReadStream(path, { highWaterMark }) : undefined;
  const source: AsyncIterable<Buffer> = typeof path === 'string' ? (stream as AsyncIterable<Buffer>) : path.chunks(highWaterMark);
  let decoder: TextDecoder | undefined;
  // The first two bytes decide the encoding, even when reads are smaller than that.
  let firstBytes: Buffer | undefined = Buffer.alloc(0);
  try {
    for await (const read of source) {
      onBytes?.(read);
      let chunk = read;
      if (decoder === undefined) {
        chunk = Buffer.concat([firstBytes ?? Buffer.alloc(0), read]);
        if (chunk.length < 2) {
          firstBytes = chunk;
          continue;
        }
        firstBytes = undefined;
        decoder = new TextDecoder(detectEncoding(chunk));
      }
      const text = decoder.decode(chunk, { stream: true });
      if (text !== '') yield text;
    }
  } catch (error) {
    if (error instanceof Error && error.name === 'InputFileError') throw new RecipientsFileError(file, [{ line: null, message: error.message }]);
    throw new RecipientsFileError(file, [{ line: null, message: `${file}: ${describeReadError(error)}` }]);
  } finally {
    stream?.destroy();
  }
  decoder ??= new TextDecoder('utf-8');
  const rest = decoder.decode(firstBytes);
  if (rest !== '') yield rest;
}

function detectEncoding(start: Buffer): string {
  if (start[0] === 0xff && start[1] === 0xfe) return 'utf-16le';
  if (start[0] === 0xfe && start[1] === 0xff) return 'utf-16be';
  return 'utf-8';
}

function describeReadError(error: unknown): string {
  const code = error instanceof Error && 'code' in error ? error.code : undefined;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return 'is a directory, not a file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  return error instanceof Error ? error.message : String(error);
}

interface ScanSink {
  row(row: RecipientRow): void;
  problem(problem: RecipientProblem): void;
  duplicate(duplicate: DuplicateRecipient): void;
}

/** Receives each non-blank record: its fields, the line it starts on, and a parse error if any. */
type RecordHandler = (fields: string[], line: number, error: string | null) => void;

interface RecordParser {
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
class RecipientScanner {
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

function plural(count: number, noun: string): string {
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

const LF = 0x0a;
const CR = 0x0d;

/** One number a line; surrounding whitespace trimmed, blank lines skipped; LF, CRLF or CR. */
class TextLineParser implements RecordParser {
  private partial = '';
  private line = 1;
  private previousWasCR = false;

  constructor(private readonly onRecord: RecordHandler) {}

  push(text: string): void {
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code !== LF && code !== CR) continue;
      if (code === LF && this.previousWasCR && i === start && this.partial === '') {
        // The LF of a CRLF whose CR ended the previous line.
        this.previousWasCR = false;
        start = i + 1;
        continue;
      }
      this.emit(this.partial + text.slice(start, i));
      this.partial = '';
      this.line++;
      this.previousWasCR = code === CR;
      start = i + 1;
    }
    if (start < text.length) {
      this.partial += text.slice(start);
      this.previousWasCR = false;
    }
  }

  end(): void {
    if (this.partial !== '') this.emit(this.partial);
    this.partial = '';
  }

  pendingLength(): number {
    return this.partial.length;
  }

  pendingLine(): number {
    return this.line;
  }

  private emit(raw: string): void {
    const value = raw.trim();
    if (value !== '') this.onRecord([value], this.line, null);
  }
}
