import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/clock.js';
import { CliError, ExitCode } from '../../src/errors.js';
import { SharedPause } from '../../src/fleet/reads.js';
import { fakeClock, runCli } from '../helpers/cli.js';
import { createMockApi, MOCK_ENV, MOCK_ORIGIN, type MockApi } from '../helpers/mock-api.js';

// The reads of a fleet run share one pause on a 429: the first throttled answer starts it, the
// reads in flight join it instead of each waiting its own, and no read is sent while it lasts.

/** A clock whose sleeps end only when the test moves time past them. */
function steppedClock(): Clock & { advance(ms: number): void; sleeps: number[]; pending(): number } {
  let now = 1_000_000;
  const timers: { at: number; wake: () => void }[] = [];
  return {
    sleeps: [],
    now: () => now,
    monotonic: () => now,
    timeout: () => new AbortController().signal,
    sleep(ms: number) {
      this.sleeps.push(ms);
      return new Promise<void>((resolve) => timers.push({ at: now + ms, wake: resolve }));
    },
    advance(ms: number) {
      now += ms;
      for (const timer of timers.filter((t) => t.at <= now)) {
        timers.splice(timers.indexOf(timer), 1);
        timer.wake();
      }
    },
    pending: () => timers.length,
  };
}

function throttle(retryAfterMs: number | undefined): CliError {
  const error = new CliError('Too many requests', ExitCode.Failure, { status: 429 });
  error.retryAfterMs = retryAfterMs;
  return error;
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('SharedPause', () => {
  it('one pause for every read in flight: later 429s of reads sent before it join it; new reads wait for its end', async () => {
    const clock = steppedClock();
    const pause = new SharedPause(clock);
    const sent = await Promise.all([pause.ready(), pause.ready(), pause.ready()]);
    expect(sent).toEqual([0, 0, 0]);
    const resumed: string[] = [];
    // Three reads sent together all come back 429 with Retry-After: 2.
    const retries = sent.map((generation, i) => pause.throttled(generation, throttle(2000)).then(() => resumed.push(`retry ${i}`)));
    // A read that was about to go out waits too.
    const next = pause.ready().then(() => resumed.push('next'));
    await settle();
    expect(clock.sleeps).toEqual([2000]);
    expect(pause.pauses).toBe(1);
    clock.advance(1999);
    await settle();
    expect(resumed).toEqual([]);
    clock.advance(1);
    await Promise.all([...retries, next]);
    expect(resumed.sort()).toEqual(['next', 'retry 0', 'retry 1', 'retry 2']);
    expect(clock.pending()).toBe(0);
  });

  it('a 429 to a read sent after the pause is a new pause; a Retry-After past 30 s is the error, not a wait', async () => {
    const clock = steppedClock();
    const pause = new SharedPause(clock);
    const first = pause.throttled(await pause.ready(), throttle(1000));
    await settle();
    clock.advance(1000);
    await first;
    const second = pause.throttled(await pause.ready(), throttle(3000));
    await settle();
    expect(clock.sleeps).toEqual([1000, 3000]);
    clock.advance(3000);
    await second;
    const tooLong = throttle(120_000);
    await expect(pause.throttled(await pause.ready(), tooLong)).rejects.toBe(tooLong);
  });

  it('gives up when nothing has been answered for ten minutes of pauses', async () => {
    const clock = steppedClock();
    const pause = new SharedPause(clock);
    for (let waited = 0; waited < 600_000; waited += 30_000) {
      const p = pause.throttled(await pause.ready(), throttle(30_000));
      await settle();
      clock.advance(30_000);
      await p;
    }
    const last = throttle(30_000);
    await expect(pause.throttled(await pause.ready(), last)).rejects.toBe(last);
    // An answer in between starts the count again.
    pause.progress();
    const again = pause.throttled(await pause.ready(), throttle(1000));
    await settle();
    clock.advance(1000);
    await again;
  });
});

const T1 = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';

describe('svc diff against a service that throttles', () => {
  let dir: string;
  let api: MockApi;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-reads-'));
    api = createMockApi();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('pages in flight that meet 429 wait out one pause together, then are read again; the plan is right', async () => {
    const numbers = Array.from({ length: 500 }, (_, i) => `+1555000${String(1000 + i)}`);
    const file = ['version: 1', 'tenants:', `  - tenantId: ${T1}`, 'numbers:', ...numbers.flatMap((n) => [`  - number: "${n}"`, `    tenant: ${T1}`, '    type: SMS', '    class: P2P'])].join('\n');
    writeFileSync(join(dir, 'fleet.yaml'), `${file}\n`);
    const clock = fakeClock();
    const arrivals: string[] = [];
    const page = (p: number) => ({
      items: numbers.slice((p - 1) * 100, p * 100).map((n) => ({ phoneNumber: n, status: 'Active', tenantId: T1, provisionType: 'SMS', provisionClass: 'P2P' })),
      page: p,
      limit: 100,
      total: numbers.length,
    });
    api.expect('GET', '/tenants', { status: 200, body: [{ tenantId: T1, settings: {} }] });
    api.expect('GET', '/phone-numbers/active?page=1&limit=100', { status: 200, body: page(1) });
    const pool = api.agent.get(MOCK_ORIGIN);
    for (const p of [2, 3, 4, 5]) {
      const path = `/api/v1/phone-numbers/active?page=${p}&limit=100`;
      if (p === 2 || p === 3) {
        pool.intercept({ method: 'GET', path }).reply(() => {
          arrivals.push(`page ${p} at ${clock.monotonic() - Date.parse('2026-01-01T00:00:00Z')} (429)`);
          return { statusCode: 429, data: JSON.stringify({ message: 'Too many requests', title: 'Too Many Requests', errorCode: 'RATE_LIMITED' }), responseOptions: { headers: { 'content-type': 'application/json', 'retry-after': '2' } } };
        });
      }
      pool.intercept({ method: 'GET', path }).reply(() => {
        arrivals.push(`page ${p} at ${clock.monotonic() - Date.parse('2026-01-01T00:00:00Z')}`);
        return { statusCode: 200, data: JSON.stringify(page(p)), responseOptions: { headers: { 'content-type': 'application/json' } } };
      });
    }
    const result = await runCli(['diff', '-f', join(dir, 'fleet.yaml'), '--exit-code'], { env: { ...MOCK_ENV, SVC_CONFIG_DIR: dir, SVC_DATA_DIR: dir }, dispatcher: api.agent, clock });
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('No changes');
    expect(result.code).toBe(0);
    // One pause of the Retry-After, not one per throttled page.
    expect(clock.sleeps).toEqual([2000]);
    // Pages 2 and 3 were sent before the pause and read again after it; 4 and 5 went out with them.
    expect(arrivals.filter((a) => a.endsWith('(429)')).sort()).toEqual(['page 2 at 0 (429)', 'page 3 at 0 (429)']);
    expect(arrivals.filter((a) => /^page [23] at \d+$/.test(a)).sort()).toEqual(['page 2 at 2000', 'page 3 at 2000']);
  });
});
