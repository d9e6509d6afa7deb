import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EventStoreReader } from '../../src/events/store/reader.js';
import { signBody } from '../../src/domain/signature.js';
import { BIN } from '../helpers/spawn.js';
import { post } from '../webhooks/helpers.js';

// The listener killed with SIGKILL at random points while 2,000 signed events arrive from a
// sender that, like the service, retries whatever was not acknowledged: every acknowledged event
// must be in the store, exactly once. Kills are triggered by acknowledgements (event-driven), and
// a retry waits for the next listener's banner, never for a timer.

const SECRET = 'whsec-kill-test';
const EVENTS = 2000;
const SENDERS = 16;
const KILLS = 6;

const work = mkdtempSync(join(tmpdir(), 'svc-listener-kill-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A small deterministic generator, so that a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

interface Running {
  child: ChildProcess;
  url: Promise<string>;
  exited: Promise<void>;
}

function startListener(store: string, extra: readonly string[]): Running {
  const child = spawn(process.execPath, [BIN, 'webhook', 'listen', '--port', '0', '--json', '--store', store, ...extra], {
    env: { PATH: process.env['PATH'] ?? '', HOME: work, SVC_WEBHOOK_SECRET: SECRET },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const url = new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const match = /Listening on (http:\/\/\S+\/)/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    void exited.then(() => reject(new Error(`the listener exited before listening: ${stderr}`)));
  });
  return { child, url, exited };
}

describe('webhook listen under SIGKILL', () => {
  // Acknowledged once written (the default), or once also synced (--fsync, its group commit).
  it.each([[[]], [['--fsync']]] as const)('keeps every acknowledged event exactly once across kills at random points (%j)', async (extra: readonly string[]) => {
    const store = join(work, `store${extra.join('')}`);
    const next = random(20261123);
    // The acknowledgement counts at which the listener is killed.
    const killAt = Array.from({ length: KILLS }, () => Math.floor(next() * (EVENTS - 100)) + 50).sort((a, b) => a - b);
    let current = startListener(store, extra);
    let restarting: Promise<void> | null = null;
    let kills = 0;
    const acknowledged = new Set<string>();
    let attempts = 0;

    const killAndRestart = (): Promise<void> => {
      restarting ??= (async () => {
        const dying = current;
        dying.child.kill('SIGKILL');
        await dying.exited;
        kills++;
        current = startListener(store, extra);
        await current.url;
        restarting = null;
      })();
      return restarting;
    };

    const agent = new Agent({ keepAlive: true, maxSockets: SENDERS });
    let nextEvent = 0;
    const sender = async (): Promise<void> => {
      while (nextEvent < EVENTS) {
        const n = nextEvent++;
        const id = `dlv-${n}`;
        const body = JSON.stringify({ messageId: `msg-${n}`, status: n % 7 === 0 ? 'failed' : 'delivered', deliveredAt: null });
        for (let failures = 0; ; ) {
          if (restarting) await restarting;
          const url = await current.url;
          attempts++;
          try {
            const answer = await post(url, body, {
              agent,
              headers: { 'X-Svc-Signature': signBody(body, SECRET), 'X-Svc-Delivery': id, 'X-Svc-Event': 'DeliveryReceipt' },
            });
            if (answer.status === 200) {
              acknowledged.add(id);
              if (kills < killAt.length && acknowledged.size >= killAt[kills]!) await killAndRestart();
              break;
            }
          } catch (error) {
            // Refused or cut off by the kill: not acknowledged, so sent again to the next listener.
            if (restarting) await restarting;
            else if (current.child.exitCode !== null || current.child.signalCode !== null) throw new Error('the listener died on its own');
            else if (++failures > 100) throw error;
          }
        }
      }
    };
    await Promise.all(Array.from({ length: SENDERS }, sender));
    agent.destroy();
    current.child.kill('SIGINT');
    await current.exited;

    expect(kills).toBe(KILLS);
    expect(acknowledged.size).toBe(EVENTS);
    expect(attempts).toBeGreaterThan(EVENTS); // some deliveries were cut off and retried
    const records = new EventStoreReader(store).query({});
    const counts = new Map<string, number>();
    for (const record of records) counts.set(record.id, (counts.get(record.id) ?? 0) + 1);
    const missing = [...acknowledged].filter((id) => !counts.has(id));
    const twice = [...counts].filter(([, n]) => n > 1).map(([id]) => id);
    expect(missing).toEqual([]);
    expect(twice).toEqual([]);
    expect(records).toHaveLength(EVENTS);
  }, 120_000);
});
