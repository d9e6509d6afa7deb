import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventRecord, sentRecord } from '../../../src/events/records.js';
import { writeSegment } from '../../../src/events/store/writer.js';
import { BIN } from '../../helpers/spawn.js';

// `svc thread` on a real pseudo-terminal (util-linux `script`): the chat view, coloured, and
// JSON lines when the same command is piped.

const work = mkdtempSync(join(tmpdir(), 'svc-thread-pty-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function run(command: string[], viaPty: boolean): Promise<{ code: number | null; out: string }> {
  const quoted = command.map((part) => `'${part.replace(/'/g, "'\\''")}'`).join(' ');
  const child = viaPty
    ? spawn('script', ['-qec', quoted, '/dev/null'], { env: { PATH: process.env['PATH'] ?? '', HOME: work, TERM: 'xterm-256color' }, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(command[0]!, command.slice(1), { env: { PATH: process.env['PATH'] ?? '', HOME: work }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    }),
  );
}

describe('svc thread on a terminal', () => {
  it('renders a chat with colour on a pty, and JSON lines when piped', async () => {
    const store = join(work, 'events');
    const at = Date.parse('2026-03-01T09:00:00Z');
    writeSegment(store, [
      sentRecord({ messageId: 'm1', from: '+15557770100', to: '+14155551001', body: 'Your table for two is ready', at: new Date(at) }),
      eventRecord({ id: 'd1', type: 'DeliveryReceipt', receivedAt: new Date(at + 1000), messageId: 'm1', status: 'delivered', headers: {}, raw: '{"messageId":"m1","status":"delivered"}' }),
      eventRecord({ id: 'd2', type: 'MessageReceived', receivedAt: new Date(at + 60_000), from: '+14155551001', to: ['+15557770100'], headers: {}, raw: '{"from":"+14155551001","tos":["+15557770100"],"message":"On our way"}' }),
    ]);
    const command = [process.execPath, BIN, 'thread', '+14155551001', '--store', store];
    const tty = await run(command, true);
    expect(tty.code).toBe(0);
    expect(tty.out).toContain('Conversation with +14155551001');
    expect(tty.out).toMatch(/ {8,}(\u001b\[\d+m)?Your table for two is ready/);
    expect(tty.out).toMatch(/delivered/);
    expect(tty.out).toMatch(/\n {2}On our way\r?\n/);
    expect(tty.out).toMatch(/\u001b\[\d+m/);
    const piped = await run(command, false);
    expect(piped.code).toBe(0);
    const lines = piped.out.trimEnd().split('\n').map((line) => JSON.parse(line) as { direction: string });
    expect(lines.map((line) => line.direction)).toEqual(['out', 'receipt', 'in']);
  });
});
