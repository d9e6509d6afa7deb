import { describe, expect, it } from 'vitest';
import { createCsvReader, readCsv, type CsvRecord } from '../../src/input/csv.js';

// The one CSV reader: the same line reads the same in every command, whole or in chunks.

/** The records of `text` fed in chunks of `size` characters. */
function inChunks(text: string, size: number): CsvRecord[] {
  const records: CsvRecord[] = [];
  const reader = createCsvReader((record) => records.push(record));
  for (let i = 0; i < text.length; i += size) reader.push(text.slice(i, i + size));
  reader.end();
  return records;
}

describe('the CSV reader (RFC 4180)', () => {
  it('reads records with the line each starts on, LF or CRLF, blank lines skipped', () => {
    expect(readCsv('number,email\r\n+15551230001,a@example.com\r\n\r\n+15551230002,\r\n')).toEqual([
      { line: 1, fields: ['number', 'email'] },
      { line: 2, fields: ['+15551230001', 'a@example.com'] },
      { line: 4, fields: ['+15551230002', ''] },
    ]);
    expect(readCsv('a\rb\r')).toEqual([
      { line: 1, fields: ['a'] },
      { line: 2, fields: ['b'] },
    ]);
  });

  it('keeps commas, doubled quotes and line breaks inside quoted fields, and counts the lines they span', () => {
    expect(readCsv('number,description\n+15551230001,"Sales, ""East""\nfloor 2"\n+15551230002,x')).toEqual([
      { line: 1, fields: ['number', 'description'] },
      { line: 2, fields: ['+15551230001', 'Sales, "East"\nfloor 2'] },
      { line: 4, fields: ['+15551230002', 'x'] },
    ]);
  });

  it('drops a byte-order mark and reads a last record without a line break', () => {
    expect(readCsv('\uFEFFnumber\n+15551230001')).toEqual([
      { line: 1, fields: ['number'] },
      { line: 2, fields: ['+15551230001'] },
    ]);
  });

  it('drops spaces and tabs around a field, but not inside quotes', () => {
    expect(readCsv('a , b\n +15551230001 ,\t" x "\t\n')).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['+15551230001', ' x '] },
    ]);
  });

  it('keeps empty fields and ragged rows, and skips rows whose fields are all empty', () => {
    expect(readCsv('a,b,c\n,,\n1,2,\n3\n4,5,6,7')).toEqual([
      { line: 1, fields: ['a', 'b', 'c'] },
      { line: 3, fields: ['1', '2', ''] },
      { line: 4, fields: ['3'] },
      { line: 5, fields: ['4', '5', '6', '7'] },
    ]);
  });

  it('reads the same records whatever the chunks are', () => {
    const text = '\uFEFFa,b\r\n\r\n1,"x\r\ny"\r\n,,\r\n 2 ,3\r\n4,"m\r\nn ""q"" \r\no"\r\n5,6';
    const whole = readCsv(text);
    expect(whole.map((r) => r.line)).toEqual([1, 3, 6, 7, 10]);
    for (const size of [1, 2, 3, 7]) expect(inChunks(text, size)).toEqual(whole);
  });

  it('names a stray quote, text after a closing quote or a quote never closed on its record, and reads on at the next line', () => {
    expect(readCsv('a,b\n1,x"y\n2,3')).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['1', 'x"y'], error: expect.stringContaining('quote inside an unquoted field') },
      { line: 3, fields: ['2', '3'] },
    ]);
    expect(readCsv('a,b\n1,"x"y\n2,3')).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['1', 'xy'], error: expect.stringContaining('after the closing quote') },
      { line: 3, fields: ['2', '3'] },
    ]);
    expect(readCsv('a,b\n1,2\n3,"open\n4,5\n')[2]).toMatchObject({ line: 3, error: 'a quoted field opened on line 3 is never closed (a missing " before the end of the file)' });
  });
});
