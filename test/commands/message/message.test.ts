import { afterEach, describe, expect, it } from 'vitest';
import { fakeClock, runCli } from '../../helpers/cli.js';
import { createMockApi, MOCK_ENV, type MockApi } from '../../helpers/mock-api.js';
import { startTestServer } from '../../helpers/http-server.js';
import { FETCH_GRACE_MS } from '../../../src/poll/poll.js';

const ID = '0b0a6c8e-2f7a-4a55-9b1e-3d7c2a1f9e10';
const message = (status: string, extra: Record<string, unknown> = {}) => ({ messageId: ID, from: '+15551230000', to: '+15557650001', status, segmentCount: 1, ...extra });

let mock: MockApi;
afterEach(async () => {
  await mock.agent.close();
});

describe('svc message get', () => {
  it('prints the object as returned, unknown fields kept', async () => {
    mock = createMockApi();
    mock.expect('GET', `messages/${ID}`, { status: 200, body: message('sent', { carrier: 'x' }) });
    const result = await runCli(['message', 'get', ID, '--json'], { env: MOCK_ENV, dispatcher: mock.agent });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(message('sent', { carrier: 'x' }));
  });
  it('refuses an id that is not a GUID before any request (exit 2)', async () => {
    mock = createMockApi();
    for (const argv of [['message', 'get', '123'], ['message', 'watch', '123'], ['message', 'get', 'm-1']]) {
      const result = await runCli(argv, { env: MOCK_ENV, dispatcher: mock.agent });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`a GUID like`);
      expect(result.stderr).toContain(`not "${argv[2]}"`);
    }
    mock.verify();
  });
  it('tells its times relative to now on a terminal, and as the service sent them when piped', async () => {
    mock = createMockApi();
    const times = { queuedAt: '2026-01-01T00:00:00Z', sentAt: '2026-01-01T00:02:30Z', deliveredAt: null };
    mock.expect('GET', `messages/${ID}`, { status: 200, body: message('sent', times) }, { times: 2 });
    const clock = fakeClock(Date.parse('2026-01-01T03:00:00Z'));
    const tty = await runCli(['message', 'get', ID, '--no-color'], { env: MOCK_ENV, dispatcher: mock.agent, tty: true, clock });
    expect(tty.stdout).toMatch(/^queuedAt +3 h ago$/m);
    expect(tty.stdout).toMatch(/^sentAt +2 h ago$/m);
    const piped = await runCli(['message', 'get', ID], { env: MOCK_ENV, dispatcher: mock.agent, clock });
    expect(piped.stdout).toContain('queuedAt\t2026-01-01T00:00:00Z\n');
    expect(piped.stdout).toContain('sentAt\t2026-01-01T00:02:30Z\n');
  });
  it('never cuts an id on a narrow terminal: one too wide beside its name goes whole on the next line', async () => {
    mock = createMockApi();
    mock.expect('GET', `messages/${ID}`, { status: 200, body: message('sent', { errorMessage: 'x'.repeat(60) }) });
    const tty = await runCli(['message', 'get', ID, '--no-color'], { env: MOCK_ENV, dispatcher: mock.agent, tty: true, columns: 40 });
    expect(tty.stdout).toContain(`messageId\n  ${ID}\n`);
    // Free text is still cut to the terminal, on screen only.
    expect(tty.stdout).toMatch(/^errorMessage +x+…$/m);
    // Every field line fits (the title names the id whole, and the terminal wraps it).
    for (const line of tty.stdout.trimEnd().split('\n').slice(1)) expect(line.length, line).toBeLessThanOrEqual(40);
  });
  it('exits 4 for an unknown message', async () => {
    mock = createMockApi();
    mock.expect('GET', `messages/${ID}`, { status: 404, body: { message: 'not found' } });
    expect((await runCli(['message', 'get', ID], { env: MOCK_ENV, dispatcher: mock.agent })).code).toBe(4);
  });
});

describe('svc message watch', () => {
  it('polls with growing waits until delivered, exit 0', async () => {
    mock = createMockApi();
    for (const status of ['queued', 'sending', 'sending', 'sent', 'delivered']) mock.expect('GET', `messages/${ID}`, { status: 200, body: message(status) });
    const clock = fakeClock();
    const result = await runCli(['message', 'watch', ID, '--json'], { env: { ...MOCK_ENV, SVC_ORDER_POLL_MS: '100' }, dispatcher: mock.agent, clock });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).status).toBe('delivered');
    expect(clock.sleeps).toEqual([100, 150, 225, 337.5]);
    expect(result.stderr.trim().split('\n')).toEqual([`Message ${ID}: queued`, `Message ${ID}: sending`, `Message ${ID}: sent`, `Message ${ID}: delivered`]);
    mock.verify();
  });

  it('exits 1 when the message failed, with its error', async () => {
    mock = createMockApi();
    mock.expect('GET', `messages/${ID}`, { status: 200, body: message('queued') });
    mock.expect('GET', `messages/${ID}`, { status: 200, body: message('failed', { errorCode: 'UNREACHABLE', errorMessage: 'handset off' }) });
    const result = await runCli(['message', 'watch', ID, '--interval', '0.5', '--json'], { env: MOCK_ENV, dispatcher: mock.agent, clock: fakeClock() });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout).status).toBe('failed');
    expect(JSON.parse(result.stderr.trim().split('\n').at(-1)!)).toEqual({
      error: { status: null, message: `Message ${ID} failed: UNREACHABLE: handset off`, title: null, errorCode: 'UNREACHABLE' },
    });
  });

  it('exits 5 on its timeout, printing the message as it was', async () => {
    mock = createMockApi();
    mock.expect('GET', `messages/${ID}`, { status: 200, body: message('sending') }, { times: 100 });
    const clock = fakeClock();
    const result = await runCli(['message', 'watch', ID, '--interval', '1', '--timeout', '10', '--json'], { env: MOCK_ENV, dispatcher: mock.agent, clock });
    expect(result.code).toBe(5);
    expect(JSON.parse(result.stdout).status).toBe('sending');
    expect(clock.sleeps.reduce((a, b) => a + b, 0)).toBe(10_000);
    expect(result.stderr).toContain('Timed out');
  });

  it('reads failure words it was not told about as failed (exit 1) rather than waiting for the timeout', async () => {
    for (const status of ['delivery_failed', 'Undeliverable', 'REJECTED_BY_CARRIER', 'Expired']) {
      mock = createMockApi();
      mock.expect('GET', `messages/${ID}`, { status: 200, body: message(status) });
      const result = await runCli(['message', 'watch', ID, '--json'], { env: MOCK_ENV, dispatcher: mock.agent, clock: fakeClock() });
      expect(result.code, status).toBe(1);
      expect(JSON.parse(result.stdout).status).toBe(status);
      mock.verify();
      if (status !== 'Expired') await mock.agent.close();
    }
  });

  it('shows unknown statuses as they are and keeps waiting', async () => {
    mock = createMockApi();
    mock.expect('GET', `messages/${ID}`, { status: 200, body: message('accepted_by_carrier') });
    mock.expect('GET', `messages/${ID}`, { status: 200, body: message('Delivered') });
    const result = await runCli(['message', 'watch', ID], { env: { ...MOCK_ENV, SVC_ORDER_POLL_MS: '10' }, dispatcher: mock.agent, clock: fakeClock() });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('accepted_by_carrier');
  });

  it('ends at --timeout (exit 5) even when a read never answers', async () => {
    mock = createMockApi();
    const server = await startTestServer();
    const clock = fakeClock();
    server.on(
      'GET',
      `/api/v1/messages/${ID}`,
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(message('sending')));
      },
      // Hangs while the clock moves past the deadline (and the least time a read is given).
      () => clock.advance(FETCH_GRACE_MS),
    );
    try {
      const result = await runCli(['message', 'watch', ID, '--interval', '0.1', '--timeout', '0.5', '--json'], {
        env: { ...MOCK_ENV, SVC_BASE_URL: server.url },
        clock,
      });
      expect(result.code).toBe(5);
      expect(JSON.parse(result.stdout).status).toBe('sending');
      expect(result.stderr).toContain('Timed out');
    } finally {
      await server.close();
    }
  });

  it('on Ctrl-C says where the message stands and the command that follows it again (exit 130), on a terminal too', async () => {
    for (const tty of [false, true]) {
      mock = createMockApi();
      const controller = new AbortController();
      let reads = 0;
      mock.agent
        .get('https://api.test')
        .intercept({ method: 'GET', path: `/api/v1/messages/${ID}` })
        .reply(() => {
          if (++reads === 3) controller.abort();
          return { statusCode: 200, data: JSON.stringify(message('sending')), responseOptions: { headers: { 'content-type': 'application/json' } } };
        })
        .times(3);
      const result = await runCli(['message', 'watch', ID, '--no-color'], { env: MOCK_ENV, dispatcher: mock.agent, clock: fakeClock(), signal: controller.signal, tty: { stderr: tty } });
      expect(result.code).toBe(130);
      expect(result.stderr).not.toContain('error:');
      expect(result.stderr).toContain(`Stopped watching after 4 s. Message ${ID}: sending\nFollow it again: svc message watch ${ID}\n`);
      expect(result.stdout).toBe('');
      if (!tty) await mock.agent.close();
    }
  });

  it('warns once when the service stops answering, and says when it is back', async () => {
    mock = createMockApi();
    mock.expect('GET', `messages/${ID}`, { status: 200, body: message('sending') });
    mock.expect('GET', `messages/${ID}`, { status: 503, body: 'down' }, { times: 8 });
    mock.expect('GET', `messages/${ID}`, { status: 200, body: message('delivered') });
    const result = await runCli(['message', 'watch', ID, '--interval', '1'], { env: MOCK_ENV, dispatcher: mock.agent, clock: fakeClock() });
    expect(result.code).toBe(0);
    const lines = result.stderr.trim().split('\n');
    expect(lines[0]).toBe(`Message ${ID}: sending`);
    expect(lines[1]).toMatch(new RegExp(`^warning: Message ${ID}: the service did not answer \\(.*503.*\\); still trying$`));
    expect(lines[2]).toMatch(new RegExp(`^Message ${ID}: the service answers again \\(no answer for \\d+ s\\)$`));
    expect(lines.slice(3)).toEqual([`Message ${ID}: delivered`, expect.stringMatching(/^Delivered \(\d+ s\)\.$/)]);
  });

  it('refuses a bad --interval before any request', async () => {
    mock = createMockApi();
    const result = await runCli(['message', 'watch', ID, '--interval', 'soon'], { env: MOCK_ENV, dispatcher: mock.agent });
    expect(result.code).toBe(2);
    expect(mock.seen).toHaveLength(0);
  });
});
