import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readExcludeFile } from '../../../src/send/pace/exclude.js';
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

  it('names a file that cannot be read', async () => {
    const error = await readExcludeFile(join(dir, 'missing.txt')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(/missing\.txt: no such file/);
  });
});
