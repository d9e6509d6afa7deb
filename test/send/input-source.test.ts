import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { InputFileError, openInput, readInputBytes, type InputSource } from '../../src/send/input-source.js';
import { checkRecipientsFile, readRecipients } from '../../src/send/recipients.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-input-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const options = (extra: Partial<Parameters<typeof openInput>[1]> = {}) => ({
  flag: '--to-file',
  maxBytes: 1024,
  reread: true,
  stdin: Readable.from([]),
  stdinIsTTY: false,
  ...extra,
});

async function text(source: InputSource): Promise<string> {
  return (await readInputBytes(source)).toString('utf8');
}

describe('openInput', () => {
  it('reads a regular file through one descriptor, as it was when opened, as often as asked', async () => {
    const path = join(dir, 'list.txt');
    writeFileSync(path, '+15550100001\n');
    const source = await openInput(path, options());
    expect(source.identity).toBeDefined();
    appendFileSync(path, '+15550100002\n');
    expect(await text(source)).toBe('+15550100001\n');
    expect(await text(source)).toBe('+15550100001\n');
    source.close();
  });

  it('reads a FIFO once, and serves later passes from its private copy', async () => {
    const fifo = join(dir, 'list.fifo');
    execFileSync('mkfifo', [fifo]);
    const opening = openInput(fifo, options());
    await writeFile(fifo, '+15550100001\n+15550100002\n');
    const source = await opening;
    expect(source.identity).toBeUndefined();
    const check = await checkRecipientsFile(source);
    expect(check.recipients).toBe(2);
    const rows = [];
    for await (const row of readRecipients(source)) rows.push(row.to);
    expect(rows).toEqual(['+15550100001', '+15550100002']);
    source.close();
  });

  it('reads - from the given standard input, once without a copy when one pass is enough', async () => {
    const once = await openInput('-', options({ reread: false, stdin: Readable.from([Buffer.from('hello')]) }));
    expect(once.name).toBe('standard input');
    expect(await text(once)).toBe('hello');
    await expect(text(once)).rejects.toThrow('can be read only once');
    await expect(openInput('-', options({ stdinIsTTY: true }))).rejects.toThrow('standard input is a terminal');
  });

  it.each([
    ['/dev/zero', 'is a device, not a file'],
    ['/dev/null', 'is a device, not a file'],
    [tmpdir(), 'is a directory, not a file'],
    ['/nonexistent/list.txt', 'no such file'],
  ])('refuses %s', async (path, message) => {
    await expect(openInput(path, options())).rejects.toThrow(message);
    await expect(openInput(path, options())).rejects.toBeInstanceOf(InputFileError);
  });

  it('refuses a file past the limit before reading it, and a stream once it passes the limit', async () => {
    const big = join(dir, 'big.txt');
    writeFileSync(big, 'x'.repeat(1025));
    await expect(openInput(big, options())).rejects.toThrow(`Cannot read --to-file ${big}: larger than the limit of 1 KiB`);
    const stream = await openInput('-', options({ stdin: Readable.from([Buffer.alloc(600, 0x31), Buffer.alloc(600, 0x31)]) }));
    await expect(text(stream)).rejects.toThrow('Cannot read --to-file standard input: larger than the limit of 1 KiB');
    stream.close();
  });
});

describe('recipients files that are not lists of numbers', () => {
  it('stops at binary data and at a record without end, whatever the source', async () => {
    const zeros = await openInput('-', options({ maxBytes: 1 << 30, stdin: Readable.from((function* () { for (let i = 0; i < 1000; i++) yield Buffer.alloc(64 * 1024); })()) }));
    const check = await checkRecipientsFile(zeros);
    expect(check.problems[0]!.message).toBe('standard input: holds NUL bytes: binary data, not a list of numbers');
    zeros.close();
    const ones = await openInput('-', options({ maxBytes: 1 << 30, stdin: Readable.from((function* () { for (let i = 0; i < 1000; i++) yield Buffer.alloc(64 * 1024, 0x31); })()) }));
    const long = await checkRecipientsFile(ones);
    expect(long.problems[0]!.message).toBe('standard input:1: a record longer than 65536 characters: not a list of numbers');
    ones.close();
  });
});
