import { describe, expect, it } from 'vitest';
import { fakeClock, runCli } from '../../helpers/cli.js';
import { createMockApi, MOCK_ENV } from '../../helpers/mock-api.js';
import { backoffSchedule, FETCH_GRACE_MS } from '../../../src/poll/poll.js';
import { order } from '../number/helpers.js';
import { startTestServer } from '../../helpers/http-server.js';

const env = { ...MOCK_ENV };
const pending = order('Pending', [['+15551230001', 'Pending'], ['+15551230002', 'Pending']]);
const processing = order('Processing', [['+15551230001', 'Active'], ['+15551230002', 'Pending']]);
const completed = order('Completed', [['+15551230001', 'Active'], ['+15551230002', 'Active']]);

describe('svc order get', () => {
  it('prints the order the server returned with --json, and a view with each number otherwise', async () => {
    const api = createMockApi();
    api.expect('GET', 'phone-numbers/orders/42', { status: 200, body: { ...processing, extraField: 'kept' } }, { times: 3 });
    const json = await runCli(['order', 'get', '42', '--json'], { env, dispatcher: api.agent });
    expect(JSON.parse(json.stdout)).toEqual({ ...processing, extraField: 'kept' });
    const tty = await runCli(['order', 'get', '42', '--no-color'], { env, dispatcher: api.agent, tty: true });
    expect(tty.stdout).toContain('Order 42');
    expect(tty.stdout).toMatch(/status\s+Processing/);
    expect(tty.stdout).toMatch(/NUMBER\s+STATUS/);
    expect(tty.stdout).toMatch(/\+15551230002\s+Pending/);
    const piped = await runCli(['order', 'get', '42'], { env, dispatcher: api.agent });
    expect(piped.stdout).toContain('phoneNumbers[0].status\tActive\n');
    api.verify();
  });

  it('refuses an order id that cannot be one, and maps 404 to exit 4', async () => {
    const api = createMockApi();
    expect((await runCli(['order', 'get', '../tenants'], { env, dispatcher: api.agent })).code).toBe(2);
    // Order ids are numbers: a word is a typo, told at once (the fake fails on any request).
    const word = await runCli(['order', 'get', 'abc'], { env, dispatcher: api.agent });
    expect(word.code).toBe(2);
    expect(word.stderr).toContain('not "abc"');
    expect((await runCli(['order', 'watch', 'o-1'], { env, dispatcher: api.agent })).code).toBe(2);
    api.expect('GET', 'phone-numbers/orders/999', { status: 404, body: { message: 'Order 999 was not found', title: 'Not Found', errorCode: 'NOT_FOUND' } });
    const missing = await runCli(['order', 'get', '999'], { env, dispatcher: api.agent });
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain('Order 999 was not found');
  });
});

describe('svc order watch: polling', () => {
  it('backs off from SVC_ORDER_POLL_MS, prints one line per change on stderr and the final table on stdout', async () => {
    const api = createMockApi();
    api.expect('GET', 'phone-numbers/orders/42', { status: 200, body: pending }, { times: 2 });
    api.expect('GET', 'phone-numbers/orders/42', { status: 200, body: processing }, { times: 3 });
    api.expect('GET', 'phone-numbers/orders/42', { status: 200, body: completed });
    const clock = fakeClock();
    const result = await runCli(['order', 'watch', '42'], { env: { ...env, SVC_ORDER_POLL_MS: '200' }, dispatcher: api.agent, clock });
    expect(result.code).toBe(0);
    api.verify();
    expect(api.seen).toHaveLength(6);
    // backoffSchedule rounds for display; the waits themselves are not rounded.
    expect(clock.sleeps.map(Math.round)).toEqual(backoffSchedule(200, 30_000, 1.5, 5));
    expect(clock.sleeps).toEqual([200, 300, 450, 675, 1012.5]);
    expect(result.stderr).toBe(
      [
        'order 42: Pending (+15551230001 Pending, +15551230002 Pending)',
        'order 42: Processing',
        'order 42: +15551230001 Active',
        'order 42: Completed',
        'order 42: +15551230002 Active',
        '',
      ].join('\n'),
    );
    expect(result.stdout).toBe('+15551230001\tActive\t00000000-0000-4000-8000-000000000000\t\n+15551230002\tActive\t00000000-0000-4000-8000-000000000001\t\n');
  });

  it('--interval (seconds, fractions allowed) wins over SVC_ORDER_POLL_MS', async () => {
    const api = createMockApi();
    api.expect('GET', 'phone-numbers/orders/42', { status: 200, body: pending }, { times: 2 });
    api.expect('GET', 'phone-numbers/orders/42', { status: 200, body: completed });
    const clock = fakeClock();
    const result = await runCli(['order', 'watch', '42', '--interval', '0.2'], { env: { ...env, SVC_ORDER_POLL_MS: '9000' }, dispatcher: api.agent, clock });
    expect(result.code).toBe(0);
    expect(clock.sleeps).toEqual([200, 300]);
  });

  it('costs a couple of dozen requests for a five-minute order at the default interval, never hundreds', async () => {
    const api = createMockApi();
    const clock = fakeClock();
    const started = clock.time;
    let reads = 0;
    api.agent
      .get('https://api.test')
      .intercept({ method: 'GET', path: '/api/v1/phone-numbers/orders/42' })
      .reply(() => {
        reads++;
        const body = clock.time - started >= 300_000 ? completed : pending;
        return { statusCode: 200, data: JSON.stringify(body), responseOptions: { headers: { 'content-type': 'application/json' } } };
      })
      .persist();
    const result = await runCli(['order', 'watch', '42'], { env, dispatcher: api.agent, clock });
    expect(result.code).toBe(0);
    expect(reads).toBeGreaterThan(5);
    expect(reads).toBeLessThanOrEqual(25);
    expect(Math.max(...clock.sleeps)).toBe(30_000);
    expect(clock.sleeps.slice(0, 3)).toEqual([2000, 3000, 4500]);
  });

  it('exits 5 on --timeout with the order as last seen, the last sleep cut to the deadline', async () => {
    const api = createMockApi();
    api.expect('GET', 'phone-numbers/orders/42', { status: 200, body: pending }, { times: 4 });
    const clock = fakeClock();
    const result = await runCli(['order', 'watch', '42', '--interval', '2', '--timeout', '8', '--json'], { env, dispatcher: api.agent, clock });
    expect(result.code).toBe(5);
    api.verify();
    expect(clock.sleeps).toEqual([2000, 3000, 3000]);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'Pending' });
    expect(result.stderr).toContain('"message":"Timed out waiting for order 42 after 8 s"');
  });

  it('exits 5 when the order fails, after printing the table with each number', async () => {
    const api = createMockApi();
    const failed = { ...order('Failed', []), phoneNumbers: [{ number: '+15550101234', status: 'Failed', errorMessage: 'Refused by carrier' }] };
    api.expect('GET', 'phone-numbers/orders/42', { status: 200, body: failed });
    const result = await runCli(['order', 'watch', '42', '--no-color'], { env, dispatcher: api.agent, clock: fakeClock(), tty: { stdout: true } });
    expect(result.code).toBe(5);
    expect(result.stdout).toMatch(/\+15550101234\s+Failed\s+\S*\s+Refused by carrier/);
    expect(result.stderr).toContain('error: Order 42 ended Failed: +15550101234 (Refused by carrier)');
  });

  it('stops on a completionDate even with a status it does not know', async () => {
    const api = createMockApi();
    api.expect('GET', 'phone-numbers/orders/42', { status: 200, body: { ...completed, status: 'Closed' } });
    const result = await runCli(['order', 'watch', '42', '--json'], { env, dispatcher: api.agent, clock: fakeClock() });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'Closed' });
  });

  it('rides out a brief server failure while waiting, warning on stderr', async () => {
    const api = createMockApi();
    api.expect('GET', 'phone-numbers/orders/42', { status: 200, body: pending });
    api.expect('GET', 'phone-numbers/orders/42', { status: 502, body: 'Bad gateway' }, { times: 4 });
    api.expect('GET', 'phone-numbers/orders/42', { status: 200, body: completed });
    const clock = fakeClock();
    const result = await runCli(['order', 'watch', '42', '--interval', '1'], { env, dispatcher: api.agent, clock });
    expect(result.code).toBe(0);
    api.verify();
    expect(result.stderr).toContain('warning: reading order 42 failed');
  });

  it('ends with exit 130 on Ctrl-C, without another request', async () => {
    const api = createMockApi();
    const controller = new AbortController();
    let reads = 0;
    api.agent
      .get('https://api.test')
      .intercept({ method: 'GET', path: '/api/v1/phone-numbers/orders/42' })
      .reply(() => {
        reads++;
        if (reads === 2) controller.abort();
        return { statusCode: 200, data: JSON.stringify(pending), responseOptions: { headers: { 'content-type': 'application/json' } } };
      })
      .persist();
    const result = await runCli(['order', 'watch', '42'], { env, dispatcher: api.agent, clock: fakeClock(), signal: controller.signal });
    expect(result.code).toBe(130);
    expect(reads).toBe(2);
  });
});

describe('svc order watch: on a terminal', () => {
  it('shows a spinner with the order and each number on stderr, updated as they change, then the table', async () => {
    const api = createMockApi();
    api.expect('GET', 'phone-numbers/orders/42', { status: 200, body: pending });
    api.expect('GET', 'phone-numbers/orders/42', { status: 200, body: processing });
    api.expect('GET', 'phone-numbers/orders/42', { status: 200, body: completed });
    const result = await runCli(['order', 'watch', '42', '--no-color'], { env, dispatcher: api.agent, clock: fakeClock(), tty: true });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('Order 42: Pending');
    expect(result.stderr).toContain('Order 42: Processing');
    expect(result.stderr).toMatch(/\+15551230001\s+Active/);
    expect(result.stderr).toContain('Order 42 Completed');
    expect(result.stderr).not.toContain('order 42: Processing');
    expect(result.stdout).toMatch(/NUMBER\s+STATUS\s+PHONE NUMBER ID/);
    expect(result.stdout).toMatch(/\+15551230002\s+Active/);
  });
});

describe('svc order watch: failures that end the wait', () => {
  it('stops at once on 404 (exit 4) and after too many failed reads in a row (exit 1)', async () => {
    const api = createMockApi();
    api.expect('GET', 'phone-numbers/orders/42', { status: 404, body: { message: 'Order 42 was not found' } });
    const missing = await runCli(['order', 'watch', '42'], { env, dispatcher: api.agent, clock: fakeClock() });
    expect(missing.code).toBe(4);
    api.verify();
    api.expect('GET', 'phone-numbers/orders/43', { status: 503, body: 'down' }, { times: 6 * 4 });
    const down = await runCli(['order', 'watch', '43', '--interval', '1'], { env, dispatcher: api.agent, clock: fakeClock() });
    expect(down.code).toBe(1);
    api.verify();
    expect(down.stderr.match(/still waiting/g)).toHaveLength(5);
  });
});

describe('svc order watch: a read that never answers', () => {
  it('still ends at --timeout (exit 5), not after the per-request timeout and its retries', async () => {
    const server = await startTestServer();
    const json = (body: unknown) => (_req: unknown, res: import('node:http').ServerResponse): void => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    const clock = fakeClock();
    // The first read answers; the second hangs until the connection is closed, while the clock
    // moves past the deadline (and the least time a read is given), as it would in real time.
    server.on('GET', '/api/v1/phone-numbers/orders/42', json(pending), () => clock.advance(FETCH_GRACE_MS));
    try {
      const result = await runCli(['order', 'watch', '42', '--timeout', '0.5', '--interval', '0.1'], {
        env: { ...env, SVC_BASE_URL: server.url },
        clock,
      });
      expect(result.code).toBe(5);
      expect(result.stderr).toContain('Timed out waiting for order 42');
      expect(server.requests).toHaveLength(2);
    } finally {
      await server.close();
    }
  });
});
