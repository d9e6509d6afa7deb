// A small RFC 4180 reader for provision files (a few hundred rows at most, read whole).
// src/send/recipients.ts has a streaming CSV scanner, but it is private to the recipients reader
// and shaped around it (number column, duplicates), so provision files get this one: records with
// the line each starts on, quoted fields with "" escapes and line breaks, and an error per record.

export interface CsvRecord {
  /** Line of the file where the record starts, from 1. */
  line: number;
  fields: string[];
  /** Why the record could not be read, when it could not. */
  error?: string;
}

/** Every non-blank record of `text`, in order. A byte-order mark is dropped. */
export function parseCsv(text: string): CsvRecord[] {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const records: CsvRecord[] = [];
  let line = 1;
  let i = 0;
  const length = source.length;
  while (i < length) {
    const startLine = line;
    const fields: string[] = [];
    let error: string | undefined;
    let field = '';
    let endOfRecord = false;
    while (!endOfRecord) {
      if (source[i] === '"') {
        // Quoted field: runs to the next lone quote; "" is a quote; line breaks are kept.
        i++;
        let closed = false;
        while (i < length) {
          const ch = source[i]!;
          if (ch === '"') {
            if (source[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i++;
            closed = true;
            break;
          }
          if (ch === '\n') line++;
          field += ch;
          i++;
        }
        if (!closed) {
          error ??= 'a quoted field is not closed (a missing " before the end of the file)';
        } else if (i < length && source[i] !== ',' && source[i] !== '\n' && source[i] !== '\r') {
          error ??= 'text after the closing quote of a field (a quote inside a field is written "")';
          while (i < length && source[i] !== ',' && source[i] !== '\n') field += source[i++];
        }
      } else {
        while (i < length && source[i] !== ',' && source[i] !== '\n' && source[i] !== '\r') {
          if (source[i] === '"') error ??= 'a quote inside an unquoted field (quote the whole field and write the quote as "")';
          field += source[i++];
        }
      }
      fields.push(field);
      field = '';
      if (i >= length) {
        endOfRecord = true;
      } else if (source[i] === ',') {
        i++;
      } else {
        // \r\n, \n or a lone \r ends the record.
        if (source[i] === '\r') i++;
        if (source[i] === '\n') i++;
        line++;
        endOfRecord = true;
      }
    }
    const blank = fields.length === 1 && fields[0]!.trim() === '' && error === undefined;
    if (!blank) records.push(error === undefined ? { line: startLine, fields } : { line: startLine, fields, error });
  }
  return records;
}
