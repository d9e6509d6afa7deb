import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/spawn.js';
import { cannotRead, cannotWrite, FileUsageError, FileWriteError, notAFile, tooLarge } from '../../src/input/file-errors.js';
import { fileProblem } from '../../src/domain/files/reasons.js';

// The one file-error rule, and the commands that read a user's file meeting it for real: a file
// they may not read is exit 2 naming the file and "permission denied", not an unexpected error.

const dir = mkdtempSync(join(tmpdir(), 'svc-file-errors-'));
chmodSync(dir, 0o755);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Root reads any file, so a test running as root runs the CLI as nobody, for whom modes bind. */
const AS_USER = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;

function errnoError(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: something, open '/x'`), { code });
}

describe('the file-error rule', () => {
  it('words each system reason plainly, naming what and where', () => {
    expect(cannotRead('--media-file', 'a.png', errnoError('EACCES')).message).toBe('Cannot read --media-file a.png: permission denied');
    expect(cannotRead('--to-file', 'x', errnoError('ENOENT')).message).toBe('Cannot read --to-file x: no such file');
    expect(cannotRead('--to-file', 'x', errnoError('EISDIR')).message).toBe('Cannot read --to-file x: it is a directory, not a file');
    expect(cannotRead('--to-file', 'x', errnoError('EPERM')).exitCode).toBe(2);
    expect(notAFile('--body-file', '/dev/zero', 'a device').message).toBe('Cannot read --body-file /dev/zero: it is a device, not a file');
    expect(tooLarge('--body-file', 'b', 64 * 1024).message).toBe('Cannot read --body-file b: larger than the limit of 64 KiB');
    for (const [code, words] of [
      ['ENOSPC', 'the disk is full'],
      ['EFBIG', 'the file would grow past the size this process may write'],
      ['EDQUOT', 'the disk quota is used up'],
      ['EROFS', 'the file system is read-only'],
      ['EACCES', 'permission denied'],
    ] as const) {
      const error = cannotWrite('the journal', 'run.jsonl', errnoError(code));
      expect(error).toBeInstanceOf(FileWriteError);
      expect(error.exitCode).toBe(1);
      expect(error.message).toContain(`Cannot write the journal run.jsonl: ${words}`);
    }
    expect(cannotWrite('the journal', 'j', errnoError('ENOSPC')).hints[0]).toContain('Free some space');
    expect(cannotRead('--file', 'x', errnoError('ENOENT'))).toBeInstanceOf(FileUsageError);
    // An unknown code keeps the system's words without the path, and the code.
    expect(fileProblem(Object.assign(new Error("EWEIRD: strange thing happened, open '/x'"), { code: 'EWEIRD' }))).toBe('strange thing happened (EWEIRD)');
  });
});

describe('unreadable input files, end to end', () => {
  const secret = join(dir, 'private');
  mkdirSync(secret, { mode: 0o700 });
  const png = join(dir, 'locked.png');
  writeFileSync(png, Buffer.from('89504e470d0a1a0a', 'hex'));
  chmodSync(png, 0o000);
  const pdf = join(dir, 'locked.pdf');
  writeFileSync(pdf, '%PDF-1.4\n');
  chmodSync(pdf, 0o000);
  const list = join(dir, 'locked.txt');
  writeFileSync(list, '+14155550101\n');
  chmodSync(list, 0o000);
  const env = { SVC_BASE_URL: 'https://api.invalid', SVC_USERNAME: 'u@example.com', SVC_PASSWORD: 'pw', SVC_CONFIG_DIR: dir, SVC_DATA_DIR: dir };
  const TENANT = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
  const FROM = '+14155550100';

  it.each([
    ['send --media-file', ['send', '--from', FROM, '--to', '+14155550101', '--body', 'x', '--media-file', png, '--tenant', TENANT], `Cannot read --media-file ${png}: permission denied`],
    ['media upload FILE', ['media', 'upload', png, '--number', FROM, '--tenant', TENANT], `Cannot read the media file ${png}: permission denied`],
    ['number loa upload FILE', ['number', 'loa', 'upload', pdf], `Cannot read the LOA file ${pdf}: permission denied`],
    ['send --to-file', ['send', '--from', FROM, '--to-file', list, '--body', 'x'], `Cannot read --to-file ${list}: permission denied`],
    ['send --body-file', ['send', '--from', FROM, '--to', '+14155550101', '--body-file', list], `Cannot read --body-file ${list}: permission denied`],
    ['tenant create --file', ['tenant', 'create', '--file', list], `Cannot read --file ${list}: permission denied`],
    ['optouts import FILE', ['optouts', 'import', list, '--store', join(dir, 'events')], `Cannot read the import file ${list}: permission denied`],
    ['a file in a directory one may not enter', ['tenant', 'create', '--file', join(secret, 't.json')], `Cannot read --file ${join(secret, 't.json')}: permission denied`],
  ])('%s: exit 2, naming the file and the reason', async (_name, argv, message) => {
    const result = await spawnCli(argv, { env, ...(AS_USER ? { user: AS_USER } : {}) });
    expect(result.stderr).toContain(message);
    expect(result.code).toBe(2);
    expect(result.stderr).not.toContain('Unexpected error');
  });
});
