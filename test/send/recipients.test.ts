import { mkdtempSync, rmSync, writeFileSync, createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import { checkRecipientsFile, readRecipients, RecipientsFileError, type ReadRecipientsOptions } from '../../src/send/recipients.js';
import type { DuplicateRecipient, RecipientRow } from '../../src/send/recipient-rows.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-recipients-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let fileCounter = 0;
function file(content: string | Buffer, name = `recipients-${++fileCounter}.csv`): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

async function readAll(path: string, options: ReadRecipientsOptions = {}): Promise<RecipientRow[]> {
  const rows: RecipientRow[] = [];
  for await (const row of readRecipients(path, options)) rows.push(row);
  return rows;
}

const A = '+15550100001';
const B = '+15550100002';
const C = '+447700900123';

describe('text files', () => {
  it('reads one number a line, trimming whitespace and skipping blank lines', async () => {
    const path = file(`${A}\n\n  ${B}  \n\t\n${C}\n`);
    const rows = await readAll(path);
    expect(rows).toEqual([
      { line: 1, to: A, fields: {} },
      { line: 3, to: B, fields: {} },
      { line: 5, to: C, fields: {} },
    ]);
    const check = await checkRecipientsFile(path);
    expect(check).toMatchObject({ format: 'text', columns: [], numberColumn: null, rows: 3, recipients: 3, problemCount: 0 });
  });

  it('handles CRLF, a lone CR, a BOM and no final line break', async () => {
    const path = file(`\uFEFF${A}\r\n${B}\r${C}`);
    const rows = await readAll(path);
    expect(rows.map((r) => [r.line, r.to])).toEqual([
      [1, A],
      [2, B],
      [3, C],
    ]);
  });

  it('reports every bad number with its line, and the counts', async () => {
    const path = file(`${A}\n+1234\n\n15550100003\n${B}\n+1 555 010 0004\n`, 'numbers.txt');
    const check = await checkRecipientsFile(path, { displayName: 'numbers.txt' });
    expect(check.problemCount).toBe(3);
    expect(check.problems).toEqual([
      { line: 2, message: 'numbers.txt:2: "+1234" is not an E.164 number' },
      { line: 4, message: 'numbers.txt:4: "15550100003" is not an E.164 number' },
      { line: 6, message: 'numbers.txt:6: "+1 555 010 0004" is not an E.164 number' },
    ]);
    expect(check.rows).toBe(5);
    expect(check.recipients).toBe(2);
  });

  it('names the file as given by default', async () => {
    const path = file('+12\n');
    const check = await checkRecipientsFile(path);
    expect(check.problems[0]!.message).toBe(`${path}:1: "+12" is not an E.164 number`);
  });

  it('drops a repeated number with a warning naming both lines', async () => {
    const path = file(`${A}\n${B}\n${A}\n${A}\n`, 'dups.txt');
    const duplicates: DuplicateRecipient[] = [];
    const rows = await readAll(path, { displayName: 'dups.txt', onDuplicate: (d) => duplicates.push(d) });
    expect(rows.map((r) => r.to)).toEqual([A, B]);
    expect(duplicates).toEqual([
      { to: A, line: 3, firstLine: 1, message: `dups.txt:3: ${A} is listed again (first on line 1); it is sent once` },
      { to: A, line: 4, firstLine: 1, message: `dups.txt:4: ${A} is listed again (first on line 1); it is sent once` },
    ]);
    const check = await checkRecipientsFile(path);
    expect(check).toMatchObject({ rows: 4, recipients: 2, duplicateCount: 2, problemCount: 0 });
  });

  it('refuses a column choice for a text file', async () => {
    const check = await checkRecipientsFile(file(`${A}\n`), { numberColumn: 'phone' });
    expect(check.problemCount).toBe(1);
    expect(check.problems[0]!.message).toContain('text file');
  });

  it('an empty file has no recipients and no problems', async () => {
    const check = await checkRecipientsFile(file(''));
    expect(check).toMatchObject({ format: 'text', rows: 0, recipients: 0, problemCount: 0 });
    expect(await readAll(file('\n\n  \n'))).toEqual([]);
  });
});

describe('CSV files: header detection and the number column', () => {
  it('a first line with a comma is a header', async () => {
    const path = file(`name,phone\nAda,${A}\nBob,${B}\n`);
    const check = await checkRecipientsFile(path);
    expect(check).toMatchObject({ format: 'csv', columns: ['name', 'phone'], numberColumn: 'phone', rows: 2, recipients: 2 });
    const rows = await readAll(path);
    expect(rows).toEqual([
      { line: 2, to: A, fields: { name: 'Ada', phone: A } },
      { line: 3, to: B, fields: { name: 'Bob', phone: B } },
    ]);
  });

  it('a lone header word (no digit) makes a one-column CSV', async () => {
    const path = file(`Phone\n${A}\n${B}\n`);
    const check = await checkRecipientsFile(path);
    expect(check).toMatchObject({ format: 'csv', columns: ['Phone'], numberColumn: 'Phone', recipients: 2 });
    const rows = await readAll(path);
    expect(rows[0]).toEqual({ line: 2, to: A, fields: { Phone: A } });
  });

  it.each([
    ['phone', 'name,PHONE,city'],
    ['number', 'name,Number,city'],
    ['to', 'name,To,city'],
    ['recipient', 'name,RECIPIENT,city'],
  ])('finds the column named %s in any case', async (_name, header) => {
    const path = file(`${header}\nAda,${A},Paris\n`);
    const check = await checkRecipientsFile(path);
    expect(check.numberColumn).toBe(header.split(',')[1]);
    expect((await readAll(path))[0]!.to).toBe(A);
  });

  it('uses the first column when none is named for numbers', async () => {
    const path = file(`mobile,name\n${A},Ada\n`);
    const check = await checkRecipientsFile(path);
    expect(check.numberColumn).toBe('mobile');
    expect((await readAll(path))[0]).toEqual({ line: 2, to: A, fields: { mobile: A, name: 'Ada' } });
  });

  it('takes the first named column in header order when several qualify', async () => {
    const path = file(`to,phone\n${A},${B}\n`);
    expect((await checkRecipientsFile(path)).numberColumn).toBe('to');
  });

  it('takes a column asked for by name, case-insensitively', async () => {
    const path = file(`phone,backup\n${A},${B}\n`);
    const rows = await readAll(path, { numberColumn: 'BACKUP' });
    expect(rows[0]!.to).toBe(B);
    const check = await checkRecipientsFile(path, { numberColumn: 'mobile', displayName: 'r.csv' });
    expect(check.problems[0]!.message).toBe('r.csv:1: no column named "mobile"; the columns are "phone", "backup"');
  });

  it('reports a header that is really a row of data', async () => {
    const check = await checkRecipientsFile(file(`${A},Ada\n${B},Bob\n`), { displayName: 'r.csv' });
    expect(check.problems.map((p) => p.message)).toEqual([
      'r.csv:1: the first line holds a phone number, but a CSV file needs a header row first (for example "phone,name")',
    ]);
  });

  it('reports a column named twice (names are matched case-insensitively)', async () => {
    const check = await checkRecipientsFile(file(`phone,Name,name\n${A},a,b\n`), { displayName: 'r.csv' });
    expect(check.problems.map((p) => p.message)).toEqual(['r.csv:1: the header names a column twice: "Name" and "name"']);
  });

  it('skips blank lines before the header and counts lines from the top', async () => {
    const path = file(`\n\nphone,name\n\n${A},Ada\n`);
    const rows = await readAll(path);
    expect(rows).toEqual([{ line: 5, to: A, fields: { phone: A, name: 'Ada' } }]);
  });
});

describe('CSV files: RFC 4180 fields', () => {
  it('keeps commas, doubled quotes and line breaks inside quoted fields', async () => {
    const path = file(
      `phone,name,note\n` +
        `${A},"Lovelace, Ada","said ""hi"""\n` +
        `${B},Bob,"two\nlines"\n` +
        `${C},"",x\n`,
    );
    const rows = await readAll(path);
    expect(rows).toEqual([
      { line: 2, to: A, fields: { phone: A, name: 'Lovelace, Ada', note: 'said "hi"' } },
      { line: 3, to: B, fields: { phone: B, name: 'Bob', note: 'two\nlines' } },
      // The quoted line break moved this record to line 5.
      { line: 5, to: C, fields: { phone: C, name: '', note: 'x' } },
    ]);
  });

  it('handles a BOM, CRLF line ends and CRLF inside quotes', async () => {
    const path = file(`\uFEFFphone,note\r\n${A},"a\r\nb"\r\n${B},c\r\n`);
    const check = await checkRecipientsFile(path);
    expect(check.columns).toEqual(['phone', 'note']);
    const rows = await readAll(path);
    expect(rows).toEqual([
      { line: 2, to: A, fields: { phone: A, note: 'a\r\nb' } },
      { line: 4, to: B, fields: { phone: B, note: 'c' } },
    ]);
  });

  it('trims whitespace around fields, not inside quotes', async () => {
    const path = file(` phone , name \n  ${A}  ,  "  Ada  "  \n`);
    const rows = await readAll(path);
    expect(rows).toEqual([{ line: 2, to: A, fields: { phone: A, name: '  Ada  ' } }]);
  });

  it('trims a quoted number', async () => {
    const rows = await readAll(file(`phone\n" ${A} "\n`));
    expect(rows[0]!.to).toBe(A);
  });

  it('skips blank lines and rows of empty fields', async () => {
    const path = file(`phone,name\n\n${A},Ada\n,\n  \n"",""\n${B},Bob\n\n`);
    const check = await checkRecipientsFile(path);
    expect(check).toMatchObject({ rows: 2, recipients: 2, problemCount: 0 });
  });

  it('reports a quote inside an unquoted field as an error of its record (the one CSV reader\'s rule), and reads on', async () => {
    const check = await checkRecipientsFile(file(`phone,size\n${A},5" screen\n${B},"6"" screen"\n`), { displayName: 'r.csv' });
    expect(check.problems.map((p) => p.message)).toEqual(['r.csv:2: a quote inside an unquoted field (quote the whole field and write the quote as "")']);
    expect(check.recipients).toBe(1);
    const rows = await readAll(file(`phone,size\n${B},"6"" screen"\n`));
    expect(rows[0]!.fields['size']).toBe('6" screen');
  });

  it('keeps an empty last field after a trailing comma', async () => {
    const rows = await readAll(file(`phone,name\n${A},`));
    expect(rows[0]!.fields).toEqual({ phone: A, name: '' });
  });

  it('reports rows with the wrong number of fields', async () => {
    const check = await checkRecipientsFile(file(`phone,name\n${A},Lovelace, Ada\n${B}\n`), { displayName: 'r.csv' });
    expect(check.problems.map((p) => p.message)).toEqual([
      'r.csv:2: 3 fields where the header has 2 (a field that contains a comma must be in double quotes)',
      'r.csv:3: 1 field where the header has 2',
    ]);
    expect(check.recipients).toBe(0);
  });

  it('reports text after a closing quote and a quote never closed, with their lines', async () => {
    const check = await checkRecipientsFile(file(`phone,name\n${A},"Ada"x\n${B},"Bob\n${C},Cy\n`), {
      displayName: 'r.csv',
    });
    expect(check.problems.map((p) => p.message)).toEqual([
      'r.csv:2: text after the closing quote of a field (a quote inside a field is written "")',
      'r.csv:3: a quoted field opened on line 3 is never closed (a missing " before the end of the file)',
    ]);
  });

  it('reports an empty number and bad numbers by line, and keeps counting', async () => {
    const check = await checkRecipientsFile(
      file(`name,phone\nAda,\nBob,+1234\nCy,${A}\nDee,+0155501000\nEve,${A}\n`),
      { displayName: 'recipients.csv' },
    );
    expect(check.problems.map((p) => p.message)).toEqual([
      'recipients.csv:2: no number in column "phone"',
      'recipients.csv:3: "+1234" is not an E.164 number',
      'recipients.csv:5: "+0155501000" is not an E.164 number',
    ]);
    expect(check.duplicates.map((d) => d.message)).toEqual([
      `recipients.csv:6: ${A} is listed again (first on line 4); it is sent once`,
    ]);
    expect(check).toMatchObject({ rows: 5, recipients: 1, problemCount: 3, duplicateCount: 1 });
  });

  it('keeps at most maxReported problems but counts them all', async () => {
    const lines = ['phone', ...Array.from({ length: 50 }, (_, i) => `+12${i}`)];
    const check = await checkRecipientsFile(file(lines.join('\n')), { maxReported: 5 });
    expect(check.problems).toHaveLength(5);
    expect(check.problemCount).toBe(50);
  });

  it('a column called __proto__ is an ordinary field', async () => {
    const rows = await readAll(file(`phone,__proto__\n${A},x\n`));
    expect(rows[0]!.fields['__proto__']).toBe('x');
    expect(Object.keys(rows[0]!.fields)).toEqual(['phone', '__proto__']);
  });

  it('reads a UTF-16 little-endian file with a byte-order mark', async () => {
    const text = `phone,name\r\n${A},Zoë\r\n`;
    const path = file(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
    const rows = await readAll(path, { highWaterMark: 1 });
    expect(rows).toEqual([{ line: 2, to: A, fields: { phone: A, name: 'Zoë' } }]);
  });
});

describe('chunk boundaries', () => {
  const content =
    `\uFEFF\r\nphone,name,note\r\n` +
    `${A},"Lovelace, Ada","multi\r\nline ""quoted"" text"\r\n` +
    `\r\n` +
    `  ${B} , Zoë ,😀 emoji\r\n` +
    `+12,bad,x\r\n` +
    `${A},dup,x\r\n` +
    `${C},"end",z`;

  it.each([1, 2, 3, 5, 7, 11, 64 * 1024])('gives the same answer when read %i bytes at a time', async (size) => {
    const path = file(content);
    const duplicates: DuplicateRecipient[] = [];
    await expect(readAll(path, { highWaterMark: size, onDuplicate: (d) => duplicates.push(d) })).rejects.toThrow(
      RecipientsFileError,
    );
    const check = await checkRecipientsFile(path, { highWaterMark: size, displayName: 'r.csv' });
    expect(check).toMatchObject({
      format: 'csv',
      columns: ['phone', 'name', 'note'],
      rows: 5,
      recipients: 3,
      problemCount: 1,
      duplicateCount: 1,
    });
    expect(check.problems[0]!.message).toBe('r.csv:7: "+12" is not an E.164 number');
    expect(check.duplicates[0]!.message).toBe(`r.csv:8: ${A} is listed again (first on line 3); it is sent once`);

    const clean = file(content.replace('+12,bad,x\r\n', ''));
    const rows = await readAll(clean, { highWaterMark: size });
    expect(rows).toEqual([
      { line: 3, to: A, fields: { phone: A, name: 'Lovelace, Ada', note: 'multi\r\nline "quoted" text' } },
      { line: 6, to: B, fields: { phone: B, name: 'Zoë', note: '😀 emoji' } },
      { line: 8, to: C, fields: { phone: C, name: 'end', note: 'z' } },
    ]);
  });
});

describe('chunk boundaries in a text file', () => {
  it.each([1, 2, 3, 64 * 1024])('gives the same rows when read %i bytes at a time', async (size) => {
    const path = file(`\uFEFF\r\n ${A} \r\n\r\r\n${B}\r${C}\n${A}`, `chunks-${size}.txt`);
    const duplicates: DuplicateRecipient[] = [];
    const rows = await readAll(path, { highWaterMark: size, onDuplicate: (d) => duplicates.push(d) });
    expect(rows.map((r) => [r.line, r.to])).toEqual([
      [2, A],
      [5, B],
      [6, C],
    ]);
    expect(duplicates.map((d) => [d.line, d.firstLine])).toEqual([[7, 2]]);
  });
});

describe('readRecipients', () => {
  it('throws RecipientsFileError at a bad line, after yielding the rows before it', async () => {
    const path = file(`phone\n${A}\n+99\n${B}\n`, 'bad.csv');
    const seen: string[] = [];
    let caught: unknown;
    try {
      for await (const row of readRecipients(path, { displayName: 'bad.csv' })) seen.push(row.to);
    } catch (error) {
      caught = error;
    }
    expect(seen).toEqual([A]);
    expect(caught).toBeInstanceOf(RecipientsFileError);
    const error = caught as RecipientsFileError;
    expect(error.message).toBe('bad.csv:3: "+99" is not an E.164 number');
    expect(error.line).toBe(3);
    expect(error.file).toBe('bad.csv');
  });

  it('names a missing file', async () => {
    const missing = join(dir, 'nope.csv');
    await expect(checkRecipientsFile(missing, { displayName: 'nope.csv' })).rejects.toThrow('nope.csv: no such file');
    await expect(readAll(missing, { displayName: 'nope.csv' })).rejects.toThrow(RecipientsFileError);
    await expect(checkRecipientsFile(dir, { displayName: 'd' })).rejects.toThrow('d: it is a directory, not a file');
  });

  it('can stop early', async () => {
    const path = file(`${A}\n${B}\n${C}\n`);
    for await (const row of readRecipients(path, { highWaterMark: 4 })) {
      expect(row.to).toBe(A);
      break;
    }
  });

  it('streams a generated 200,000-line CSV file and yields every row in order', async () => {
    const path = join(dir, 'large.csv');
    const out = createWriteStream(path);
    out.write('phone,name,code\n');
    const total = 200_000;
    for (let i = 0; i < total; i++) {
      // Every 1000th name is quoted with a comma in it.
      const name = i % 1000 === 0 ? `"User, ${i}"` : `User ${i}`;
      if (!out.write(`+1555${String(i).padStart(7, '0')},${name},${i}\n`)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');

    let count = 0;
    let lastLine = 0;
    for await (const row of readRecipients(path)) {
      if (row.fields['code'] !== String(count) || row.line !== count + 2) {
        throw new Error(`row ${count} came out wrong: ${JSON.stringify(row)}`);
      }
      lastLine = row.line;
      count++;
    }
    expect(count).toBe(total);
    expect(lastLine).toBe(total + 1);

    const check = await checkRecipientsFile(path);
    expect(check).toMatchObject({ rows: total, recipients: total, problemCount: 0, duplicateCount: 0 });
  });
});

describe('strict decoding while streaming', () => {
  it('stops at a Latin-1 byte deep in the file, in any read size, naming its line and byte offset', async () => {
    const lines = Array.from({ length: 900 }, (_, i) => `+1415555${String(i).padStart(4, '0')},Name ${i}`);
    const before = `number,name\n${lines.join('\n')}\n+14155559999,Jos`;
    const path = join(dir, 'deep-latin1.csv');
    writeFileSync(path, Buffer.concat([Buffer.from(before), Buffer.from([0xe9]), Buffer.from('\n+14155559998,Ana\n')]));
    for (const highWaterMark of [5, 64, 65536]) {
      const check = checkRecipientsFile(path, { displayName: 'deep.csv', highWaterMark });
      await expect(check).rejects.toThrow(`deep.csv:902: not valid UTF-8 at byte offset ${Buffer.byteLength(before)}: the byte 0xE9`);
      await expect(readAll(path, { displayName: 'deep.csv', highWaterMark })).rejects.toMatchObject({ line: 902 });
    }
  });

  it('reads UTF-16 of either order and stops at its lone surrogate', async () => {
    const text = 'number\n+14155550100\n+14155550101\n';
    const le = join(dir, 'u16le.csv');
    writeFileSync(le, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
    expect((await readAll(le, { highWaterMark: 3 })).map((row) => row.to)).toEqual(['+14155550100', '+14155550101']);
    const be = join(dir, 'u16be.csv');
    writeFileSync(be, Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16(), Buffer.from([0xdc, 0x01])]));
    await expect(readAll(be, { displayName: 'be.csv', highWaterMark: 3 })).rejects.toThrow(`be.csv:4: not valid UTF-16BE at byte offset ${2 + text.length * 2}: a low surrogate (0xDC01)`);
  });
});
