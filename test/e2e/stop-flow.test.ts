import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { runCli } from '../helpers/cli.js';
import { basicAuth } from '../helpers/live.js';
import { BIN } from '../helpers/spawn.js';
import { provisionActiveNumber, strictApi } from '../sandbox/helpers.js';

// The whole opt-out flow, end to end: a STOP sent through the sandbox reaches a live `svc webhook
// listen` (the built CLI, its own process), the next `svc send` from that number leaves the sender
// out and says so, and START brings them back. Every wait is on an event (a line the listener
// prints once the event and its opt-out are on disk), bounded by a generous deadline.

const SECRET = 'stop-flow-secret';
const OURS = '+15551230001';
// A number of another tenant of the same account: a STOPALL to OURS is not about it.
const THEIRS = '+15551230002';
const ANN = '+14155551001';
const BOB = '+14155551002';

const work = mkdtempSync(join(tmpdir(), 'svc-stop-flow-'));
const store = join(work, 'events');
let sandbox: RunningSandbox;
let listener: ChildProcess;
let lines: string[] = [];
const waiters = new Set<() => void>();
let env: Record<string, string>;
let tenantA: string;
let tenantB: string;

function waitForLine(test: (line: string) => boolean, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = (): void => {
      const found = lines.find(test);
      if (found === undefined) return;
      waiters.delete(check);
      clearTimeout(deadline);
      resolve(found);
    };
    const deadline = setTimeout(() => {
      waiters.delete(check);
      reject(new Error(`the listener did not print ${what} within 30 s; it printed:\n${lines.join('\n')}`));
    }, 30_000);
    waiters.add(check);
    check();
  });
}

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, orderDelayMs: 10, messageStepMs: 10 });
  listener = spawn(process.execPath, [BIN, 'webhook', 'listen', '--port', '0', '--json', '--store', store], {
    env: { PATH: process.env['PATH'] ?? '', HOME: work, SVC_WEBHOOK_SECRET: SECRET, SVC_DATA_DIR: work, SVC_CONFIG_DIR: work },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let pending = '';
  const take = (chunk: Buffer): void => {
    pending += chunk.toString('utf8');
    const parts = pending.split('\n');
    pending = parts.pop()!;
    lines.push(...parts);
    for (const wake of [...waiters]) wake();
  };
  listener.stdout!.on('data', take);
  listener.stderr!.on('data', take);
  const banner = await waitForLine((line) => line.includes('Listening on'), 'its banner');
  const url = /Listening on (http:\/\/\S+\/)/.exec(banner)![1]!;
  const api = strictApi(sandbox.apiUrl, basicAuth('sandbox@example.com', 'sandbox'));
  const tenant = await api('POST', '/tenants', { settings: { webhookPrimaryUri: url, webhookSecret: SECRET, webhookEventType: 'MessageReceived' } });
  tenantA = String(tenant['tenantId']);
  await provisionActiveNumber(api, tenantA, OURS);
  tenantB = String((await api('POST', '/tenants', {}))['tenantId']);
  await provisionActiveNumber(api, tenantB, THEIRS);
  env = { SVC_BASE_URL: sandbox.url, SVC_USERNAME: 'sandbox@example.com', SVC_PASSWORD: 'sandbox' };
}, 60_000);

afterAll(async () => {
  if (listener !== undefined && listener.exitCode === null) {
    const exited = new Promise((resolve) => listener.once('exit', resolve));
    listener.kill('SIGTERM');
    await exited;
  }
  await sandbox?.close();
  rmSync(work, { recursive: true, force: true });
});

async function inbound(body: string): Promise<string> {
  const result = await runCli(['sandbox', 'inbound', '--to', OURS, '--from', ANN, '--body', body, '--json'], { env });
  expect(result.code, result.stderr).toBe(0);
  const deliveryId = String((JSON.parse(result.stdout) as Record<string, unknown>)['deliveryId']);
  // Printed once the event is stored and acknowledged: its opt-out change is on disk by then.
  await waitForLine((line) => line.includes(deliveryId) && line.startsWith('{'), `the event ${deliveryId}`);
  return deliveryId;
}

async function sendToBoth(from = OURS, extra: string[] = []): Promise<{ sent: string[]; stderr: string }> {
  const file = join(work, 'list.txt');
  writeFileSync(file, `${ANN}\n${BOB}\n`);
  const result = await runCli(['send', '--from', from, '--to-file', file, '--body', 'Our spring sale starts today', '--async', '--store', store, '--json', ...extra], { env });
  expect(result.code, result.stderr).toBe(0);
  const sent = (JSON.parse(result.stdout) as { to: string[] }[]).flatMap((entry) => entry.to);
  return { sent, stderr: result.stderr };
}

describe('STOP through the sandbox, the listener, the next send', () => {
  it('leaves out who texted STOP, says so, and sends to them again after START', async () => {
    const stop = await inbound('Stop!');
    const after = await sendToBoth();
    expect(after.sent).toEqual([BOB]);
    expect(after.stderr).toContain('1 opted out');

    const list = await runCli(['optouts', 'list', '--store', store, '--json']);
    expect(JSON.parse(list.stdout)).toMatchObject([{ number: ANN, from: OURS, cause: 'keyword', keyword: 'STOP', event: stop }]);
    const events = await runCli(['events', 'list', '--type', 'OptOut', '--store', store, '--json']);
    expect((JSON.parse(events.stdout) as { id: string }[]).map((e) => e.id)).toEqual([`optout:${stop}`]);
    const thread = await runCli(['thread', ANN, '--store', store, '--json']);
    expect(JSON.parse(thread.stdout)).toContainEqual(expect.objectContaining({ type: 'OptOut', body: `opted out of ${OURS} (STOP)` }));

    // A longer sentence is conversation, not a keyword.
    await inbound("please don't stop the newsletter");
    expect((await sendToBoth()).sent).toEqual([BOB]);

    await inbound('START');
    const back = await sendToBoth();
    expect(back.sent.sort()).toEqual([ANN, BOB]);
    expect(back.stderr).not.toContain('opted out');
  }, 120_000);

  it("STOPALL to a tenant's number leaves the sender out of that tenant's sends only, until START", async () => {
    const stopAll = await inbound('STOPALL');
    const list = await runCli(['optouts', 'list', '--store', store, '--json']);
    expect(JSON.parse(list.stdout)).toMatchObject([{ number: ANN, from: null, tenant: tenantA, keyword: 'STOPALL', event: stopAll }]);

    const fromA = await sendToBoth(OURS, ['--tenant', tenantA]);
    expect(fromA.sent).toEqual([BOB]);
    expect(fromA.stderr).toContain('1 opted out');
    const fromB = await sendToBoth(THEIRS, ['--tenant', tenantB]);
    expect(fromB.sent.sort()).toEqual([ANN, BOB]);
    // A send that names no tenant cannot tell whose the opt-out is, and leaves the person out.
    expect((await sendToBoth(THEIRS)).sent).toEqual([BOB]);

    await inbound('START');
    expect((await sendToBoth(OURS, ['--tenant', tenantA])).sent.sort()).toEqual([ANN, BOB]);
  }, 120_000);
});
