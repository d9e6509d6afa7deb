import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/http-server.js';
import { BIN } from '../helpers/spawn.js';
import { startPty, type PtySession } from '../output/pty.js';

// `svc order watch` and `svc message watch` on a real pseudo-terminal: the time waited moves every
// second between reads, and Ctrl-C (typed, so the terminal sends SIGINT) ends the wait with where
// the thing stands and the command that follows it again, exit 130, not "error: Interrupted".
// Every wait is on the terminal's output, with a generous deadline.

const ORDER = { orderId: 42, status: 'Processing', phoneNumbers: [{ number: '+15551230001', status: 'Active' }, { number: '+15551230002', status: 'Pending' }] };
const MESSAGE_ID = '0b0a6c8e-2f7a-4a55-9b1e-3d7c2a1f9e10';
const MESSAGE = { messageId: MESSAGE_ID, status: 'sending', to: ['+15557650001'] };

const json = (body: unknown) => (_req: unknown, res: ServerResponse): void => {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};

let server: TestServer | undefined;
let pty: PtySession | undefined;
afterEach(async () => {
  await pty?.close();
  await server?.close();
  pty = undefined;
  server = undefined;
});

function watch(args: string[], cols: number): PtySession {
  return startPty(process.execPath, [BIN, ...args], {
    env: {
      PATH: process.env['PATH'],
      HOME: process.env['HOME'],
      TERM: 'xterm',
      SVC_BASE_URL: server!.url,
      SVC_USERNAME: 'user@example.com',
      SVC_PASSWORD: 'pa55-word-secret',
      SVC_CONFIG_DIR: '/nonexistent-svc-config',
    },
    cols,
    rows: 30,
  });
}

/** Waits until the spinner shows a count of seconds above `seconds`, and returns it. */
async function countAbove(session: PtySession, seconds: number): Promise<number> {
  // A bound on the loop, not an assertion on time: the count moves every second.
  const giveUp = Date.now() + 30_000;
  while (Date.now() < giveUp) {
    const match = await session.waitFor(/Order 42: Processing \((\d+) s\)/, session.mark());
    const shown = Number(match[1]);
    if (shown > seconds) return shown;
  }
  throw new Error(`the count never went above ${seconds} s; the terminal showed:\n${session.text().slice(-2000)}`);
}

describe('order watch on a terminal', () => {
  it.each([40, 80, 120])('at %i columns: the seconds tick between reads, and Ctrl-C says where the order stands', async (cols) => {
    server = await startTestServer();
    server.on('GET', '/api/v1/phone-numbers/orders/42', json(ORDER));
    // Reads 10 s apart: whatever moves before then is the ticking count, not a read.
    pty = watch(['order', 'watch', '42', '--interval', '10'], cols);
    const first = await countAbove(pty, -1);
    const second = await countAbove(pty, first);
    await countAbove(pty, second);
    expect(pty.text()).toMatch(/\+15551230002\s+Pending/);
    expect(server.requests).toHaveLength(1);
    const mark = pty.mark();
    pty.write('\u0003');
    expect(await pty.exited).toBe(130);
    const after = pty.text().slice(mark).replace(/\s+/g, ' ');
    expect(after).toMatch(/Stopped watching after \d+ s\. Order 42: Processing; 2 numbers: 1 Active, 1 Pending/);
    expect(after).toContain('Follow it again: svc order watch 42 --interval 10');
    expect(after).not.toContain('error:');
    expect(after).not.toContain('Interrupted');
  });
});

describe('message watch on a terminal', () => {
  it('Ctrl-C says where the message stands and how to follow it again, exit 130', async () => {
    server = await startTestServer();
    server.on('GET', `/api/v1/messages/${MESSAGE_ID}`, json(MESSAGE));
    pty = watch(['message', 'watch', MESSAGE_ID, '--interval', '10'], 120);
    await pty.waitFor(/: sending \(1 s\)/);
    const mark = pty.mark();
    pty.write('\u0003');
    expect(await pty.exited).toBe(130);
    const after = pty.text().slice(mark).replace(/\s+/g, ' ');
    expect(after).toContain(`Message ${MESSAGE_ID}: sending`);
    expect(after).toContain(`Follow it again: svc message watch ${MESSAGE_ID} --interval 10`);
    expect(after).not.toContain('error:');
  });
});
