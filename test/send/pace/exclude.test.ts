import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readExcludeFile } from '../../../src/send/pace/exclude.js';
import { checkExcludeRecord, excludeRecordPath, writeExcludeRecord } from '../../../src/send/pace/exclude-record.js';
import { UsageError } from '../../../src/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-exclude-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, content: string | Buffer): string => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};

describe('readExcludeFile', () => {
  it('reads one number a line, whatever the separators and line endings', async () => {
    const list = await readExcludeFile(file('a.txt', '\ufeff+1 (415) 555-1001\r\n+44 7700.900123\r\n\r\n  +4915112345678  \n+1-415-555-1001\n'));
    expect(list.size).toBe(3);
    for (const n of ['+14155551001', '+447700900123', '+4915112345678']) expect(list.has(n)).toBe(true);
    expect(list.has('+14155551002')).toBe(false);
  });

  it('reads the number column of a CSV file, quoted or not, and UTF-16 text', async () => {
    const csv = await readExcludeFile(file('b.csv', 'name,Phone\n"Doe, Jane","+1 415 555 1001"\nBob,+447700900123\n'));
    expect(csv.has('+14155551001') && csv.has('+447700900123')).toBe(true);
    const utf16 = await readExcludeFile(file('c.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('+14155551001\n', 'utf16le')])));
    expect(utf16.has('+14155551001')).toBe(true);
  });

  it('refuses a line that is not E.164, naming the file and the line (exit 2)', async () => {
    const path = file('bad.txt', '+14155551001\n4155551002\n');
    const error = await readExcludeFile(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toBe(`--exclude-file ${path}:2: "4155551002" is not an E.164 number`);
  });

  it('shows a bad line as written in the file, not as its separators were taken out', async () => {
    const path = file('bad-csv.csv', 'name,phone\nJane,+1 (415) 555-1001\nBob,"+1 (415) 555-10O2"\n');
    const error = await readExcludeFile(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    expect((error as UsageError).message).toBe(`--exclude-file ${path}:3: "+1 (415) 555-10O2" is not an E.164 number`);
  });

  it('names a file that cannot be read', async () => {
    const error = await readExcludeFile(join(dir, 'missing.txt')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(/missing\.txt: no such file/);
  });
});

describe('the record of an exclude list beside a journal', () => {
  const binding = { run: { from: '+15551230000', body: 'sha256:b', recipients: 'sha256:r' }, base: 'sha256:x' };

  it('holds the list\'s numbers, sorted, under the list\'s digest, and tells which numbers another list lacks', async () => {
    const list = await readExcludeFile(file('r1.txt', '+14155551003\n+14155551001\n+1 415 555 1002\n'));
    const journal = join(dir, 'r1.jsonl');
    writeExcludeRecord(journal, binding, list);
    const lines = readFileSync(excludeRecordPath(journal), 'utf8').split('\n');
    expect(JSON.parse(lines[0]!)).toMatchObject({ 'svc-send-exclude': 1, base: 'sha256:x', digest: list.digest, numbers: 3 });
    expect(lines.slice(1)).toEqual(['+14155551001', '+14155551002', '+14155551003', '']);
    expect((statSync(excludeRecordPath(journal)).mode & 0o777).toString(8)).toBe('600');

    const grown = await readExcludeFile(file('r2.txt', '+14155551001\n+14155551002\n+14155551003\n+14155551004\n'));
    expect(await checkExcludeRecord(journal, binding, grown)).toMatchObject({ kind: 'read', numbers: 3, digest: list.digest, missing: 0, examples: [] });
    const fewer = await readExcludeFile(file('r3.txt', '+14155551002\n'));
    expect(await checkExcludeRecord(journal, binding, fewer)).toMatchObject({ kind: 'read', numbers: 3, digest: list.digest, missing: 2, examples: ['+14155551001', '+14155551003'] });
    expect((await checkExcludeRecord(journal, { ...binding, base: 'none' }, grown)).kind).toBe('other');
    expect((await checkExcludeRecord(join(dir, 'none.jsonl'), binding, grown)).kind).toBe('absent');

    // A number changed by hand: the digest no longer holds.
    writeFileSync(excludeRecordPath(journal), [lines[0], '+14155551001', '+14155551009', '+14155551003', ''].join('\n'));
    expect((await checkExcludeRecord(journal, binding, grown)).kind).toBe('damaged');
  });
});
