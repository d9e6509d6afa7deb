import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type HttpExchange, type RunningSandbox } from '../../src/sandbox/index.js';
import { BIN, spawnCli } from '../helpers/spawn.js';

// `svc apply` of 200 numbers killed with SIGKILL at moments chosen by what the sandbox has seen
// (the Nth answer of a kind: before any write, right after an order was taken and before the CLI
// could record its id, while it waits, while it updates), then run again: every number ends
// Active, ordered exactly once.

const AUTH = `Basic ${Buffer.from('sandbox@example.com:sandbox').toString('base64')}`;
const COUNT = 200;

let sandbox: RunningSandbox;
let onExchange: ((x: HttpExchange) => void) | undefined;

beforeAll(async () => {
  // Orders take long enough (2 s) that a kill during the wait finds them in flight.
  sandbox = await startSandbox({ port: 0, orderDelayMs: 2000, messageStepMs: 50, observe: (x) => onExchange?.(x) });
});
afterAll(() => sandbox.close());

async function get(path: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${sandbox.apiUrl}${path}`, { headers: { Authorization: AUTH } });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

interface Scenario {
  name: string;
  /** Kill once this many answers matching `kind` have been sent. */
  kind: RegExp;
  nth: number;
}

const SCENARIOS: Scenario[] = [
  { name: 'during the first reads, before any write', kind: /^GET \/api\/v1\/phone-numbers\/%2B/, nth: 3 },
  { name: 'right after the first order was taken (its id not yet recorded)', kind: /^POST \/api\/v1\/phone-numbers\/provision/, nth: 1 },
  { name: 'right after the second order was taken', kind: /^POST \/api\/v1\/phone-numbers\/provision/, nth: 2 },
  { name: 'while waiting for the orders', kind: /^GET \/api\/v1\/phone-numbers\/orders\//, nth: 2 },
  { name: 'while updating the numbers', kind: /^PUT \/api\/v1\/phone-numbers\//, nth: 5 },
];

function fleetFor(tenant: string, base: number): string {
  const lines = ['version: 1', 'tenants:', `  - tenantId: ${tenant}`, 'numbers:'];
  for (let i = 0; i < COUNT; i++) {
    // Three kinds of number, so three orders; userId needs an update once each number is live.
    const type = i % 3 === 0 ? 'SMS' : i % 3 === 1 ? 'MMS' : 'SMSMMS';
    lines.push(`  - {number: "+1666${base + i}", tenant: ${tenant}, type: ${type}, class: P2P, userId: "user-${i}", settings: {rateLimit: ${1 + (i % 7)}}}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Runs apply and SIGKILLs it at the scenario's moment; resolves once it is gone. */
function applyKilledAt(args: string[], env: Record<string, string>, scenario: Scenario): Promise<{ killed: boolean; code: number | null }> {
  return new Promise((resolve, reject) => {
    let seen = 0;
    let child: ChildProcess | undefined;
    let killed = false;
    onExchange = (x) => {
      if (killed || !scenario.kind.test(`${x.method} ${x.url}`)) return;
      if (++seen >= scenario.nth) {
        killed = true;
        child?.kill('SIGKILL');
      }
    };
    child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    // A generous bound, never reached when the kill comes: the apply would end by itself.
    const bound = setTimeout(() => child?.kill('SIGKILL'), 240_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(bound);
      onExchange = undefined;
      if (!killed) reject(new Error(`the apply ended (${code}) before the moment "${scenario.name}" came: ${stderr.slice(-1000)}`));
      else resolve({ killed, code });
    });
  });
}

describe('svc apply killed with SIGKILL and run again', () => {
  it.each(SCENARIOS.map((s, i) => [s.name, s, i] as const))('%s: every number ends Active, ordered exactly once', async (_, scenario, index) => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-apply-kill-'));
    try {
      const tenant = `${String(index + 1).padStart(8, '0')}-aaaa-4bbb-8ccc-dddddddddddd`;
      const base = 1_000_000 + index * 1000;
      const file = join(dir, 'fleet.yaml');
      writeFileSync(file, fleetFor(tenant, base));
      const env = { SVC_BASE_URL: sandbox.url, SVC_USERNAME: 'sandbox@example.com', SVC_PASSWORD: 'sandbox', SVC_CONFIG_DIR: dir, SVC_DATA_DIR: dir, SVC_ORDER_POLL_MS: '100' };
      await applyKilledAt(['apply', '-f', file], env, scenario);
      const again = await spawnCli(['apply', '-f', file], { env, timeoutMs: 240_000 });
      expect(again.code, again.stderr).toBe(0);
      const check = await spawnCli(['diff', '-f', file, '--exit-code'], { env, timeoutMs: 120_000 });
      expect(check.code, check.stdout).toBe(0);

      // Every number Active, and in exactly one provision order.
      const ordered = new Map<string, number>();
      for (let id = 1001; ; id++) {
        const order = await get(`/phone-numbers/orders/${id}`);
        if (order.status === 404) break;
        if (order.json['action'] !== 'Provision' || order.json['tenantId'] !== tenant) continue;
        for (const entry of order.json['phoneNumbers'] as { number: string }[]) ordered.set(entry.number, (ordered.get(entry.number) ?? 0) + 1);
      }
      const numbers = Array.from({ length: COUNT }, (_, i) => `+1666${base + i}`);
      expect(numbers.filter((n) => ordered.get(n) !== 1)).toEqual([]);
      const active = new Set<string>();
      for (let page = 1; ; page++) {
        const list = await get(`/phone-numbers/active?page=${page}&limit=100`);
        const items = list.json['items'] as { phoneNumber: string; tenantId: string }[];
        for (const item of items) if (item.tenantId === tenant) active.add(item.phoneNumber);
        if (items.length < 100) break;
      }
      expect(numbers.filter((n) => !active.has(n))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 600_000);
});
