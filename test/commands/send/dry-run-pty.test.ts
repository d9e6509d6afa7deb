import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { appendOptOutChanges } from '../../../src/optouts/log.js';
import { BIN, spawnCli } from '../../helpers/spawn.js';
import { startPty, type PtySession } from '../../output/pty.js';

// The dry run of a campaign as a person reads it on a real terminal (node-pty) at 40, 80 and 120
// columns, and piped: opt-outs, quiet hours by each recipient's number (--tz auto), the cost by
// country and the budget. On a terminal no line is wider than it (the terminal would cut words
// and numbers in two and land them under the labels); each value's later lines start in the
// value column; piped, each item is one whole line. A dry run sends nothing: the service's
// address is a closed port.

const FROM = '+15551230001';
const work = mkdtempSync(join(tmpdir(), 'svc-dry-run-pty-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const store = join(work, 'events');
const customers = join(work, 'customers.csv');
const prices = join(work, 'prices.csv');
writeFileSync(
  customers,
  ['phone,name', '+12125550101,Ann', '+13105550105,Erin', '+14155551002,Gus', '+447400123456,Hana', '+61255500108,Jo', '+99912345678,Kim', ''].join('\n'),
);
writeFileSync(prices, 'country,price_per_segment,currency\nUS,0.0079,USD\nGB,0.04,USD\n*,0.05,USD\n');
appendOptOutChanges(store, [{ op: 'out', number: '+14155551002', from: FROM, at: '2026-01-01T00:00:00.000Z', cause: 'keyword', keyword: 'STOP', event: 'dlv-1', by: 'test' }]);

const ARGS = ['send', '--from', FROM, '--to-file', customers, '--body', 'Hi {{name}} – it’s sale day …', '--dry-run', '--prices', prices, '--budget', '0.10', '--window', '08:00-21:00', '--tz', 'auto', '--store', store];
const ENV = {
  PATH: process.env['PATH'],
  HOME: process.env['HOME'],
  TERM: 'xterm',
  SVC_BASE_URL: 'http://127.0.0.1:9',
  SVC_USERNAME: 'user@example.com',
  SVC_PASSWORD: 'pa55-word-secret',
  SVC_CONFIG_DIR: '/nonexistent-svc-config',
};
const LABELS = ['requests', 'recipients', 'opted out', 'window', 'zone unknown', 'encoding', 'characters', 'segments', 'gsm-7', 'cost', '  AU', '  GB', '  US', 'media'];

let pty: PtySession | undefined;
afterEach(async () => {
  await pty?.close();
  pty = undefined;
});

/** The words of the dry run's lines, wherever they were broken. */
const words = (lines: readonly string[]): string[] => lines.join(' ').split(/\s+/).filter((word) => word !== '');

describe('svc send --dry-run on a terminal', () => {
  const piped = spawnCli(ARGS, { env: ENV });

  it('piped: one whole line per item, in the order a person reads them', async () => {
    const result = await piped;
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('Dry run: nothing was sent.');
    expect(lines.slice(1).map((line) => LABELS.find((label) => line.startsWith(`${label} `)))).toEqual(LABELS);
    expect(lines).toContain('opted out     1 (asked not to hear from +15551230001; svc optouts list --number +15551230001)');
    expect(lines).toContain('zone unknown  1 held back, never sent by guess: +99912345678');
    expect(lines).toContain('gsm-7         spelling "–" as "-", "’" as "\'", "…" as "..." saves nothing: in GSM-7 the messages take the same 4 segments');
    expect(lines).toContain('cost          0.1058 USD (budget 0.10 USD: the run would stop before it passes it)');
  });

  it.each([40, 80, 120])('at %i columns: no line wider than the terminal, every value in its column, the same words as piped', async (cols) => {
    pty = startPty(process.execPath, [BIN, ...ARGS], { env: ENV, cols, rows: 60 });
    expect(await pty.exited).toBe(0);
    const lines = pty.text().trimEnd().split('\n');
    expect(lines[0]).toBe('Dry run: nothing was sent.');
    const table = lines.slice(1);
    for (const line of table) {
      expect([...line].length, line).toBeLessThanOrEqual(cols);
      // A label and its value, or a value's later line, starting in the value column (14).
      expect(line, line).toMatch(new RegExp(`^(${LABELS.join('|')}) +\\S|^ {14}\\S`));
    }
    const label = (line: string): string | undefined => LABELS.find((name) => line.startsWith(`${name} `));
    expect(table.map(label).filter((name) => name !== undefined)).toEqual(LABELS);
    expect(words(table)).toEqual(words((await piped).stdout.trimEnd().split('\n').slice(1)));
  });
});
