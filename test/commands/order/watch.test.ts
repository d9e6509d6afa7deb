import { describe, expect, it } from 'vitest';
import { fakeClock, runCli } from '../../helpers/cli.js';
import { createMockApi, MOCK_ENV } from '../../helpers/mock-api.js';
import { backoffSchedule, FETCH_GRACE_MS } from '../../../src/poll/poll.js';
import { InterruptedError } from '../../../src/errors.js';
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

  it('without a terminal, sees a change within 2 s for the first two minutes, then backs off: a five-minute order costs about seventy reads, never hundreds', async () => {
    const api = createMockApi();
    const clock = fakeClock();
    const started = clock.time;
    let reads = 0;
    let seenAt = 0;
    api.agent
      .get('https://api.test')
      .intercept({ method: 'GET', path: '/api/v1/phone-numbers/orders/42' })
      .reply(() => {
        reads++;
        const body = clock.time - started >= 300_000 ? completed : clock.time - started >= 10_000 ? processing : pending;
        if (body === processing && seenAt === 0) seenAt = clock.time - started;
        return { statusCode: 200, data: JSON.stringify(body), responseOptions: { headers: { 'content-type': 'application/json' } } };
      })
      .persist();
    const result = await runCli(['order', 'watch', '42'], { env, dispatcher: api.agent, clock });
    expect(result.code).toBe(0);
    // A change at 10 s is seen within 2 s of it.
    expect(seenAt).toBeGreaterThanOrEqual(10_000);
    expect(seenAt).toBeLessThanOrEqual(12_000);
    expect(clock.sleeps.slice(0, 3)).toEqual([2000, 2000, 2000]);
    expect(backoffSchedule(2000, 30_000, 1.5, 62).slice(59)).toEqual([2000, 3000, 4500]);
    expect(reads).toBeGreaterThan(60);
    expect(reads).toBeLessThanOrEqual(80);
    expect(Math.max(...clock.sleeps)).toBe(30_000);
  });

  it('on a terminal, where a person watches, sees a change within 2 s however long the order takes', async () => {
    const api = createMockApi();
    const clock = fakeClock();
    const started = clock.time;
    let seenAt = 0;
    api.agent
      .get('https://api.test')
      .intercept({ method: 'GET', path: '/api/v1/phone-numbers/orders/42' })
      .reply(() => {
        const body = clock.time - started >= 301_000 ? completed : pending;
        if (body === completed && seenAt === 0) seenAt = clock.time - started;
        return { statusCode: 200, data: JSON.stringify(body), responseOptions: { headers: { 'content-type': 'application/json' } } };
      })
      .persist();
    const result = await runCli(['order', 'watch', '42', '--no-color'], { env, dispatcher: api.agent, clock, tty: { stderr: true } });
    expect(result.code).toBe(0);
    // The order ended at 301 s, past the two minutes after which a script's pace grows.
    expect(seenAt - 301_000).toBeLessThanOrEqual(2_000);
    const waits = clock.sleeps.filter((ms) => ms >= 1_000);
    expect(Math.max(...waits)).toBe(2_000);

  });

  it('exits 5 on --timeout with the order as last seen, the last sleep cut to the deadline', async () => {
    const api = createMockApi();
    api.expect('GET', 'phone-numbers/orders/42', { status: 200, body: pending }, { times: 5 });
    const clock = fakeClock();
    const result = await runCli(['order', 'watch', '42', '--interval', '2', '--timeout', '7', '--json'], { env, dispatcher: api.agent, clock });
    expect(result.code).toBe(5);
    api.verify();
    expect(clock.sleeps).toEqual([2000, 2000, 2000, 1000]);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'Pending' });
    expect(result.stderr).toContain('"message":"Timed out waiting for order 42 after 7 s"');
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
    // Said once when it stops answering and once when it is back, not at every failed read.
    const lines = result.stderr.split('\n');
    expect(lines.filter((line) => line.includes('the service did not answer'))).toEqual([
      expect.stringMatching(/^warning: Order 42: the service did not answer \(.*502.*\); still trying$/),
    ]);
    // How long depends on the HTTP layer's jittered retries within the failed read.
    expect(lines.filter((line) => /^Order 42: the service answers again \(no answer for \d+ s\)$/.test(line))).toHaveLength(1);
  });

  it('ends with exit 130 on Ctrl-C, without another request, saying where the order stands and how to follow it again', async () => {
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
    const result = await runCli(['order', 'watch', '42', '--interval', '3', '--profile', 'work'], { env, dispatcher: api.agent, clock: fakeClock(), signal: controller.signal });
    expect(result.code).toBe(130);
    expect(reads).toBe(2);
    expect(result.stderr).not.toContain('error:');
    expect(result.stderr.trim().split('\n').slice(-2)).toEqual([
      'Stopped watching after 3 s. Order 42: Pending; 2 numbers: 2 Pending',
      'Follow it again: svc order watch 42 --interval 3 --profile work',
    ]);
    expect(result.stdout).toBe('');
  });

  it('on Ctrl-C with --json, prints the order as last seen and the way back in the error document', async () => {
    const api = createMockApi();
    const controller = new AbortController();
    let reads = 0;
    api.agent
      .get('https://api.test')
      .intercept({ method: 'GET', path: '/api/v1/phone-numbers/orders/42' })
      .reply(() => {
        // SIGTERM during the second read.
        if (++reads === 2) controller.abort(new InterruptedError('Terminated', 'SIGTERM'));
        return { statusCode: 200, data: JSON.stringify(processing), responseOptions: { headers: { 'content-type': 'application/json' } } };
      })
      .times(2);
    const result = await runCli(['order', 'watch', '42', '--json'], { env, dispatcher: api.agent, clock: fakeClock(), signal: controller.signal });
    expect(result.code).toBe(143);
    expect(JSON.parse(result.stdout)).toEqual(processing);
    // The last line of stderr (the ones before say what changed, as always when piped).
    expect(JSON.parse(result.stderr.trim().split('\n').at(-1)!)).toEqual({
      error: {
        status: null,
        message: 'Stopped watching after 2 s. Order 42: Processing; 2 numbers: 1 Active, 1 Pending',
        title: null,
        errorCode: null,
        hint: 'Follow it again: svc order watch 42',
      },
    });
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

describe('svc order watch: the time waited, and a service that stops answering', () => {
  it('counts the seconds on a terminal while a read hangs, warns at 5 s without an answer, and says when it is back', async () => {
    const server = await startTestServer();
    const clock = fakeClock();
    const json = (body: unknown) => (_req: unknown, res: import('node:http').ServerResponse): void => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    // The second read hangs for six seconds of the test's clock, a second at a time, then answers.
    const hang = (req: unknown, res: import('node:http').ServerResponse): void => {
      for (let i = 0; i < 6; i++) clock.advance(1000);
      json(completed)(req, res);
    };
    server.on('GET', '/api/v1/phone-numbers/orders/42', json(pending), hang);
    try {
      const result = await runCli(['order', 'watch', '42', '--no-color'], { env: { ...env, SVC_BASE_URL: server.url }, clock, tty: { stderr: true } });
      expect(result.code).toBe(0);
      // Every second shown in turn, the read in flight from 2 s to 8 s.
      let from = 0;
      for (const shown of ['(0 s)', '(2 s)', '(3 s)', '(4 s)', '(5 s)', '(6 s)', 'Order 42: the service answers again (no answer for 6 s)']) {
        const at = result.stderr.indexOf(shown, from);
        expect(at, `${shown} after ${result.stderr.slice(from, from + 200)}`).toBeGreaterThanOrEqual(0);
        from = at;
      }
      expect(result.stderr).toContain('warning: Order 42: no answer from the service for 5 s; still waiting');
      expect(result.stderr).toContain('Order 42: Pending (7 s)\n  no answer from the service for 5 s\n  +15551230001     Pending');
      expect(result.stderr).toContain('Order 42 Completed');
    } finally {
      await server.close();
    }
  });

  it('piped, says the same in plain lines, once each', async () => {
    const server = await startTestServer();
    const clock = fakeClock();
    const json = (body: unknown) => (_req: unknown, res: import('node:http').ServerResponse): void => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    const hang = (req: unknown, res: import('node:http').ServerResponse): void => {
      for (let i = 0; i < 9; i++) clock.advance(1000);
      json(completed)(req, res);
    };
    server.on('GET', '/api/v1/phone-numbers/orders/42', json(pending), hang);
    try {
      const result = await runCli(['order', 'watch', '42'], { env: { ...env, SVC_BASE_URL: server.url }, clock });
      expect(result.code).toBe(0);
      expect(result.stderr).toBe(
        [
          'order 42: Pending (+15551230001 Pending, +15551230002 Pending)',
          'warning: Order 42: no answer from the service for 5 s; still waiting',
          'Order 42: the service answers again (no answer for 9 s)',
          'order 42: Completed',
          'order 42: +15551230001 Active',
          'order 42: +15551230002 Active',
          '',
        ].join('\n'),
      );
    } finally {
      await server.close();
    }
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
    expect(down.stderr.match(/still trying/g)).toHaveLength(1);
    expect(down.stderr).toMatch(/error: .*503/);
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
