import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/clock.js';
import { fakeClock, runCli } from '../../helpers/cli.js';
import { MOCK_ENV } from '../../helpers/mock-api.js';
import { numberService, testDir, type NumberService } from './helpers.js';

// `send report --failed-to` without --to-file: the rows of the failed recipients come from the
// recipients file the journal's header names, so that the same templated send takes the list.

const FROM = '+15551230000';
const REJECTED = new Set(['+14155551002', '+14155551004']);

let svc: NumberService | undefined;
afterEach(async () => {
  await svc?.close();
  svc = undefined;
});

function run(argv: string[], clock: Clock) {
  return runCli(argv, { clock, env: MOCK_ENV, dispatcher: svc!.agent });
}

async function sentWithRejections(): Promise<{ dir: string; file: string; journal: string; clock: Clock }> {
  const clock = fakeClock();
  svc = numberService(FROM, (to) => REJECTED.has(to));
  const d = testDir();
  const rows = ['+14155551001,Ann', '+14155551002,"Bo, Jr."', '+14155551003,Cy', '+14155551004,Di'];
  const file = d.file('to.csv', `phone,name\n${rows.join('\n')}\n`);
  const journal = join(d.dir, 'run.jsonl');
  const sent = await run(['send', '--from', FROM, '--to-file', file, '--body', 'Hi {{name}}', '--async', '--journal', journal, '--no-store'], clock);
  expect(sent.code, sent.stderr).toBe(6);
  return { dir: d.dir, file, journal, clock };
}

describe('send report --failed-to without --to-file', () => {
  it("takes the failed recipients' rows from the file the journal names, and the same templated send takes them", async () => {
    const { dir, file, journal, clock } = await sentWithRejections();
    const retry = join(dir, 'retry.csv');
    const report = await run(['send', 'report', '--journal', journal, '--failed-to', retry], clock);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stderr).toContain(`--failed-to takes the rows and columns of the failed recipients from ${file}, the recipients file the journal names.`);
    expect(readFileSync(retry, 'utf8')).toBe('phone,name\n+14155551002,"Bo, Jr."\n+14155551004,Di\n');
    const again = await run(['send', '--from', FROM, '--to-file', retry, '--body', 'Hi {{name}}', '--dry-run', '--json'], clock);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ recipients: 2 });
  });

  it('says so and lists the numbers only when the file there is no longer the one sent from', async () => {
    const { dir, file, journal, clock } = await sentWithRejections();
    writeFileSync(file, 'phone,name\n+14155551009,Zed\n');
    const retry = join(dir, 'retry.csv');
    const report = await run(['send', 'report', '--journal', journal, '--failed-to', retry], clock);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stderr).toContain(`${file}, the recipients file the journal names, is not the file the run was sent from any more: --failed-to lists the numbers only`);
    expect(readFileSync(retry, 'utf8')).toBe('+14155551002\n+14155551004\n');
  });

  it('refuses to write over the file the journal names (exit 2)', async () => {
    const { file, journal, clock } = await sentWithRejections();
    const before = readFileSync(file, 'utf8');
    const report = await run(['send', 'report', '--journal', journal, '--failed-to', file], clock);
    expect(report.code).toBe(2);
    expect(report.stderr).toContain(`--failed-to ${file} is the recipients file the journal names`);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });
});
