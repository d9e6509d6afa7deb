import { describe, expect, it } from 'vitest';
import { AimdLimiter } from '../../../src/send/pace/aimd.js';
import { PauseGate } from '../../../src/send/pace/pause-gate.js';
import { StallWatch } from '../../../src/send/pace/stall.js';
import { classifyThrottle, throttleBackoffMs } from '../../../src/send/pace/throttle.js';
import { effectiveRate, TokenBucket } from '../../../src/send/pace/token-bucket.js';
import { fakeClock } from '../../helpers/cli.js';

describe('classifyThrottle', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it('takes 429 with or without Retry-After, and 503 only with one (seconds or an HTTP date)', () => {
    expect(classifyThrottle(429, '3', now)).toEqual({ retryAfterMs: 3000 });
    expect(classifyThrottle(429, undefined, now)).toEqual({ retryAfterMs: undefined });
    expect(classifyThrottle(503, '2', now)).toEqual({ retryAfterMs: 2000 });
    expect(classifyThrottle(503, 'Thu, 01 Jan 2026 00:00:07 GMT', now)).toEqual({ retryAfterMs: 7000 });
    expect(classifyThrottle(503, 'Wed, 31 Dec 2025 23:00:00 GMT', now)).toEqual({ retryAfterMs: 0 });
    expect(classifyThrottle(503, undefined, now)).toBeUndefined();
    expect(classifyThrottle(503, 'soon', now)).toBeUndefined();
    for (const status of [400, 409, 500, 502, 504]) expect(classifyThrottle(status, '1', now)).toBeUndefined();
  });

  it('backs off from 1 s, doubling, at most 60 s', () => {
    expect(throttleBackoffMs(1, () => 0)).toBe(500);
    expect(throttleBackoffMs(1, () => 1)).toBe(1000);
    expect(throttleBackoffMs(3, () => 1)).toBe(4000);
    expect(throttleBackoffMs(30, () => 1)).toBe(60_000);
  });
});

describe('PauseGate', () => {
  it('holds every launch until the latest pause, through the injected clock', async () => {
    const clock = fakeClock();
    const gate = new PauseGate(clock);
    await gate.wait();
    expect(clock.sleeps).toEqual([]);
    gate.pauseFor(4000);
    gate.pauseFor(1000); // an earlier end does not shorten the pause
    expect(gate.pausedUntil()).toBe(clock.time + 4000);
    await gate.wait();
    expect(clock.sleeps).toEqual([4000]);
    expect(gate.pausedUntil()).toBeUndefined();
  });

  it('stops waiting at a limit without lifting the pause', async () => {
    const clock = fakeClock();
    const gate = new PauseGate(clock);
    const start = clock.time;
    gate.pauseFor(10_000);
    await gate.wait(undefined, start + 3000);
    expect(clock.time).toBe(start + 3000);
    expect(gate.pausedUntil()).toBe(start + 10_000);
  });
});

describe('StallWatch', () => {
  it('gives up only when nothing was accepted for the whole stall time', () => {
    const watch = new StallWatch(600_000, 0);
    expect(watch.stalled(599_999)).toBe(false);
    watch.progress(500_000);
    expect(watch.stalled(600_000)).toBe(false);
    expect(watch.stalled(1_100_000)).toBe(true);
    expect(watch.deadline()).toBe(1_100_000);
  });
});

describe('AimdLimiter', () => {
  it('starts at --concurrency, halves once per congestion event, grows back one per window', () => {
    const aimd = new AimdLimiter({ max: 16 });
    expect(aimd.limit).toBe(16);
    const tickets = Array.from({ length: 16 }, () => aimd.launch());
    // The whole window meets the limit: sixteen throttles, one decrease.
    expect(tickets.map((t) => aimd.throttled(t)).filter(Boolean)).toHaveLength(1);
    expect(aimd.limit).toBe(8);
    // A request launched after the decrease that is throttled again is a new event.
    expect(aimd.throttled(aimd.launch())).toBe(true);
    expect(aimd.limit).toBe(4);
    // One window's worth of acceptances (4, then a fifth as the window passes 4.9) adds one.
    for (let i = 0; i < 4; i++) aimd.accepted();
    expect(aimd.limit).toBe(4);
    aimd.accepted();
    expect(aimd.limit).toBe(5);
    for (let i = 0; i < 1000; i++) aimd.accepted();
    expect(aimd.limit).toBe(16);
  });

  it('never goes below one', () => {
    const aimd = new AimdLimiter({ max: 2 });
    for (let i = 0; i < 10; i++) aimd.throttled(aimd.launch());
    expect(aimd.limit).toBe(1);
  });
});

describe('TokenBucket', () => {
  it('paces to the rate in the long run, after a burst of half a second', () => {
    const bucket = new TokenBucket(100, 0);
    expect(bucket.burst).toBe(50);
    let now = 0;
    let sent = 0;
    while (now <= 10_000) {
      const wait = bucket.untilNext(now);
      if (wait > 0) now += wait;
      else if (bucket.take(now, 1) === 1) sent++;
    }
    expect(sent).toBeGreaterThanOrEqual(1050);
    expect(sent).toBeLessThanOrEqual(1051);
  });

  it('never lends a token: in any span of t seconds at most burst + rate * t leave, whatever the timer does', () => {
    const rate = 40;
    const bucket = new TokenBucket(rate, 0);
    const launches: number[] = [];
    let now = 0;
    // A timer that fires late by a varying amount, and batches asked for of varying size.
    let step = 0;
    while (now < 20_000) {
      const wait = bucket.untilNext(now);
      if (wait > 0) {
        now += wait + ((step * 7) % 13);
      } else {
        const n = bucket.take(now, 1 + (step % 9));
        expect(n).toBeGreaterThanOrEqual(1);
        for (let i = 0; i < n; i++) launches.push(now);
      }
      step++;
    }
    for (let i = 0; i < launches.length; i++) {
      for (let j = i; j < launches.length && launches[j]! - launches[i]! <= 2000; j++) {
        const span = (launches[j]! - launches[i]!) / 1000;
        expect(j - i + 1).toBeLessThanOrEqual(bucket.burst + rate * span + 1e-6);
      }
    }
    // And late timers cost nothing in the long run: the refill counts the time that passed.
    expect(launches.length).toBeGreaterThanOrEqual(bucket.burst + rate * 19.9);
  });

  it('refuses a rate that is not above 0, and takes the tightest cap', () => {
    expect(() => new TokenBucket(0, 0)).toThrow(RangeError);
    expect(effectiveRate(undefined, 50, 20)).toBe(20);
    expect(effectiveRate(undefined, undefined)).toBeUndefined();
    expect(effectiveRate(0, Number.NaN, 7)).toBe(7);
  });
});
