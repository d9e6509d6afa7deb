// Reading the recipients of a bulk send (`svc send --to-file FILE`), as docs/decisions.md#recipients-files describes:
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
import { fileProblem } from '../domain/files/reasons.js';
import { InvalidTextError, StrictTextDecoder } from '../input/text.js';
import type { InputSource } from './input-source.js';
import { RecipientScanner } from './recipient-scanner.js';
import type { DuplicateRecipient, RecipientProblem, RecipientRow, RecipientsFormat } from './recipient-rows.js';

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

/** The size of a regular file (to estimate how many records it holds); undefined for a pipe or a device. */
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

/**
 * The file as text chunks, decoded strictly (src/input/text.ts): UTF-8, or UTF-16 when it starts
 * with that byte-order mark (spreadsheets save "Unicode text" that way), the mark dropped. A byte
 * that is not text stops the read with the file, line and byte offset, before anything is sent.
 */
async function* decodeFile(
  path: string | InputSource,
  file: string,
  highWaterMark = 64 * 1024,
  onBytes?: (bytes: Buffer) => void,
): AsyncGenerator<string> {
  const stream = typeof path === 'string' ? createReadStream(path, { highWaterMark }) : undefined;
  const source: AsyncIterable<Buffer> = typeof path === 'string' ? (stream as AsyncIterable<Buffer>) : path.chunks(highWaterMark);
  const decoder = new StrictTextDecoder(file);
  try {
    for await (const read of source) {
      onBytes?.(read);
      const text = decoder.decode(read);
      if (text !== '') yield text;
    }
    const rest = decoder.end();
    if (rest !== '') yield rest;
  } catch (error) {
    if (error instanceof InvalidTextError) throw new RecipientsFileError(file, [{ line: error.line, message: error.message }]);
    if (error instanceof Error && error.name === 'InputFileError') throw new RecipientsFileError(file, [{ line: null, message: error.message }]);
    throw new RecipientsFileError(file, [{ line: null, message: `${file}: ${fileProblem(error)}` }]);
  } finally {
    stream?.destroy();
  }
}
