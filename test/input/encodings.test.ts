import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { createMockApi, MOCK_ENV, type MockApi } from '../helpers/mock-api.js';
import { memorySecretStore } from '../config/memory-secrets.js';

// Every input flag reads its file strictly: a Latin-1 byte or a broken UTF-16 file is exit 2
// naming the file, the line and the byte offset, and nothing is sent (the fake transport fails
// the test on any request). The same texts in UTF-8 or UTF-16 with its mark are taken.

const dir = mkdtempSync(join(tmpdir(), 'svc-encodings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let mock: MockApi | undefined;
afterEach(async () => {
  await mock?.agent.close();
  mock = undefined;
});

const FROM = '+14155550100';
const TENANT = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
let count = 0;

/** `text` with "é" written as the single Latin-1 byte 0xE9 (as a Windows editor saves "José"). */
function latin1(text: string): string {
  const path = join(dir, `latin1-${++count}.txt`);
  writeFileSync(path, Buffer.from(text, 'latin1'));
  return path;
}

/** `text` as UTF-16LE with its mark, and an unpaired high surrogate where `text` has "\u0000". */
function brokenUtf16(text: string): string {
  const path = join(dir, `utf16-${++count}.txt`);
  const [before, after] = text.split('\u0000');
  writeFileSync(path, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(before!, 'utf16le'), Buffer.from([0x00, 0xd8]), Buffer.from(after!, 'utf16le')]));
  return path;
}

/** Byte offset of the bad byte: the UTF-8 (or UTF-16LE after the 2-byte mark) length of what precedes it. */
function offsetLatin1(text: string): number {
  return Buffer.byteLength(text.slice(0, text.indexOf('é')), 'latin1');
}
function offsetUtf16(text: string): number {
  return 2 + Buffer.byteLength(text.slice(0, text.indexOf('\u0000')), 'utf16le');
}

interface Case {
  name: string;
  /** The file's text, with "é" on line 2 (and "\u0000" where UTF-16 breaks). */
  text: string;
  argv: (file: string) => string[];
}

const CASES: Case[] = [
  { name: 'send --to-file (text)', text: '+14155550101\n+14155550102 é\u0000\n', argv: (f) => ['send', '--from', FROM, '--to-file', f, '--body', 'hi'] },
  { name: 'send --to-file (CSV)', text: 'number,name\n+14155550101,José\u0000\n', argv: (f) => ['send', '--from', FROM, '--to-file', f, '--body', 'Hi {{name}}'] },
  { name: 'send --exclude-file', text: '+14155550109\n+1415555011é\u0000\n', argv: (f) => ['send', '--from', FROM, '--to-file', join(dir, 'ok-list.txt'), '--body', 'hi', '--exclude-file', f] },
  { name: 'send --body-file', text: 'Hello\nJosé\u0000\n', argv: (f) => ['send', '--from', FROM, '--to', '+14155550101', '--body-file', f] },
  { name: 'tenant create --file', text: '{\n"domain": "josé\u0000.example"}\n', argv: (f) => ['tenant', 'create', '--file', f] },
  { name: 'tenant update --file', text: '{\n"domain": "josé\u0000.example"}\n', argv: (f) => ['tenant', 'update', TENANT, '--file', f] },
  { name: 'number provision --file (JSON)', text: '[\n{"phoneNumber": "+14155550101", "description": "José\u0000"}]\n', argv: (f) => ['number', 'provision', '--file', f, '--tenant', TENANT] },
  { name: 'number provision --file (CSV)', text: 'phoneNumber,description\n+14155550101,José\u0000\n', argv: (f) => ['number', 'provision', '--file', f, '--tenant', TENANT] },
  { name: 'number update --file', text: '{\n"description": "José\u0000"}\n', argv: (f) => ['number', 'update', FROM, '--file', f] },
  { name: 'api --data @FILE', text: '{\n"description": "José\u0000"}\n', argv: (f) => ['api', 'POST', '/tenants', '--data', `@${f}`] },
];

describe('input files in another encoding', () => {
  writeFileSync(join(dir, 'ok-list.txt'), '+14155550101\n');

  it.each(CASES)('$name: a Latin-1 byte is exit 2 naming file:line and byte offset, nothing sent', async ({ text, argv }) => {
    mock = createMockApi();
    const plain = text.replace('\u0000', '');
    const file = latin1(plain);
    const result = await runCli(argv(file), { env: MOCK_ENV, dispatcher: mock.agent });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`${file}:2: not valid UTF-8 at byte offset ${offsetLatin1(plain)}: the byte 0xE9`);
    expect(mock.seen).toEqual([]);
  });

  it.each(CASES)('$name: a lone surrogate in UTF-16 is exit 2 naming file:line and byte offset, nothing sent', async ({ text, argv }) => {
    mock = createMockApi();
    const file = brokenUtf16(text);
    const result = await runCli(argv(file), { env: MOCK_ENV, dispatcher: mock.agent });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`${file}:2: not valid UTF-16LE at byte offset ${offsetUtf16(text)}: a high surrogate (0xD800) without its low half`);
    expect(mock.seen).toEqual([]);
  });

  it('standard input (a body, --data @-, a password) is held to the same rule', async () => {
    mock = createMockApi();
    for (const argv of [
      ['send', '--from', FROM, '--to', '+14155550101'],
      ['api', 'POST', '/tenants', '--data', '@-'],
      ['auth', 'login', '--profile', 'latin1', '--username', 'u@example.com', '--password-stdin'],
    ]) {
      // A working keychain, so that auth login gets past its keychain check (which comes
      // first, and refuses with exit 1 when there is none) and reaches the password itself.
      const secretStore = memorySecretStore();
      const result = await runCli(argv, { env: MOCK_ENV, dispatcher: mock.agent, secretStore, stdin: Buffer.from('line one\nJos\xe9\n', 'latin1') });
      expect(result.code, `${argv.join(' ')}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toContain('standard input:2: not valid UTF-8 at byte offset 12');
      expect(secretStore.items.size).toBe(0);
    }
    expect(mock.seen).toEqual([]);
  });

  it('the same texts in UTF-8 with a mark, and in whole UTF-16, are read', async () => {
    mock = createMockApi();
    const body = 'Hello José 🙂';
    mock.expect('POST', 'messages?isAsync=false', { status: 202, body: { messageId: 'm1', status: 'queued' } }, {
      body: (sent) => expect((sent as { body: string }).body).toBe(body),
      times: 2,
    });
    const utf8 = join(dir, 'bom8.txt');
    writeFileSync(utf8, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`${body}\n`)]));
    const utf16 = join(dir, 'bom16.txt');
    writeFileSync(utf16, Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(`${body}\n`, 'utf16le').swap16()]));
    for (const file of [utf8, utf16]) {
      const result = await runCli(['send', '--from', FROM, '--to', '+14155550101', '--body-file', file, '--json'], { env: MOCK_ENV, dispatcher: mock.agent });
      expect(result.code, result.stderr).toBe(0);
    }
    mock.verify();
  });
});
