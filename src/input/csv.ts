// The one CSV reader of the CLI, for every command that reads CSV (`number provision --file`,
// and `send --to-file`). It is fed text in chunks of any size, so a file of any length streams
// through it with flat memory. The rules, the same for every command:
// - RFC 4180 records: quoted fields may hold commas, line breaks and doubled quotes ("").
// - A byte-order mark at the start is dropped; LF, CRLF and CR each end a line.
// - Spaces and tabs around a field are dropped; inside quotes they are kept.
// - Blank lines, and records whose fields are all empty (the `,,` rows of spreadsheets), are skipped.
// - Rows may have more or fewer fields than the header: the caller says what that means.
// - A quote inside an unquoted field, text after a closing quote, and a quote never closed are
//   an error of the record (named by the line where it starts); reading goes on at the next line.
//
// Written here rather than taken from csv-parse: on the bulk-send path csv-parse reads 100,000
// rows 3.5 to 13 times slower than this scanner (`npm run bench:csv`), and its line count takes
// a CRLF inside quotes for two lines.

export interface CsvRecord {
  /** The line of the file where the record starts, from 1. */
  line: number;
  fields: string[];
  /** Why the record could not be read, when it could not; its fields are then as far as read. */
  error?: string;
}

export interface CsvReader {
  /** Reads a chunk of text; records go to the handler as they complete. */
  push(text: string): void;
  /** The end of the input: the last record (without a line break after it) goes out. */
  end(): void;
  /** Characters of the record not yet complete (a caller bounds how long a record may grow). */
  pendingLength(): number;
  /** The line where that record starts. */
  pendingLine(): number;
}

export const CSV_ERRORS = {
  quoteInUnquoted: 'a quote inside an unquoted field (quote the whole field and write the quote as "")',
  textAfterQuote: 'text after the closing quote of a field (a quote inside a field is written "")',
  notClosed: (line: number) => `a quoted field opened on line ${line} is never closed (a missing " before the end of the file)`,
} as const;

const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const COMMA = 0x2c;
const SPACE = 0x20;
const TAB = 0x09;

const FIELD_START = 0;
const UNQUOTED = 1;
const QUOTED = 2;
const QUOTE_IN_QUOTED = 3;
const AFTER_QUOTED = 4;

/** A streaming reader calling `onRecord` with each record, in order. */
export function createCsvReader(onRecord: (record: CsvRecord) => void): CsvReader {
  return new CsvScanner(onRecord);
}

/** Every record of a whole text, in order. */
export function readCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  const reader = createCsvReader((record) => records.push(record));
  reader.push(text);
  reader.end();
  return records;
}

/** A state machine over character codes; runs of field text are copied with slice(), not char by char. */
class CsvScanner implements CsvReader {
  private state = FIELD_START;
  /** The current field's text gathered from earlier chunks (or before a doubled quote). */
  private field = '';
  private fields: string[] = [];
  private recordLine = 1;
  private recordStarted = false;
  private error: string | undefined;
  private line = 1;
  private previousWasCR = false;
  private quoteLine = 0;
  private first = true;

  constructor(private readonly onRecord: (record: CsvRecord) => void) {}

  /**
   * One pass over the chunk's character codes: each line break counted, each code handed to the
   * state it arrives in. `run` is the start of the field text in this chunk not yet copied into
   * `field`; each state's step returns where it now starts.
   */
  push(input: string): void {
    const text = this.withoutMark(input);
    const length = text.length;
    let run = 0;
    for (let i = 0; i < length; i++) {
      const code = text.charCodeAt(i);
      // Each line counted once (CRLF is one).
      let lineBreak = false;
      if (code === LF) {
        if (!this.previousWasCR) this.line++;
        this.previousWasCR = false;
        lineBreak = true;
      } else if (code === CR) {
        this.line++;
        this.previousWasCR = true;
        lineBreak = true;
      } else this.previousWasCR = false;
      if (this.state === QUOTE_IN_QUOTED) {
        if (code === QUOTE) {
          // A doubled quote: one literal quote, and the field goes on.
          this.field += '"';
          this.state = QUOTED;
          run = i + 1;
          continue;
        }
        // The previous quote closed the field.
        this.state = AFTER_QUOTED;
      }
      switch (this.state) {
        case FIELD_START:
          run = this.atFieldStart(code, lineBreak, i, run);
          break;
        case UNQUOTED:
          if (code === COMMA || lineBreak) this.endUnquoted(text.slice(run, i), lineBreak);
          else if (code === QUOTE) this.error ??= CSV_ERRORS.quoteInUnquoted;
          break;
        case QUOTED:
          if (code === QUOTE) {
            this.field += text.slice(run, i);
            this.state = QUOTE_IN_QUOTED;
          }
          break;
        case AFTER_QUOTED:
          run = this.afterQuoted(code, lineBreak, i, run);
          break;
      }
    }
    if (this.state === UNQUOTED || this.state === QUOTED) this.field += text.slice(run);
  }

  /** The chunk, less a byte-order mark when it is the first text of the input. */
  private withoutMark(text: string): string {
    if (!this.first || text === '') return text;
    this.first = false;
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }

  /** Before a field: blanks skipped, a line break ends the record, else a field (empty, quoted or not) begins. */
  private atFieldStart(code: number, lineBreak: boolean, i: number, run: number): number {
    if (code === SPACE || code === TAB) return run;
    if (lineBreak) {
      if (this.fields.length > 0) this.fields.push('');
      this.endRecord();
      return run;
    }
    this.startRecord(this.line);
    if (code === COMMA) {
      this.fields.push('');
      return run;
    }
    if (code === QUOTE) {
      this.state = QUOTED;
      this.quoteLine = this.line;
      return i + 1;
    }
    this.state = UNQUOTED;
    return i;
  }

  /** An unquoted field ends at a comma or line break: its text less trailing blanks. */
  private endUnquoted(tail: string, lineBreak: boolean): void {
    this.fields.push((this.field + tail).trimEnd());
    this.field = '';
    this.state = FIELD_START;
    if (lineBreak) this.endRecord();
  }

  /** After a closing quote: blanks, then a comma or line break ends the field; anything else is an error of the record. */
  private afterQuoted(code: number, lineBreak: boolean, i: number, run: number): number {
    if (code === SPACE || code === TAB) return run;
    if (code === COMMA || lineBreak) {
      this.fields.push(this.field);
      this.field = '';
      this.state = FIELD_START;
      if (lineBreak) this.endRecord();
      return run;
    }
    // Read on as unquoted text to the end of the field, so that the next line starts clean.
    this.error ??= CSV_ERRORS.textAfterQuote;
    this.state = UNQUOTED;
    return i;
  }

  end(): void {
    switch (this.state) {
      case QUOTED:
        this.error ??= CSV_ERRORS.notClosed(this.quoteLine);
        this.fields.push(this.field);
        break;
      case UNQUOTED:
        this.fields.push(this.field.trimEnd());
        break;
      case QUOTE_IN_QUOTED:
      case AFTER_QUOTED:
        this.fields.push(this.field);
        break;
      case FIELD_START:
        if (this.fields.length > 0) this.fields.push('');
        break;
    }
    this.field = '';
    this.state = FIELD_START;
    this.endRecord();
  }

  pendingLength(): number {
    let length = this.field.length;
    for (const field of this.fields) length += field.length + 1;
    return length;
  }

  pendingLine(): number {
    return this.recordStarted ? this.recordLine : this.line;
  }

  private startRecord(line: number): void {
    if (this.recordStarted) return;
    this.recordStarted = true;
    this.recordLine = line;
  }

  private endRecord(): void {
    const fields = this.fields;
    this.fields = [];
    const started = this.recordStarted;
    this.recordStarted = false;
    const error = this.error;
    this.error = undefined;
    if (!started) return;
    if (error === undefined && fields.every((value) => value === '')) return;
    this.onRecord(error === undefined ? { line: this.recordLine, fields } : { line: this.recordLine, fields, error });
  }
}
