import { describe, expect, it } from 'vitest';
import { parseCsv } from '../../src/numbers/csv.js';

describe('parseCsv (RFC 4180)', () => {
  it('reads records with the line each starts on, LF or CRLF, blank lines skipped', () => {
    expect(parseCsv('number,email\r\n+15551230001,a@example.com\r\n\r\n+15551230002,\n')).toEqual([
      { line: 1, fields: ['number', 'email'] },
      { line: 2, fields: ['+15551230001', 'a@example.com'] },
      { line: 4, fields: ['+15551230002', ''] },
    ]);
  });

  it('keeps commas, doubled quotes and line breaks inside quoted fields, and counts the lines they span', () => {
    const records = parseCsv('number,description\n+15551230001,"Sales, ""East""\nfloor 2"\n+15551230002,x');
    expect(records).toEqual([
      { line: 1, fields: ['number', 'description'] },
      { line: 2, fields: ['+15551230001', 'Sales, "East"\nfloor 2'] },
      { line: 4, fields: ['+15551230002', 'x'] },
    ]);
  });

  it('drops a byte-order mark and reads a last record without a line break', () => {
    expect(parseCsv('\uFEFFnumber\n+15551230001')).toEqual([
      { line: 1, fields: ['number'] },
      { line: 2, fields: ['+15551230001'] },
    ]);
  });

  it('reports an unclosed quote, a stray quote and text after a closing quote on their record', () => {
    expect(parseCsv('a,b\n1,"open\n')[1]).toMatchObject({ line: 2, error: expect.stringContaining('not closed') });
    expect(parseCsv('a,b\n1,x"y\n')[1]).toMatchObject({ line: 2, error: expect.stringContaining('quote inside an unquoted field') });
    expect(parseCsv('a,b\n1,"x"y\n2,3')[1]).toMatchObject({ line: 2, error: expect.stringContaining('after the closing quote') });
    expect(parseCsv('a,b\n1,"x"y\n2,3')[2]).toEqual({ line: 3, fields: ['2', '3'] });
  });

  it('keeps empty fields, including a trailing one', () => {
    expect(parseCsv('a,b,c\n,,\n1,2,')).toEqual([
      { line: 1, fields: ['a', 'b', 'c'] },
      { line: 2, fields: ['', '', ''] },
      { line: 3, fields: ['1', '2', ''] },
    ]);
  });
});
