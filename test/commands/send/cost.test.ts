import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeClock } from '../../helpers/cli.js';
import { numberServiceScope, testDir } from './helpers.js';

// The cost before sending: segments by encoding, what a GSM-7 spelling would save, the cost by
// country from --prices, and --budget stopping a run and a --resume going on with a larger one.

const FROM = '+15551230000';

const service = numberServiceScope();
const run = service.run;

const US = ['+12125551001', '+13105551002', '+17735551003', '+13035551004'];
const GB = '+442079460958';
const DE = '+4930123456';

describe('the cost of a send, before it is sent', () => {
  it('counts segments by encoding over every rendered message, and what a GSM-7 spelling would save', async () => {
    const clock = fakeClock();
    service.start(FROM);
    const d = testDir();
    const file = d.file('to.csv', `phone,name\n${US[0]},Ann\n${US[1]},Bob\n${GB},Zoë\n`);
    // 70 UCS-2 units fit one segment: the curly quote and the dash push this body to two, and
    // spelt in GSM-7 (for Ann and Bob; Zoë's ë keeps hers in UCS-2) it is one again.
    const body = `Hi {{name}} – it’s ${'x'.repeat(60)}`;
    const dry = await run(['send', '--from', FROM, '--to-file', file, '--body', body, '--dry-run', '--json', '--store', join(d.dir, 'events')], clock);
    expect(dry.code, dry.stderr).toBe(0);
    const doc = JSON.parse(dry.stdout) as Record<string, unknown>;
    expect(doc).toMatchObject({
      encoding: 'UCS-2',
      totalSegments: 6,
      byEncoding: { 'GSM-7': { messages: 0, segments: 0 }, 'UCS-2': { messages: 3, segments: 6 } },
      gsm7Spelling: { segments: 4, saves: 2, characters: [{ character: '–', as: '-' }, { character: '’', as: "'" }] },
    });
    const table = await run(['send', '--from', FROM, '--to-file', file, '--body', body, '--dry-run', '--store', join(d.dir, 'events')], clock);
    expect(table.stdout).toContain('gsm-7       spelling "–" as "-", "’" as "\'" would need 4 segments instead of 6: 2 fewer');
    expect(service.current.posts).toHaveLength(0);
  });

  it('adds the cost by country from --prices, naming recipients without a price', async () => {
    const clock = fakeClock();
    service.start(FROM);
    const d = testDir();
    const file = d.file('to.txt', `${[...US, GB, DE].join('\n')}\n`);
    const prices = d.file('prices.csv', 'country,price_per_segment,currency\nUS,0.0079,USD\nGB,0.04,USD\n');
    const dry = await run(['send', '--from', FROM, '--to-file', file, '--body', 'Hello', '--dry-run', '--json', '--prices', prices, '--store', join(d.dir, 'events')], clock);
    expect(dry.code, dry.stderr).toBe(0);
    expect((JSON.parse(dry.stdout) as { cost: unknown }).cost).toEqual({
      currency: 'USD',
      total: 0.0716,
      byCountry: [
        { country: 'GB', recipients: 1, segments: 1, pricePerSegment: 0.04, amount: 0.04 },
        { country: 'US', recipients: 4, segments: 4, pricePerSegment: 0.0079, amount: 0.0316 },
      ],
      unpriced: { recipients: 1, countries: ['DE'] },
    });
    const table = await run(['send', '--from', FROM, '--to-file', file, '--body', 'Hello', '--dry-run', '--prices', prices, '--store', join(d.dir, 'events')], clock);
    expect(table.stdout).toContain('cost        0.0716 USD for the priced recipients');
    expect(table.stdout).toContain('  US        4 recipients, 4 segments x 0.0079 = 0.0316 USD');
    expect(table.stdout).toContain('  unpriced  1 recipient in DE: no price for their country and no * line');
    // A budget needs every recipient priced: refused before anything is sent.
    const budget = await run(['send', '--from', FROM, '--to-file', file, '--body', 'Hello', '--prices', prices, '--budget', '1', '--store', join(d.dir, 'events')], clock);
    expect(budget.code).toBe(2);
    expect(budget.stderr).toContain(`1 recipient is in DE, which ${prices} gives no price for`);
    expect(service.current.posts).toHaveLength(0);
  });

  it.each([
    ['US,abc\n', ':1: "abc" is not a price per segment'],
    ['country,price\nUS,0.01\nXX,0.02\n', ':3: "XX" is not a country code'],
    ['US,0.01,USD\nGB,0.02,EUR\n', ':2: EUR, where line 1 says USD'],
    ['US,0.01\nus,0.02\n', ':2: US is priced again (first on line 1)'],
    ['US,0.01,USD,extra\n', ':1: 4 fields'],
    ['country,price\n', ': no prices in the file'],
  ])('refuses a bad prices file %j naming file:line, exit 2', async (content, message) => {
    const clock = fakeClock();
    service.start(FROM);
    const d = testDir();
    const prices = d.file('prices.csv', content);
    const result = await run(['send', '--from', FROM, '--to', US[0]!, '--body', 'Hi', '--prices', prices, '--dry-run', '--store', join(d.dir, 'events')], clock);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`--prices ${prices}${message}`);
  });

  it('refuses --budget without --prices, and a budget that is not an amount', async () => {
    const clock = fakeClock();
    service.start(FROM);
    const d = testDir();
    const store = join(d.dir, 'events');
    const alone = await run(['send', '--from', FROM, '--to', US[0]!, '--body', 'Hi', '--budget', '5', '--store', store], clock);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--budget needs --prices FILE');
    for (const bad of ['0', '-3', 'ten', '1.1234567']) {
      const result = await run(['send', '--from', FROM, '--to', US[0]!, '--body', 'Hi', '--budget', bad, '--store', store], clock);
      expect(result.code, bad).toBe(2);
      expect(result.stderr).toContain(`not "${bad}"`);
    }
    expect(service.current.posts).toHaveLength(0);
  });

  it('takes a budget written with the prices\' currency, and refuses one in another currency naming both (exit 2, nothing sent)', async () => {
    const clock = fakeClock();
    service.start(FROM);
    const d = testDir();
    const store = join(d.dir, 'events');
    const usd = d.file('usd.csv', 'country,price_per_segment,currency\nUS,0.0079,USD\n');
    const plain = d.file('plain.csv', 'US,0.0079\n');
    const send = (prices: string, budget: string) => run(['send', '--from', FROM, '--to', US[0]!, '--body', 'Hi', '--prices', prices, '--budget', budget, '--dry-run', '--json', '--store', store], clock);
    for (const given of ['5 USD', 'usd 5', ' 5 ']) {
      const taken = await send(usd, given);
      expect(taken.code, taken.stderr).toBe(0);
      expect((JSON.parse(taken.stdout) as { cost: { budget: number } }).cost.budget).toBe(5);
    }
    const other = await send(usd, '5 EUR');
    expect(other.code).toBe(2);
    const message = (stderr: string): string => (JSON.parse(stderr) as { error: { message: string } }).error.message;
    expect(message(other.stderr)).toBe(`--budget "5 EUR" is in EUR, but the prices in ${usd} are in USD: give the budget in USD`);
    const none = await send(plain, 'EUR 5');
    expect(none.code).toBe(2);
    expect(message(none.stderr)).toContain(`--budget "EUR 5" is in EUR, but ${plain} names no currency`);
    expect((await send(plain, '5')).code).toBe(0);
    expect(service.current.posts).toHaveLength(0);
  });

  it('stops launching before the budget would be passed, says where, and --resume with a larger budget goes on', async () => {
    const clock = fakeClock();
    service.start(FROM);
    const d = testDir();
    const recipients = Array.from({ length: 10 }, (_, i) => `+1212555${String(1000 + i)}`);
    const file = d.file('to.txt', `${recipients.join('\n')}\n`);
    const prices = d.file('prices.csv', 'US,0.01,USD\n');
    const journal = join(d.dir, 'run.jsonl');
    const args = ['send', '--from', FROM, '--to-file', file, '--body', 'Hello', '--async', '--prices', prices, '--journal', journal, '--store', join(d.dir, 'events')];
    const first = await run([...args, '--budget', '0.045'], clock);
    expect(first.code, first.stderr).toBe(0);
    expect(service.current.posts.map((p) => p[0])).toEqual(recipients.slice(0, 4));
    expect(first.stderr).toContain(`Stopped at the budget: 0.04 USD spent of 0.045 USD; the message to ${recipients[4]} would cost 0.01 USD more, so it and 5 more recipients were not sent.`);
    expect(first.stderr).toContain('--resume and a larger --budget');

    // The journal says where the run stopped: the report tells it, and why 6 are not yet sent.
    const report = await run(['send', 'report', '--journal', journal], clock);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toContain(
      `Stopped at the budget: 0.04 USD spent of 0.045 USD; the message to ${recipients[4]} would have cost 0.01 USD more, so it and the not yet sent after it were held back. To go on: the same svc send with --resume and a --budget above 0.045 USD.`,
    );
    expect(report.stdout).toContain('Recipients still owed: 6 (0 rejected, 0 unknown, 6 not yet sent)');
    const reportJson = await run(['send', 'report', '--journal', journal, '--json'], clock);
    const document = JSON.parse(reportJson.stdout) as { journals: { budgetStop: unknown }[] };
    expect(document.journals[0]!.budgetStop).toEqual({ budget: 0.045, spent: 0.04, next: 0.01, to: recipients[4], currency: 'USD', at: expect.any(String) });

    // Resumed without a budget, or with one no larger, it would send with no limit or stop at
    // once: refused before anything is sent, saying what to give.
    for (const budget of [[], ['--budget', '0.045'], ['--budget', '0.02']]) {
      const refused = await run([...args, ...budget, '--resume'], clock);
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toContain(`${journal}: the run stopped at its budget of 0.045 USD (0.04 USD spent; the message to ${recipients[4]} would have cost 0.01 USD more)`);
      expect(refused.stderr).toContain('give --resume a --budget above 0.045 USD');
    }
    expect(service.current.posts).toHaveLength(4);

    const more = await run([...args, '--budget', '0.08', '--resume'], clock);
    expect(more.code, more.stderr).toBe(0);
    expect(service.current.posts.map((p) => p[0])).toEqual(recipients.slice(0, 8));
    expect(more.stderr).toContain('0.08 USD spent of 0.08 USD, 0.04 USD of it by the run before');
    // The second stop is the one that binds now.
    const again = await run([...args, '--budget', '0.06', '--resume'], clock);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('the run stopped at its budget of 0.08 USD');
    const rest = await run([...args, '--budget', '1', '--resume'], clock);
    expect(rest.code, rest.stderr).toBe(0);
    expect(service.current.posts.map((p) => p[0])).toEqual(recipients);
    expect(rest.stderr).not.toContain('Stopped at the budget');
    // Resumed past the stop and finished: the report no longer says it stopped.
    const done = await run(['send', 'report', '--journal', journal], clock);
    expect(done.stdout).not.toContain('Stopped at the budget');
    expect(done.stdout).toContain('Every recipient was accepted.');
  });
});
