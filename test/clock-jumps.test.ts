import { describe, expect, it } from 'vitest';
import { fakeClock, runCli } from './helpers/cli.js';
import { createMockApi, MOCK_ENV } from './helpers/mock-api.js';
import { Pacer } from '../src/send/pace/pacer.js';
import { PauseGate } from '../src/send/pace/pause-gate.js';
import { order } from './commands/number/helpers.js';

// Durations follow a monotonic clock: stepping the wall clock (NTP, a user, a laptop waking up)
// neither stretches a timeout for ever nor fires it early, and pacing goes on at its rate.

const env = { ...MOCK_ENV };
const pending = order('Pending', [['+15551230001', 'Pending']]);
const HOUR = 3_600_000;

/** A fake clock whose wall time jumps by `step` before every sleep. */
function jumpingClock(step: number): ReturnType<typeof fakeClock> {
  const clock = fakeClock();
  const sleep = clock.sleep;
  clock.sleep = async (ms, signal) => {
    clock.jump(step);
    await sleep(ms, signal);
  };
  return clock;
}

describe('a wall clock that jumps', () => {
  it('order watch --timeout 8 still times out after 8 s when the clock steps back an hour at every poll', async () => {
    const api = createMockApi();
    api.expect('GET', 'phone-numbers/orders/42', { status: 200, body: pending }, { times: 5 });
    const clock = jumpingClock(-HOUR);
    const started = clock.monotonic();
    const result = await runCli(['order', 'watch', '42', '--interval', '2', '--timeout', '8', '--json'], { env, dispatcher: api.agent, clock });
    api.verify();
    expect(result.code).toBe(5);
    expect(clock.monotonic() - started).toBe(8000);
    expect(clock.sleeps).toEqual([2000, 2000, 2000, 2000]);
  });

  it('order watch --timeout 60 does not fire early when the clock steps forward an hour', async () => {
    const api = createMockApi();
    api.expect('GET', 'phone-numbers/orders/42', { status: 200, body: pending }, { times: 2 });
    api.expect('GET', 'phone-numbers/orders/42', { status: 200, body: order('Completed', [['+15551230001', 'Active']]) });
    const clock = jumpingClock(HOUR);
    const result = await runCli(['order', 'watch', '42', '--interval', '2', '--timeout', '60', '--json'], { env, dispatcher: api.agent, clock });
    api.verify();
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'Completed' });
  });

  it('send --rate paces at its rate whichever way the clock steps', async () => {
    for (const step of [-HOUR, HOUR]) {
      const clock = jumpingClock(step);
      const pacer = new Pacer({ clock, concurrency: 8, ratePerSecond: 20 });
      const start = clock.monotonic();
      let last = 0;
      for (let i = 0; i < 40; i++) {
        const admitted = pacer.admit(undefined, 1);
        if (typeof admitted !== 'number') await admitted;
        last = clock.monotonic() - start;
      }
      // 40 requests at 20 a second, the first burst free: under two seconds, never a stall.
      expect(last).toBeGreaterThan(1000);
      expect(last).toBeLessThanOrEqual(2000);
    }
  });

  it('a throttle pause and --max-stall last their length when the clock steps back', async () => {
    const clock = jumpingClock(-HOUR);
    const gate = new PauseGate(clock);
    const start = clock.monotonic();
    gate.pauseFor(4000);
    await gate.wait();
    expect(clock.monotonic() - start).toBe(4000);

    const stalled = jumpingClock(-HOUR);
    const pacer = new Pacer({ clock: stalled, concurrency: 2, maxStallMs: 10_000 });
    const from = stalled.monotonic();
    let verdict = pacer.throttled(pacer.launched(), 429, 3000);
    while (verdict === 'retry') {
      const admitted = pacer.admit(undefined, 1);
      if (typeof admitted !== 'number') await admitted;
      verdict = pacer.throttled(pacer.launched(), 429, 3000);
    }
    expect(verdict).toBe('give-up');
    expect(stalled.monotonic() - from).toBeGreaterThanOrEqual(10_000);
    expect(stalled.monotonic() - from).toBeLessThan(20_000);
  });
});
