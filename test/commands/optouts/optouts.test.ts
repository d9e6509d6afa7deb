import { existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fakeClock, runCli } from '../../helpers/cli.js';
import { readOptOutLog } from '../../../src/optouts/log.js';

const work = mkdtempSync(join(tmpdir(), 'svc-optouts-cmd-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let n = 0;
function store(): string {
  return join(work, `store-${++n}`, 'events');
}
const clock = () => fakeClock(Date.parse('2026-11-26T10:00:00Z'));
const US = '+15555550100';

describe('svc optouts', () => {
  it('adds, lists, removes, by sending number or every number', async () => {
    const dir = store();
    const added = await runCli(['optouts', 'add', '+14155551001', '+1 (415) 555-1002', '--reason', 'asked on the phone', '--store', dir], { clock: clock() });
    expect(added).toMatchObject({ code: 0, stdout: 'Opted out of every number: +14155551001, +14155551002\n' });
    await runCli(['optouts', 'add', '+14155551003', '--number', US, '--store', dir], { clock: clock() });
    const again = await runCli(['optouts', 'add', '+14155551003', '--number', US, '--store', dir], { clock: clock() });
    expect(again.stderr).toContain(`Already opted out of ${US}: +14155551003`);

    const list = await runCli(['optouts', 'list', '--number', US, '--store', dir, '--json']);
    const entries = JSON.parse(list.stdout) as Record<string, unknown>[];
    expect(entries.map((e) => [e['number'], e['from'], e['reason'], e['cause']])).toEqual([
      ['+14155551001', null, 'asked on the phone', 'hand'],
      ['+14155551002', null, 'asked on the phone', 'hand'],
      ['+14155551003', US, null, 'hand'],
    ]);
    expect(entries[0]!['at']).toBe('2026-11-26T10:00:00.000Z');
    expect(String(entries[0]!['by'])).toMatch(/.+@.+/);
    // Another sending number sees only the opt-outs of every number.
    const other = await runCli(['optouts', 'list', '--number', '+15555550199', '--store', dir, '--json']);
    expect((JSON.parse(other.stdout) as unknown[]).length).toBe(2);

    const table = await runCli(['optouts', 'list', '--store', dir]);
    expect(table.stdout.split('\n')[2]).toMatch(/^\+14155551003\t\+15555550100\t2026-11-26T10:00:00.000Z\tadded by hand\t/);

    const removed = await runCli(['optouts', 'remove', '+14155551001', '+14155551009', '--store', dir], { clock: clock() });
    expect(removed.stdout).toBe('Opted back in to every number: +14155551001\n');
    expect(removed.stderr).toBe('Not opted out of every number: +14155551009\n');
    const after = await runCli(['optouts', 'list', '--store', dir, '--json']);
    expect((JSON.parse(after.stdout) as { number: string }[]).map((e) => e.number)).toEqual(['+14155551002', '+14155551003']);
  });

  it('refuses bad input with exit 2 before writing anything', async () => {
    const dir = store();
    const bad = await runCli(['optouts', 'add', '+14155551001', '12345', '--store', dir]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"12345"');
    expect((await runCli(['optouts', 'add', '+14155551001', '--number', 'nope', '--store', dir])).code).toBe(2);
    expect((await runCli(['optouts', 'add', '+14155551001', '--reason', '  ', '--store', dir])).code).toBe(2);
    const file = join(work, 'a-file');
    writeFileSync(file, '');
    const notDir = await runCli(['optouts', 'list', '--store', file]);
    expect(notDir.code).toBe(2);
    expect(notDir.stderr).toContain('is not a directory');
    expect(readOptOutLog(dir).changes).toEqual([]);
  });

  it('says where the list will be kept when there is none yet', async () => {
    const result = await runCli(['optouts', 'list', '--store', store()]);
    expect(result).toMatchObject({ code: 0, stdout: '' });
    expect(result.stderr).toContain('No opt-outs kept at');
  });

  it('exports CSV a spreadsheet opens and imports it back, adding nothing twice', async () => {
    const dir = store();
    await runCli(['optouts', 'add', '+14155551001', '--reason', '=HYPERLINK("x"), "quoted"', '--store', dir], { clock: clock() });
    await runCli(['optouts', 'add', '+14155551002', '--number', US, '--store', dir], { clock: clock() });
    const out = join(work, 'export.csv');
    const exported = await runCli(['optouts', 'export', out, '--store', dir]);
    expect(exported.code).toBe(0);
    const csv = readFileSync(out, 'utf8');
    expect(csv.charCodeAt(0)).toBe(0xfeff);
    const lines = csv.slice(1).split('\r\n');
    expect(lines[0]).toBe('number,sending_number,opted_out_at,cause,keyword,event_id,reason,by,tenant');
    // A formula is written as text; quotes and commas quoted.
    expect(lines[1]).toMatch(/^\+14155551001,,2026-11-26T10:00:00.000Z,hand,,,"'=HYPERLINK\(""x""\), ""quoted""",/);
    expect(lines[2]).toMatch(/^\+14155551002,\+15555550100,/);
    const piped = await runCli(['optouts', 'export', '--store', dir]);
    expect(piped.stdout.startsWith('number,')).toBe(true);

    const other = store();
    const imported = await runCli(['optouts', 'import', out, '--store', other], { clock: clock() });
    expect(imported.code).toBe(0);
    const list = JSON.parse((await runCli(['optouts', 'list', '--store', other, '--json'])).stdout) as Record<string, unknown>[];
    expect(list.map((e) => [e['number'], e['from'], e['reason'], e['cause']])).toEqual([
      ['+14155551001', null, '=HYPERLINK("x"), "quoted"', 'import'],
      ['+14155551002', US, `from ${out}`, 'import'],
    ]);
    const twice = await runCli(['optouts', 'import', out, '--store', other, '--json'], { clock: clock() });
    expect(JSON.parse(twice.stdout)).toMatchObject({ changed: [], unchanged: [{ number: '+14155551001' }, { number: '+14155551002' }] });
  });

  it('imports a plain list and numbers a spreadsheet stripped of their plus, under --number', async () => {
    const dir = store();
    const file = join(work, 'plain.txt');
    writeFileSync(file, '+14155551001\n14155551002\r\n\n+44 20 7946 0958\n');
    const result = await runCli(['optouts', 'import', file, '--number', US, '--store', dir]);
    expect(result.code).toBe(0);
    expect(readOptOutLog(dir).changes.map((c) => [c.number, c.from])).toEqual([
      ['+14155551001', US],
      ['+14155551002', US],
      ['+442079460958', US],
    ]);
  });

  it('names every bad line of an import (file:line) and imports nothing', async () => {
    const dir = store();
    const file = join(work, 'bad.csv');
    writeFileSync(file, 'name,phone\nAnn,+14155551001\nBob,call me\nCy,"+1415\n');
    const result = await runCli(['optouts', 'import', file, '--store', dir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file}:3: "call me" is not a phone number`);
    expect(result.stderr).toContain(`${file}:4:`);
    expect(readOptOutLog(dir).changes).toEqual([]);
  });

  it('reads the import file by the one file rule: exit 2 naming the file and why, nothing imported', async () => {
    const dir = store();
    const missing = join(work, 'nope.csv');
    const big = join(work, 'huge.csv');
    // Sparse: its size is past the limit without 64 MiB on disk, and it is refused before a byte is read.
    writeFileSync(big, '');
    truncateSync(big, 64 * 1024 * 1024 + 1);
    const latin1 = join(work, 'latin1.csv');
    writeFileSync(latin1, Buffer.from('number,reason\n+14155551001,Jos\xe9 asked\n', 'latin1'));
    for (const [file, message] of [
      [missing, `Cannot read the import file ${missing}: no such file`],
      [work, `Cannot read the import file ${work}: it is a directory, not a file`],
      [big, `Cannot read the import file ${big}: larger than the limit of 64 MiB`],
      [latin1, `${latin1}:2: not valid UTF-8 at byte offset 30: the byte 0xE9`],
    ] as const) {
      const result = await runCli(['optouts', 'import', file, '--store', dir]);
      expect(result.stderr).toContain(message);
      expect(result.code).toBe(2);
      expect(result.stderr).not.toContain('Unexpected error');
    }
    expect(readOptOutLog(dir).changes).toEqual([]);
  });

  it('keeps an every-number opt-out per tenant by hand, shows the tenant, and round-trips it through export and import', async () => {
    const A = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
    const B = '9b2c1d7e-0a4f-4c1b-8e2d-5f6a7b8c9d0e';
    const dir = store();
    const added = await runCli(['optouts', 'add', '+14155551001', '--tenant', A, '--store', dir], { clock: clock() });
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toBe(`Opted out of every number of tenant ${A}: +14155551001\n`);
    // The same person for another tenant is another opt-out, not a repeat.
    const other = await runCli(['optouts', 'add', '+14155551001', '--tenant', B, '--store', dir, '--json'], { clock: clock() });
    expect(JSON.parse(other.stdout)).toEqual({ changed: [{ op: 'out', number: '+14155551001', from: null, tenant: B, at: '2026-11-26T10:00:00.000Z' }], unchanged: [] });
    const table = await runCli(['optouts', 'list', '--store', dir]);
    expect(table.stdout).toContain(`every number of tenant ${A}`);

    const out = join(work, 'tenants.csv');
    expect((await runCli(['optouts', 'export', out, '--store', dir])).code).toBe(0);
    const copy = store();
    const imported = await runCli(['optouts', 'import', out, '--store', copy], { clock: clock() });
    expect(imported.code, imported.stderr).toBe(0);
    const list = JSON.parse((await runCli(['optouts', 'list', '--store', copy, '--json'])).stdout) as Record<string, unknown>[];
    expect(list.map((e) => [e['number'], e['from'], e['tenant']])).toEqual([
      ['+14155551001', null, A],
      ['+14155551001', null, B],
    ]);

    // Lifting tenant A's leaves tenant B's.
    const removed = await runCli(['optouts', 'remove', '+14155551001', '--tenant', A, '--store', copy], { clock: clock() });
    expect(removed.stdout).toBe(`Opted back in to every number of tenant ${A}: +14155551001\n`);
    const left = JSON.parse((await runCli(['optouts', 'list', '--store', copy, '--json'])).stdout) as Record<string, unknown>[];
    expect(left.map((e) => e['tenant'])).toEqual([B]);
  });

  it('refuses a tenant that is not a GUID, on the command line and in an import, writing nothing', async () => {
    const dir = store();
    const bad = await runCli(['optouts', 'add', '+14155551001', '--tenant', 'acme', '--store', dir]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--tenant must be a GUID');
    expect(bad.stderr).toContain('"acme"');
    const file = join(work, 'bad-tenant.csv');
    writeFileSync(file, 'number,tenant\n+14155551001,acme\n');
    const imported = await runCli(['optouts', 'import', file, '--store', dir]);
    expect(imported.code).toBe(2);
    expect(imported.stderr).toContain(`${file}:2: tenant "acme" is not a GUID`);
    expect(readOptOutLog(dir).changes).toEqual([]);
  });
  it('list and export --tenant show only what applies to that tenant\'s sends; with --number, exactly what a send from it honours', async () => {
    const A = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
    const B = '9b2c1d7e-0a4f-4c1b-8e2d-5f6a7b8c9d0e';
    const dir = store();
    const add = async (...args: string[]): Promise<void> => {
      const result = await runCli(['optouts', 'add', ...args, '--store', dir], { clock: clock() });
      expect(result.code, result.stderr).toBe(0);
    };
    await add('+14155551001', '--tenant', A);
    await add('+14155551002', '--tenant', B);
    // Kept for no tenant in particular: it applies to every tenant's sends.
    await add('+14155551003');
    await add('+14155551004', '--number', US);
    await add('+14155551005', '--number', '+15555550199');
    const listed = async (...args: string[]): Promise<string[][]> => {
      const result = await runCli(['optouts', 'list', ...args, '--store', dir, '--json']);
      expect(result.code, result.stderr).toBe(0);
      return (JSON.parse(result.stdout) as Record<string, string | null>[]).map((e) => [e['number']!, e['from'] ?? '*', e['tenant'] ?? '-']);
    };
    // --number alone: every tenant's every-number opt-outs still apply (the send does not say whose it is).
    expect(await listed('--number', US)).toEqual([
      ['+14155551003', '*', '-'],
      ['+14155551001', '*', A],
      ['+14155551002', '*', B],
      ['+14155551004', US, '-'],
    ]);
    const forA = [
      ['+14155551003', '*', '-'],
      ['+14155551001', '*', A],
      ['+14155551004', US, '-'],
    ];
    expect(await listed('--number', US, '--tenant', A)).toEqual(forA);
    // A GUID's letter case is not another tenant.
    expect(await listed('--number', US, '--tenant', ` ${A.toUpperCase()} `)).toEqual(forA);
    // --tenant alone: tenant B's every-number opt-outs and those of no tenant, and every number's own (none recorded for another tenant).
    expect(await listed('--tenant', B)).toEqual([
      ['+14155551003', '*', '-'],
      ['+14155551002', '*', B],
      ['+14155551004', US, '-'],
      ['+14155551005', '+15555550199', '-'],
    ]);

    const out = join(work, 'tenant-a.csv');
    const exported = await runCli(['optouts', 'export', out, '--number', US, '--tenant', A, '--store', dir]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toBe(`Wrote 3 opt-outs to ${out}\n`);
    const rows = readFileSync(out, 'utf8').slice(1).trimEnd().split('\r\n').slice(1);
    expect(rows.map((row) => row.split(',')[0])).toEqual(['+14155551003', '+14155551001', '+14155551004']);
    const piped = await runCli(['optouts', 'export', '--tenant', B, '--store', dir]);
    expect(piped.stdout).toContain(B);
    expect(piped.stdout).not.toContain(A);

    // Nothing left out of a tenant's sends: said in words, on stderr.
    const empty = store();
    await runCli(['optouts', 'add', '+14155551001', '--tenant', A, '--store', empty], { clock: clock() });
    const none = await runCli(['optouts', 'list', '--number', US, '--tenant', B, '--store', empty]);
    expect(none).toMatchObject({ code: 0, stdout: '', stderr: `Nobody on the list is left out of sends from ${US} for tenant ${B}.\n` });
  });

  it('list and export refuse a --tenant that is not a GUID, naming it (exit 2), and write no file', async () => {
    const dir = store();
    await runCli(['optouts', 'add', '+14155551001', '--store', dir], { clock: clock() });
    const list = await runCli(['optouts', 'list', '--tenant', 'acme', '--store', dir]);
    expect(list).toMatchObject({ code: 2, stdout: '' });
    expect(list.stderr).toContain('--tenant must be a GUID (like 3f2504e0-4f89-11d3-9a0c-0305e82c3301), not "acme"');
    const out = join(work, 'never.csv');
    const exported = await runCli(['optouts', 'export', out, '--tenant', '3f2504e0', '--store', dir]);
    expect(exported.code).toBe(2);
    expect(exported.stderr).toContain('not "3f2504e0"');
    expect(existsSync(out)).toBe(false);
  });
});
