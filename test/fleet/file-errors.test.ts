import { chmodSync, mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fakeClock, runCli } from '../helpers/cli.js';
import { createMockApi, MOCK_ENV, MOCK_ORIGIN, type MockApi } from '../helpers/mock-api.js';
import { spawnCli } from '../helpers/spawn.js';
import { recordPath } from '../../src/fleet/record.js';

// The fleet's files meet the one file-error rule: a fleet file (-f) or a saved plan (--plan)
// that is missing, unreadable, a directory or too large is exit 2 naming the file and the reason,
// with nothing sent (the mock fails on any request); apply's own record that cannot be read is
// exit 1 naming it, before any write.

const T1 = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
const FILE = `version: 1
tenants:
  - tenantId: ${T1}
numbers:
  - number: "+15555550100"
    tenant: ${T1}
    type: SMS
    class: P2P
    description: Support line
`;

let dir: string;
let api: MockApi;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-fleet-files-'));
  writeFileSync(join(dir, 'fleet.yaml'), FILE);
  api = createMockApi();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const run = (args: string[]) => runCli(args, { env: { ...MOCK_ENV, SVC_CONFIG_DIR: dir, SVC_DATA_DIR: dir }, dispatcher: api.agent, clock: fakeClock() });

describe('a fleet file or a saved plan that cannot be read: exit 2, naming it and why, nothing sent', () => {
  it.each([
    ['diff', 'a missing file', (d: string) => join(d, 'nope.yaml'), 'no such file'],
    ['apply', 'a missing file', (d: string) => join(d, 'nope.yaml'), 'no such file'],
    ['diff', 'a directory', (d: string) => d, 'it is a directory, not a file'],
    ['apply', 'a directory', (d: string) => d, 'it is a directory, not a file'],
    ['apply --dry-run', 'a file past the 64 MiB limit', (d: string) => {
      const big = join(d, 'big.yaml');
      // Sparse: the size is checked before a byte is read.
      writeFileSync(big, '');
      truncateSync(big, 64 * 1024 * 1024 + 1);
      return big;
    }, 'larger than the limit of 64 MiB'],
    ['diff', 'a path through a file', (d: string) => join(d, 'fleet.yaml', 'x.yaml'), 'a part of the path is not a directory'],
  ])('%s -f %s', async (command, _what, pathOf, reason) => {
    const path = pathOf(dir);
    const argv = [...command.split(' '), '-f', path];
    const result = await run(argv);
    expect(result.stderr).toContain(`Cannot read --file ${path}: ${reason}`);
    expect(result.code).toBe(2);
    expect(api.seen).toEqual([]);
  });

  it('apply --plan of a missing or directory plan', async () => {
    const missing = join(dir, 'plan.json');
    const first = await run(['apply', '--plan', missing]);
    expect(first.stderr).toContain(`Cannot read --plan ${missing}: no such file`);
    expect(first.code).toBe(2);
    const second = await run(['apply', '--plan', dir]);
    expect(second.stderr).toContain(`Cannot read --plan ${dir}: it is a directory, not a file`);
    expect(second.code).toBe(2);
    expect(api.seen).toEqual([]);
  });

  it('a fleet file that is not text (bad UTF-8) is exit 2 naming it', async () => {
    const path = join(dir, 'binary.yaml');
    writeFileSync(path, Buffer.from([0x76, 0x65, 0x72, 0xff, 0xfe, 0x00, 0x3a]));
    const result = await run(['diff', '-f', path]);
    expect(result.stderr).toContain(path);
    expect(result.code).toBe(2);
    expect(api.seen).toEqual([]);
  });
});

describe('apply: its own record that cannot be read', () => {
  it('is exit 1 naming the record and why, after the reads and before any write', async () => {
    // The record's place is taken by a directory: reading it fails with EISDIR.
    mkdirSync(recordPath(dir, join(dir, 'fleet.yaml'), `${MOCK_ORIGIN}/api/v1`, MOCK_ENV.SVC_USERNAME), { recursive: true });
    api.expect('GET', '/tenants', { status: 200, body: [{ tenantId: T1, settings: {} }] });
    api.expect('GET', '/phone-numbers/active?page=1&limit=100', {
      status: 200,
      body: { items: [{ phoneNumber: '+15555550100', status: 'Active', tenantId: T1, provisionType: 'SMS', provisionClass: 'P2P', description: 'Old', settings: {} }], page: 1, limit: 100, total: 1 },
    });
    const result = await run(['apply', '-f', join(dir, 'fleet.yaml')]);
    expect(result.stderr).toMatch(/Cannot read the apply record .+\.jsonl: it is a directory, not a file; nothing was changed/);
    expect(result.code).toBe(1);
    expect(result.stderr).not.toContain('Unexpected error');
    expect(api.seen.every((r) => r.method === 'GET')).toBe(true);
  });
});

// Root reads any file: the permission case runs the built CLI as nobody, for whom modes bind.
const AS_USER = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;

describe('a fleet file one may not read, end to end', () => {
  const shared = mkdtempSync(join(tmpdir(), 'svc-fleet-locked-'));
  chmodSync(shared, 0o755);
  afterAll(() => rmSync(shared, { recursive: true, force: true }));

  it('diff -f: exit 2, "permission denied"', async () => {
    const locked = join(shared, 'locked.yaml');
    writeFileSync(locked, FILE);
    chmodSync(locked, 0o000);
    const env = { SVC_BASE_URL: 'https://api.invalid', SVC_USERNAME: 'u@example.com', SVC_PASSWORD: 'pw', SVC_CONFIG_DIR: shared, SVC_DATA_DIR: shared };
    const result = await spawnCli(['diff', '-f', locked], { env, ...(AS_USER ? { user: AS_USER } : {}) });
    expect(result.stderr).toContain(`Cannot read --file ${locked}: permission denied`);
    expect(result.code).toBe(2);
  });
});
