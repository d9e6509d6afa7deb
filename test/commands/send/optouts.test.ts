import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendOptOutChanges, EVERY_NUMBER, type ConsentChange } from '../../../src/optouts/log.js';
import { fakeClock, scriptedPrompter } from '../../helpers/cli.js';
import { dropResultsFor, journalRecords, numberServiceScope, numbers, testDir } from './helpers.js';

// Every send leaves out whoever opted out of its sending number (or of every number), counts them,
// and sends to them only with --ignore-optouts, confirmed. In-process against a MockAgent service.

const FROM = '+15551230000';
const OTHER = '+15551239999';

const service = numberServiceScope();
const run = service.run;

function optOut(store: string, number: string, from: string): void {
  const change: ConsentChange = { op: 'out', number, from, at: '2026-01-01T00:00:00.000Z', cause: 'keyword', keyword: 'STOP', event: `dlv-${number}`, by: 'test' };
  appendOptOutChanges(store, [change]);
}

/** A list of `count` numbers from +14155551000, and the arguments of a journaled send of it with its event store. */
function journaledSend(count: number): { store: string; journal: string; args: string[] } {
  const d = testDir();
  const store = join(d.dir, 'events');
  const file = d.file('to.txt', `${numbers(count, 14155551000).join('\n')}\n`);
  const journal = join(d.dir, 'run.jsonl');
  return { store, journal, args: ['send', '--from', FROM, '--to-file', file, '--body', 'Hi', '--async', '--store', store, '--journal', journal] };
}

describe('svc send and the opt-out list', () => {
  it('leaves out every recipient opted out of the sending number or of every number, and says how many', async () => {
    const clock = fakeClock();
    service.start(FROM);
    const d = testDir();
    const store = join(d.dir, 'events');
    const recipients = numbers(20, 14155551000);
    optOut(store, recipients[2]!, FROM);
    optOut(store, recipients[5]!, EVERY_NUMBER);
    optOut(store, recipients[7]!, FROM);
    // Opted out of another number only: still sent from this one.
    optOut(store, recipients[9]!, OTHER);
    const file = d.file('to.csv', `phone,name\n${recipients.map((n, i) => `${n},P${i}`).join('\n')}\n`);
    const args = ['send', '--from', FROM, '--to-file', file, '--body', 'Hi {{name}}', '--async', '--store', store];

    const dry = await run([...args, '--dry-run', '--json'], clock);
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ recipients: 17, requests: 17, optedOut: 3 });
    const table = await run([...args, '--dry-run'], clock);
    expect(table.stdout).toContain(`opted out   3 (asked not to hear from ${FROM}; svc optouts list --number ${FROM})`);
    expect(service.current.posts).toHaveLength(0);

    const journal = join(d.dir, 'run.jsonl');
    const result = await run([...args, '-o', 'ndjson', '--journal', journal], clock);
    expect(result.code, result.stderr).toBe(0);
    const sent = new Set(service.current.posts.map((p) => p[0]));
    expect(sent.size).toBe(17);
    for (const i of [2, 5, 7]) expect(sent.has(recipients[i]!)).toBe(false);
    expect(sent.has(recipients[9]!)).toBe(true);
    expect(result.stderr).toContain('3 opted out (left out: they asked not to hear from this number)');
    // A run of well under a second says so, not "in 0s".
    expect(result.stderr).toMatch(/^Sent 17 requests in 0\.\d s \(/m);

    // The report counts the 20 of the file: 17 accepted and 3 opted out, who are not owed.
    const report = await run(['send', 'report', '--journal', journal], clock);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toMatch(/recipients\s+accepted\s+rejected\s+unknown\s+not yet sent\s+excluded\s+opted out\n\S+\s+20\s+17\s+0\s+0\s+0\s+0\s+3\n/);
    expect(report.stdout).toContain(`Left out: 3 opted out of ${FROM} (they asked not to hear from it; not owed; svc optouts list --number ${FROM} shows them)`);
    expect(report.stdout).toContain('Every recipient sent to was accepted.');
    // On a terminal the sentences are broken at spaces within its width; the table stays whole.
    const narrow = await run(['send', 'report', '--journal', journal], clock, { tty: true, columns: 60, env: { NO_COLOR: '1' } });
    const lines = narrow.stdout.trimEnd().split('\n');
    expect(lines[1]).toMatch(/^\S+\s+20\s+17\s+0\s+0\s+0\s+0\s+3$/);
    for (const line of lines.slice(2)) expect(line.length, line).toBeLessThanOrEqual(60);
    expect(lines).toContain(`Left out: 3 opted out of ${FROM} (they asked not to`);
    expect(lines).toContain(`${FROM} shows them)`);
    // An indented item keeps its indent on its later lines.
    expect(lines).toContain('  delivered 17  sent 0  sending 0  queued 0  failed 0');
    expect(lines).toContain('  unknown 0');
    const json = await run(['send', 'report', '--journal', journal, '--json'], clock);
    const document = JSON.parse(json.stdout) as { total: Record<string, number>; owed: unknown[] };
    expect(document.total).toEqual({ recipients: 20, accepted: 17, rejected: 0, unknown: 0, notYetSent: 0, excluded: 0, optedOut: 3, zoneUnknown: 0 });
    expect(document.owed).toEqual([]);
  });

  it('applies to --to, and says so when it leaves out the only recipient', async () => {
    const clock = fakeClock();
    service.start(FROM);
    const d = testDir();
    const store = join(d.dir, 'events');
    optOut(store, '+14155551002', FROM);
    const two = await run(['send', '--from', FROM, '--to', '+14155551001', '+14155551002', '--body', 'Hi', '--store', store, '--json'], clock);
    expect(two.code, two.stderr).toBe(0);
    expect(service.current.posts).toEqual([['+14155551001']]);
    expect(two.stderr).toContain('1 opted out');
    const one = await run(['send', '--from', FROM, '--to', '+14155551002', '--body', 'Hi', '--store', store], clock);
    expect(one.code).toBe(0);
    expect(one.stderr).toContain(`Nothing sent: the only recipient has opted out of ${FROM}`);
    expect(service.current.posts).toHaveLength(1);
  });

  it('sends to them with --ignore-optouts only when confirmed: asked on a terminal, --yes elsewhere', async () => {
    const clock = fakeClock();
    service.start(FROM);
    const d = testDir();
    const store = join(d.dir, 'events');
    optOut(store, '+14155551002', FROM);
    const args = ['send', '--from', FROM, '--to', '+14155551001', '+14155551002', '--body', 'Hi', '--store', store, '--ignore-optouts'];
    const piped = await run(args, clock);
    expect(piped.code).toBe(2);
    expect(piped.stderr).toContain('the 1 person on the opt-out list');
    expect(piped.stderr).toContain('--yes');
    const declined = scriptedPrompter({ 'opt-out list': false });
    const no = await run(args, clock, { tty: true, prompter: declined, env: { NO_COLOR: '1' } });
    expect(no.code).toBe(2);
    expect(declined.asked).toHaveLength(1);
    expect(service.current.posts).toHaveLength(0);
    const dry = await run([...args, '--dry-run'], clock);
    expect(dry.stdout).toContain('opted out   not left out (--ignore-optouts; the list holds 1');
    const yes = await run([...args, '--yes'], clock);
    expect(yes.code, yes.stderr).toBe(0);
    expect(service.current.posts).toEqual([['+14155551001', '+14155551002']]);
  });

  it('a --resume reads the list again: someone who opted out since the run began is not sent', async () => {
    const clock = fakeClock();
    // Every first attempt to 1003 and 1004 is rejected, so that the resume sends them again.
    service.start(FROM, (to, attempt) => attempt === 1 && (to === '+14155551003' || to === '+14155551004'));
    const { store, args } = journaledSend(6);
    const first = await run(args, clock);
    expect(first.code).toBe(6);
    expect(service.current.posts).toHaveLength(6);
    optOut(store, '+14155551003', FROM);
    const resumed = await run([...args, '--resume'], clock);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(service.current.posts.slice(6)).toEqual([['+14155551004']]);
    expect(resumed.stderr).toContain('1 opted out');
  });

  it('warns of a damaged line of the list and honours the rest', async () => {
    const clock = fakeClock();
    service.start(FROM);
    const d = testDir();
    const store = join(d.dir, 'events');
    optOut(store, '+14155551002', FROM);
    const { appendFileSync } = await import('node:fs');
    appendFileSync(join(store, 'optouts.ndjson'), '{"op":"out","number":"+14155551001"}\n');
    const result = await run(['send', '--from', FROM, '--to', '+14155551001', '+14155551002', '--body', 'Hi', '--store', store], clock);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('optouts.ndjson: 1 line could not be read (line 2)');
    expect(service.current.posts).toEqual([['+14155551001']]);
  });

  it("honours an every-number opt-out of the send's tenant only (--tenant, else SVC_TENANT), and one without a tenant everywhere", async () => {
    const clock = fakeClock();
    service.start(FROM);
    const d = testDir();
    const store = join(d.dir, 'events');
    const tenantA = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
    const tenantB = '9b2c1d7e-0a4f-4c1b-8e2d-5f6a7b8c9d0e';
    const stopAll = (number: string, tenant: string | undefined): void =>
      appendOptOutChanges(store, [
        { op: 'out', number, from: EVERY_NUMBER, at: '2026-01-01T00:00:00.000Z', cause: 'keyword', keyword: 'STOPALL', event: `dlv-${number}`, by: 'test', ...(tenant !== undefined ? { tenant } : {}) },
      ]);
    stopAll('+14155551001', tenantA);
    // Kept before opt-outs carried a tenant: whose it was cannot be told, so it applies to all.
    stopAll('+14155551002', undefined);
    const to = ['+14155551001', '+14155551002', '+14155551003'];
    const send = async (extra: string[], env: Record<string, string> = {}): Promise<string[]> => {
      const before = service.current.posts.length;
      const result = await run(['send', '--from', FROM, '--to', ...to, '--body', 'Hi', '--store', store, '--json', ...extra], clock, { env });
      expect(result.code, result.stderr).toBe(0);
      return service.current.posts.slice(before).flatMap((p) => p).sort();
    };
    expect(await send(['--tenant', tenantA])).toEqual(['+14155551003']);
    expect(await send([], { SVC_TENANT: tenantA })).toEqual(['+14155551003']);
    expect(await send(['--tenant', tenantB])).toEqual(['+14155551001', '+14155551003']);
    // No tenant known: every tenant's every-number opt-outs apply.
    expect(await send([])).toEqual(['+14155551003']);
    const bad = await run(['send', '--from', FROM, '--to', ...to, '--body', 'Hi', '--store', store, '--tenant', 'acme'], clock);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"acme"');
  });
});

describe('send report after a --resume that left out people who opted out since', () => {
  type Total = Record<'recipients' | 'accepted' | 'rejected' | 'unknown' | 'notYetSent' | 'excluded' | 'optedOut' | 'zoneUnknown', number>;
  const added = (total: Total): number => total.accepted + total.rejected + total.unknown + total.notYetSent + total.excluded + total.optedOut + total.zoneUnknown;

  it('counts someone rejected before and opted out since once, as opted out (not owed); totals add up to the list', async () => {
    const clock = fakeClock();
    service.start(FROM, (to, attempt) => attempt === 1 && (to === '+14155551003' || to === '+14155551004'));
    const { store, journal, args } = journaledSend(6);
    expect((await run(args, clock)).code).toBe(6);
    optOut(store, '+14155551003', FROM);
    const resumed = await run([...args, '--resume'], clock);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('1 rejected earlier is sent again');
    expect(resumed.stderr).toContain('1 rejected or of unknown outcome earlier has opted out since, and is not sent');
    // The journal itself names them: the report needs neither the opt-out list nor its state then.
    const resume = (await journalRecords(journal)).find((record) => record.type === 'resume');
    expect(resume).toMatchObject({ optedOutSince: ['+14155551003'], own: { recipients: 5, excluded: 0, optedOut: 1 } });

    const json = await run(['send', 'report', '--journal', journal, '--json'], clock);
    expect(json.code, json.stderr).toBe(0);
    const document = JSON.parse(json.stdout) as { total: Total; owed: unknown[] };
    expect(document.total).toEqual({ recipients: 6, accepted: 5, rejected: 0, unknown: 0, notYetSent: 0, excluded: 0, optedOut: 1, zoneUnknown: 0 });
    expect(added(document.total)).toBe(document.total.recipients);
    expect(document.owed).toEqual([]);
    const text = await run(['send', 'report', '--journal', journal], clock);
    expect(text.stdout).toMatch(/recipients\s+accepted\s+rejected\s+unknown\s+not yet sent\s+excluded\s+opted out\n\S+\s+6\s+5\s+0\s+0\s+0\s+0\s+1\n/);
    expect(text.stdout).toContain('Every recipient sent to was accepted.');
  });

  it('someone accepted who opts out later stays accepted, not counted as opted out', async () => {
    const clock = fakeClock();
    service.start(FROM, (to, attempt) => attempt === 1 && to === '+14155551004');
    const { store, journal, args } = journaledSend(6);
    expect((await run(args, clock)).code).toBe(6);
    // Accepted in the first session, then opted out: they were sent to, and that stands.
    optOut(store, '+14155551002', FROM);
    const resumed = await run([...args, '--resume'], clock);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(service.current.posts.slice(6)).toEqual([['+14155551004']]);
    const document = JSON.parse((await run(['send', 'report', '--journal', journal, '--json'], clock)).stdout) as { total: Total };
    expect(document.total).toEqual({ recipients: 6, accepted: 6, rejected: 0, unknown: 0, notYetSent: 0, excluded: 0, optedOut: 0, zoneUnknown: 0 });
  });

  it('someone of unknown outcome (in flight at a crash) who opted out since is not asked about, and is counted once, as opted out', async () => {
    const clock = fakeClock();
    service.start(FROM);
    const { store, journal, args } = journaledSend(4);
    expect((await run(args, clock)).code).toBe(0);
    dropResultsFor(journal, ['+14155551002']);
    optOut(store, '+14155551002', FROM);
    // No --unknown: the only recipient of unknown outcome is left out anyway, so there is nothing to choose.
    const resumed = await run([...args, '--resume'], clock);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('1 rejected or of unknown outcome earlier has opted out since, and is not sent');
    expect(service.current.posts).toHaveLength(4);
    const document = JSON.parse((await run(['send', 'report', '--journal', journal, '--json'], clock)).stdout) as { total: Total; owed: unknown[] };
    expect(document.total).toEqual({ recipients: 4, accepted: 3, rejected: 0, unknown: 0, notYetSent: 0, excluded: 0, optedOut: 1, zoneUnknown: 0 });
    expect(document.owed).toEqual([]);
  });

  it('a --resume with --ignore-optouts sends to those left out before, and the report no longer counts them as opted out', async () => {
    const clock = fakeClock();
    service.start(FROM, (to, attempt) => attempt === 1 && to === '+14155551003');
    const { store, journal, args } = journaledSend(4);
    optOut(store, '+14155551002', FROM);
    expect((await run(args, clock)).code).toBe(6);
    const resumed = await run([...args, '--resume', '--ignore-optouts', '--yes'], clock);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(service.current.posts.slice(3).flat().sort()).toEqual(['+14155551002', '+14155551003']);
    const document = JSON.parse((await run(['send', 'report', '--journal', journal, '--json'], clock)).stdout) as { total: Total };
    expect(document.total).toEqual({ recipients: 4, accepted: 4, rejected: 0, unknown: 0, notYetSent: 0, excluded: 0, optedOut: 0, zoneUnknown: 0 });
  });

  it('a report of a run stopped short says why the not yet sent are not named when some were left out as opted out', async () => {
    const clock = fakeClock();
    service.start(FROM);
    const d = testDir();
    const store = join(d.dir, 'events');
    optOut(store, '+12125550102', FROM);
    const file = d.file('to.txt', '+12125550101\n+12125550102\n+12125550103\n+12125550104\n');
    const prices = d.file('prices.csv', 'US,0.01,USD\n');
    const journal = join(d.dir, 'run.jsonl');
    const sent = await run(['send', '--from', FROM, '--to-file', file, '--body', 'Hi', '--async', '--store', store, '--journal', journal, '--prices', prices, '--budget', '0.01'], clock);
    expect(sent.code, sent.stderr).toBe(0);
    const report = await run(['send', 'report', '--journal', journal], clock);
    expect(report.stdout).toContain('Recipients still owed: 2 (0 rejected, 0 unknown, 2 not yet sent)');
    expect(report.stdout).toContain('  and 2 not yet sent, not named here: the journal does not name whom the run left out as opted out, so the list cannot tell those apart from these');
  });

  it('someone opted out at one resume and back in (START) before the next is owed again, then accepted', async () => {
    const clock = fakeClock();
    // 1003 is refused twice: once in the first session, once after opting back in.
    service.start(FROM, (to, attempt) => to === '+14155551003' && attempt <= 2);
    const { store, journal, args } = journaledSend(4);
    const report = async (): Promise<Total> => JSON.parse((await run(['send', 'report', '--journal', journal, '--json'], clock)).stdout).total as Total;
    expect((await run(args, clock)).code).toBe(6);
    optOut(store, '+14155551003', FROM);
    expect((await run([...args, '--resume'], clock)).code).toBe(0);
    expect(await report()).toMatchObject({ recipients: 4, accepted: 3, rejected: 0, optedOut: 1 });
    appendOptOutChanges(store, [{ op: 'in', number: '+14155551003', from: FROM, at: '2026-01-02T00:00:00.000Z', cause: 'keyword', keyword: 'START', event: 'dlv-start', by: 'test' }]);
    const again = await run([...args, '--resume'], clock);
    expect(again.code, again.stderr).toBe(1);
    const owedAgain = await report();
    expect(owedAgain).toMatchObject({ recipients: 4, accepted: 3, rejected: 1, optedOut: 0 });
    expect(added(owedAgain)).toBe(4);
    expect((await run([...args, '--resume'], clock)).code).toBe(0);
    expect(await report()).toMatchObject({ recipients: 4, accepted: 4, rejected: 0, optedOut: 0 });
  });
});
