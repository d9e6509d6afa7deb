import { afterEach, describe, expect, it } from 'vitest';
import { fakeClock, runCli, scriptedPrompter } from '../../helpers/cli.js';
import { MOCK_ENV } from '../../helpers/mock-api.js';
import { accepted, mockSends, numbers, testDir, type SendMock } from './helpers.js';

// One question per send, asked only when it matters: reach (beyond 100 recipients, with --async
// offered in the same question), cost (beyond 250 segments, or a message split into several
// segments). A one-segment message to a few people is sent without one, whatever its encoding.

const FROM = '+15551230000';
const A = '+15557650001';
const B = '+15557650002';

let mock: SendMock | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});
const run = (argv: string[], options: Parameters<typeof runCli>[1] = {}) =>
  runCli(argv, { clock: fakeClock(), ...options, env: { ...MOCK_ENV, NO_COLOR: '1', ...options.env }, ...(mock ? { dispatcher: mock.agent } : {}) });

describe('a small send asks nothing it need not', () => {
  it('a one-segment UCS-2 message to two people: the cost is shown, nothing is asked', async () => {
    mock = mockSends(accepted);
    const prompter = scriptedPrompter({}, { select: true });
    const result = await run(['send', '--from', FROM, '--to', A, B, '--body', 'Grüße ☀'], { tty: true, prompter });
    expect(result.code).toBe(0);
    expect(prompter.asked).toEqual([]);
    expect(result.stderr).toContain('This message is 7 characters, 1 segment per message in UCS-2 (because of "☀"); 2 segments in total for 2 recipients.');
    expect(mock.sends).toHaveLength(1);
  });

  it('over --budget, the cost shown before the question says the budget stops the run short of it', async () => {
    mock = mockSends(accepted);
    const prices = testDir().file('prices.csv', 'US,0.05,USD\n');
    const prompter = scriptedPrompter({ 'send 4 segments': false }, { select: true });
    const args = ['send', '--from', FROM, '--to', '+12125550101', '+13105550105', '--body', 'x'.repeat(200), '--prices', prices];
    const result = await run([...args, '--budget', '0.15'], { tty: true, prompter, columns: 300 });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('4 segments in total for 2 recipients, costing 0.20 USD; --budget 0.15 USD stops the run before it passes that.');
    const within = await run([...args, '--budget', '0.20'], { tty: true, prompter: scriptedPrompter({ 'send 4 segments': false }, { select: true }), columns: 300 });
    expect(within.stderr).toContain('costing 0.20 USD.');
    // Numbers no price covers are not free: the cost says whose it is.
    const unpriced = await run(['send', '--from', FROM, '--to', A, B, '--body', 'x'.repeat(200), '--prices', prices], { tty: true, prompter: scriptedPrompter({ 'send 4 segments': false }, { select: true }), columns: 300 });
    expect(unpriced.stderr).toContain('costing 0.00 USD for the priced recipients (2 without a price).');
    expect(mock.sends).toHaveLength(0);
  });

  it('a message split into segments asks once, naming them; "no" sends nothing (exit 2)', async () => {
    mock = mockSends(accepted);
    const prompter = scriptedPrompter({ 'send 4 segments': false }, { select: true });
    const result = await run(['send', '--from', FROM, '--to', A, B, '--body', 'x'.repeat(200)], { tty: true, prompter });
    expect(result.code).toBe(2);
    expect(prompter.asked).toEqual([`Send 4 segments to 2 recipients from ${FROM}?`]);
    expect(mock.sends).toHaveLength(0);
  });
});

describe('a bulk send asks once', () => {
  it('beyond 100 recipients: one question that offers --async; choosing it sends asynchronously', async () => {
    mock = mockSends(accepted);
    const file = testDir().file('to.txt', numbers(150).join('\n'));
    const prompter = scriptedPrompter({ 'send to 150 recipients': 'async' }, { select: true });
    const result = await run(['send', '--from', FROM, '--to-file', file, '--body', 'x'], { tty: true, prompter });
    expect(result.code).toBe(0);
    expect(prompter.asked).toEqual([`Send to 150 recipients from ${FROM} (${file})?`]);
    // The cursor starts on sending nothing, as a y/N question's default would.
    expect(prompter.preselected).toEqual({ [`Send to 150 recipients from ${FROM} (${file})?`]: undefined });
    expect(mock.sends).toHaveLength(150);
    expect(mock.sends.every((s) => s.query === 'isAsync=true')).toBe(true);
  });

  it('"synchronously" sends as asked; "no" sends nothing', async () => {
    mock = mockSends(accepted);
    const file = testDir().file('to.txt', numbers(101).join('\n'));
    const sync = await run(['send', '--from', FROM, '--to-file', file, '--body', 'x'], { tty: true, prompter: scriptedPrompter({ 'send to 101': 'sync' }, { select: true }) });
    expect(sync.code).toBe(0);
    expect(mock.sends.every((s) => s.query === 'isAsync=false')).toBe(true);
    const declined = await run(['send', '--from', FROM, '--to-file', file, '--body', 'x'], { tty: true, prompter: scriptedPrompter({ 'send to 101': 'no' }, { select: true }) });
    expect(declined.code).toBe(2);
    expect(declined.stderr).toContain('Nothing was done.');
    expect(mock.sends).toHaveLength(101);
  });

  it('with --async given, a yes/no question (nothing to offer); without a terminal, --yes and a warning', async () => {
    mock = mockSends(accepted);
    const file = testDir().file('to.txt', numbers(101).join('\n'));
    const prompter = scriptedPrompter({ 'send to 101': true }, { select: true });
    expect((await run(['send', '--from', FROM, '--to-file', file, '--body', 'x', '--async'], { tty: true, prompter })).code).toBe(0);
    expect(prompter.asked).toEqual([`Send to 101 recipients from ${FROM} (${file})?`]);
    const refused = await run(['send', '--from', FROM, '--to-file', file, '--body', 'x']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/send to 101 recipients .*--yes/);
    const piped = await run(['send', '--from', FROM, '--to-file', file, '--body', 'x', '--yes']);
    expect(piped.code).toBe(0);
    expect(piped.stderr).toContain('--async is advised beyond 100 recipients (101 here)');
    expect(mock.sends).toHaveLength(202);
  });
});

describe('--resume counts what remains', () => {
  it('asks about the recipients still to send, not the whole file', async () => {
    const all = numbers(250);
    // The first run is refused for the last 130, so 120 are accepted and 130 remain.
    const refusedFrom = all[120]!;
    mock = mockSends((request, index) => (request.body.to[0]! >= refusedFrom ? { status: 400, body: { message: 'refused for the test' } } : accepted(request, index)));
    const d = testDir();
    const file = d.file('to.txt', all.join('\n'));
    const journal = `${d.file('placeholder', '')}.jsonl`;
    const first = await run(['send', '--from', FROM, '--to-file', file, '--body', 'x', '--journal', journal, '--yes', '--async', '--concurrency', '1']);
    expect(first.code).toBe(6);
    const prompter = scriptedPrompter({ 'remaining recipients': 'no' }, { select: true });
    const resumed = await run(['send', '--from', FROM, '--to-file', file, '--body', 'x', '--journal', journal, '--resume'], { tty: true, prompter });
    expect(resumed.code).toBe(2);
    expect(prompter.asked).toEqual([`Send to 130 remaining recipients from ${FROM} (${file})?`]);
  });
});
