import { describe, expect, it } from 'vitest';
import { Pacer, type PaceEvent } from '../../../src/send/pace/pacer.js';
import { parseWindow, WindowSchedule } from '../../../src/send/pace/window.js';
import { fakeClock } from '../../helpers/cli.js';

describe('Pacer', () => {
  it('holds launches outside the window until it opens, and says when', async () => {
    const clock = fakeClock(Date.parse('2026-11-23T05:00:00Z')); // 06:00 in Berlin
    const events: PaceEvent[] = [];
    const pacer = new Pacer({
      clock,
      concurrency: 4,
      window: new WindowSchedule(parseWindow('09:00-20:00', 'Europe/Berlin')),
      onEvent: (e) => events.push(e),
    });
    await pacer.admit();
    expect(clock.time).toBe(Date.parse('2026-11-23T08:00:00Z'));
    expect(events[0]).toMatchObject({ type: 'window-closed', opensAtText: '2026-11-23 09:00 Europe/Berlin', windowText: '09:00-20:00 (Europe/Berlin)' });
    expect(events[1]).toEqual({ type: 'window-opened', closesAt: Date.parse('2026-11-23T19:00:00Z') });
    // Inside the window: no wait and no Intl call per launch.
    await pacer.admit();
    expect(clock.sleeps).toHaveLength(1);
    // A window wait is not a stall.
    expect(pacer.stall.deadline()).toBe(Date.parse('2026-11-23T08:10:00Z'));
  });

  it('pauses everyone after a throttle, for Retry-After or a backoff, and halves the limit', async () => {
    const clock = fakeClock();
    const events: PaceEvent[] = [];
    const pacer = new Pacer({ clock, concurrency: 8, random: () => 1, onEvent: (e) => events.push(e) });
    const tickets = [pacer.launched(), pacer.launched(), pacer.launched()];
    expect(pacer.throttled(tickets[0]!, 429, 4000)).toBe('retry');
    expect(pacer.throttled(tickets[1]!, 429, 4000)).toBe('retry');
    expect(pacer.limit).toBe(4);
    expect(events).toEqual([{ type: 'throttled', status: 429, waitMs: 4000, until: clock.time + 4000, retryAfterGiven: true }]);
    const start = clock.time;
    await pacer.admit();
    expect(clock.time - start).toBe(4000);
    // No Retry-After: 1 s, then 2 s while nothing is accepted; an acceptance starts over.
    expect(pacer.throttled(pacer.launched(), 429, undefined)).toBe('retry');
    await pacer.admit();
    expect(pacer.throttled(pacer.launched(), 429, undefined)).toBe('retry');
    await pacer.admit();
    expect(clock.sleeps.slice(-2)).toEqual([2000, 4000]);
    pacer.accepted();
    expect(pacer.throttled(pacer.launched(), 503, undefined)).toBe('retry');
    await pacer.admit();
    expect(clock.sleeps.at(-1)).toBe(1000);
    expect(pacer.throttleRetries).toBe(5);
  });

  it('gives up only after --max-stall without an acceptance', async () => {
    const clock = fakeClock();
    const pacer = new Pacer({ clock, concurrency: 2, maxStallMs: 10_000 });
    let verdict: string = 'retry';
    let tries = 0;
    while (verdict === 'retry' && tries < 100) {
      await pacer.admit();
      tries++;
      verdict = pacer.throttled(pacer.launched(), 429, 3000);
    }
    expect(verdict).toBe('give-up');
    // 0, 3, 6, 9 s, then the pause is cut at the 10 s deadline and that try decides.
    expect(tries).toBe(5);
    expect(clock.time - Date.parse('2026-01-01T00:00:00Z')).toBe(10_000);
  });

  it('paces launches to the rate', async () => {
    const clock = fakeClock();
    const pacer = new Pacer({ clock, concurrency: 8, ratePerSecond: 50 });
    for (let i = 0; i < 525; i++) await pacer.admit();
    // 25 tokens of burst (half a second), then 50 a second.
    expect(clock.time - Date.parse('2026-01-01T00:00:00Z')).toBe(10_000);
  });

  it('keeps the tokens of a stall of the service, up to half a second, and spends them when the answers come back', async () => {
    const clock = fakeClock();
    const start = clock.time;
    const pacer = new Pacer({ clock, concurrency: 64, ratePerSecond: 100 });
    // The burst, then paced: the 60th leaves 100 ms after the start.
    for (let i = 0; i < 60; i++) await pacer.admit();
    expect(clock.time - start).toBe(100);
    // Every request in flight waits 300 ms for the service: 30 tokens saved, spent at once.
    clock.advance(300);
    const sleepsBefore = clock.sleeps.length;
    await pacer.admit(undefined, 30);
    expect(clock.sleeps.length).toBe(sleepsBefore);
    // A stall longer than half a second saves no more than half a second's worth.
    clock.advance(2000);
    await pacer.admit(undefined, 50);
    expect(clock.sleeps.length).toBe(sleepsBefore);
    await pacer.admit(undefined, 1);
    expect(clock.sleeps.at(-1)).toBe(10);
  });

  it('lets requests leave one token at a time, never a batch that waited for its last token', async () => {
    const clock = fakeClock();
    const start = clock.time;
    // 2 a second: a burst of 1, then one every 500 ms, whatever the room for 8 in flight.
    const pacer = new Pacer({ clock, concurrency: 8, ratePerSecond: 2 });
    const leaves: [number, number][] = [];
    for (let sent = 0; sent < 8; ) {
      const n = await pacer.admit(undefined, 8 - sent);
      leaves.push([clock.time - start, n]);
      sent += n;
    }
    expect(leaves).toEqual([
      [0, 1],
      [500, 1],
      [1000, 1],
      [1500, 1],
      [2000, 1],
      [2500, 1],
      [3000, 1],
      [3500, 1],
    ]);
  });

  it('looks at the window again after a throttle pause or a token wait: nothing leaves after it closed', async () => {
    const window = new WindowSchedule(parseWindow('09:00-20:00', 'Europe/Berlin'));
    // 19:59:58 in Berlin; the service asks for 4 s.
    const clock = fakeClock(Date.parse('2026-11-23T18:59:58Z'));
    const events: PaceEvent[] = [];
    const pacer = new Pacer({ clock, concurrency: 4, window, maxStallMs: 3_600_000, onEvent: (e) => events.push(e) });
    expect(await pacer.admit()).toBe(1);
    pacer.throttled(pacer.launched(), 429, 4000);
    expect(await pacer.admit()).toBe(1);
    // Not at 20:00:02, when the pause ended and the window was closed, but when it opened again.
    expect(clock.time).toBe(Date.parse('2026-11-24T08:00:00Z'));
    expect(events.map((e) => e.type)).toEqual(['throttled', 'window-closed', 'window-opened']);

    // The same for a wait for a token of the rate.
    const late = fakeClock(Date.parse('2026-11-23T18:59:59.800Z'));
    const paced = new Pacer({ clock: late, concurrency: 4, window, ratePerSecond: 1 });
    expect(await paced.admit()).toBe(1);
    expect(await paced.admit()).toBe(1);
    expect(late.time).toBe(Date.parse('2026-11-24T08:00:00Z'));
  });

  it('shows a throttle wait no longer than the time left before --max-stall', () => {
    const clock = fakeClock();
    const events: PaceEvent[] = [];
    const pacer = new Pacer({ clock, concurrency: 2, maxStallMs: 10_000, onEvent: (e) => events.push(e) });
    clock.advance(8000);
    pacer.throttled(pacer.launched(), 429, 60_000);
    expect(events).toEqual([{ type: 'throttled', status: 429, waitMs: 2000, until: clock.time + 2000, retryAfterGiven: true }]);
  });
});
