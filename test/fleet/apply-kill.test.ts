import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type HttpExchange, type RunningSandbox } from '../../src/sandbox/index.js';
import { BIN, spawnCli } from '../helpers/spawn.js';

// `svc apply` of 200 numbers killed with SIGKILL at moments chosen by what the sandbox has seen
// (the Nth answer of a kind: before any write, right after an order was taken and before the CLI
// could record its id, while it waits, while it updates), and at moments chosen by the
// write-ahead record (after each kind of line is written; and, through a proxy that holds the
// order, between "intent written" and "order sent", and between "order answered" and "answer
// recorded"), then run again: every number ends Active, ordered exactly once.

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

/** Another apply ends 0, diff finds nothing, and every number is Active and in exactly one order. */
async function expectConverged(file: string, env: Record<string, string>, tenant: string, base: number): Promise<void> {
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
      await expectConverged(file, env, tenant, base);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 600_000);
});

// ---- kill moments chosen by the write-ahead record ----

type RecordedLine = { t: string; key?: string; numbers?: string[] };

/** The record's lines, read as the CLI left them (a torn last line is not counted). */
function recordLinesOf(dir: string): RecordedLine[] {
  const folder = join(dir, 'apply');
  if (!existsSync(folder)) return [];
  const lines: RecordedLine[] = [];
  for (const name of readdirSync(folder).filter((n) => n.endsWith('.jsonl'))) {
    for (const line of readFileSync(join(folder, name), 'utf8').split('\n')) {
      try {
        lines.push(JSON.parse(line) as RecordedLine);
      } catch {
        // a torn line: not written yet
      }
    }
  }
  return lines;
}

function recordLines(dir: string, kind: string): number {
  return recordLinesOf(dir).filter((l) => l.t === kind).length;
}

/** Whether the record holds the intent of the order of `numbers`, and its answer. */
function orderInRecord(lines: readonly RecordedLine[], numbers: readonly string[]): { intent: boolean; answered: boolean } {
  const intent = lines.find((l) => l.t === 'intent' && JSON.stringify(l.numbers) === JSON.stringify(numbers));
  return { intent: intent !== undefined, answered: intent !== undefined && lines.some((l) => l.t !== 'intent' && l.key === intent.key) };
}

interface RecordScenario {
  name: string;
  /**
   * `after-line`: kill once the record holds `nth` lines of `kind` (whatever the CLI does next).
   * `held`: the proxy holds the nth provision order: the intent is written, the order never
   * reaches the service; the kill comes while it is held.
   * `unrecorded`: the proxy lets the nth order through and keeps its answer from the CLI: the
   * service took it, the record cannot know its id; the kill comes then.
   */
  mode: 'after-line' | 'held' | 'unrecorded';
  kind?: 'intent' | 'submitted' | 'finished';
  nth: number;
}

const RECORD_SCENARIOS: RecordScenario[] = [
  { name: 'after the first intent line', mode: 'after-line', kind: 'intent', nth: 1 },
  { name: 'after the second submitted line', mode: 'after-line', kind: 'submitted', nth: 2 },
  { name: 'after the first finished line', mode: 'after-line', kind: 'finished', nth: 1 },
  { name: 'between "intent written" and "order sent" (the order held)', mode: 'held', nth: 2 },
  { name: 'between "order answered" and "answer recorded"', mode: 'unrecorded', nth: 1 },
];

/** A proxy in front of the sandbox that lets the test hold a provision order or its answer. */
async function startProxy(target: string, onProvision: (n: number, numbers: string[], forward: () => Promise<{ status: number; body: string }>, res: ServerResponse) => Promise<void>): Promise<{ url: string; close(): Promise<void> }> {
  let provisions = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const forward = async (): Promise<{ status: number; body: string }> => {
        const answer = await fetch(`${target}${req.url ?? '/'}`, {
          method: req.method,
          headers: { authorization: req.headers.authorization ?? '', 'content-type': req.headers['content-type'] ?? 'application/json' },
          body: req.method === 'GET' || req.method === 'HEAD' ? undefined : Buffer.concat(chunks),
        });
        return { status: answer.status, body: await answer.text() };
      };
      const reply = ({ status, body }: { status: number; body: string }): void => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(body);
      };
      const work = req.method === 'POST' && (req.url ?? '').includes('/phone-numbers/provision') ? onProvision(++provisions, (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { phoneNumbers: { number: string }[] }).phoneNumbers.map((e) => e.number), forward, res) : forward().then(reply);
      work.catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('svc apply killed with SIGKILL at moments of its write-ahead record, and run again', () => {
  it.each(RECORD_SCENARIOS.map((s, i) => [s.name, s, i] as const))('%s: every number ends Active, ordered exactly once', async (_, scenario, index) => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-apply-kill-record-'));
    let child: ChildProcess | undefined;
    let killed = false;
    let atKill: RecordedLine[] = [];
    let heldNumbers: string[] = [];
    const kill = (): void => {
      if (killed) return;
      killed = true;
      atKill = recordLinesOf(dir);
      child?.kill('SIGKILL');
    };
    const proxy = await startProxy(sandbox.url, async (n, numbers, forward, res) => {
      const reply = ({ status, body }: { status: number; body: string }): void => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(body);
      };
      if (killed || n !== scenario.nth || scenario.mode === 'after-line') return reply(await forward());
      heldNumbers = numbers;
      if (scenario.mode === 'held') return kill(); // never forwarded: the service never sees it
      await forward(); // the service takes it; its answer never reaches the CLI
      kill();
    });
    try {
      const tenant = `${String(index + 11).padStart(8, '0')}-aaaa-4bbb-8ccc-dddddddddddd`;
      const base = 1_100_000 + index * 1000;
      const file = join(dir, 'fleet.yaml');
      writeFileSync(file, fleetFor(tenant, base));
      const env = { SVC_BASE_URL: proxy.url, SVC_USERNAME: 'sandbox@example.com', SVC_PASSWORD: 'sandbox', SVC_CONFIG_DIR: dir, SVC_DATA_DIR: dir, SVC_ORDER_POLL_MS: '100' };
      await new Promise<void>((resolve, reject) => {
        child = spawn(process.execPath, [BIN, 'apply', '-f', file], { env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        child.stderr!.on('data', (c: Buffer) => {
          stderr += c.toString('utf8');
        });
        // The record is read on a short beat, so that the kill follows the line closely (the CLI
        // goes on meanwhile: any moment after the line is a moment to survive); a generous bound
        // ends a run that never reaches it.
        const beat = setInterval(() => {
          if (scenario.mode === 'after-line' && recordLines(dir, scenario.kind!) >= scenario.nth) kill();
        }, 5);
        const bound = setTimeout(() => child?.kill('SIGKILL'), 240_000);
        child.on('error', reject);
        child.on('close', (code) => {
          clearInterval(beat);
          clearTimeout(bound);
          if (!killed) reject(new Error(`the apply ended (${code}) before the moment "${scenario.name}" came: ${stderr.slice(-1000)}`));
          else resolve();
        });
      });
      if (scenario.mode === 'after-line') {
        expect(atKill.filter((l) => l.t === scenario.kind).length).toBeGreaterThanOrEqual(scenario.nth);
      } else {
        // The kill came with the order's intent written (before it left) and its answer not.
        expect(heldNumbers.length).toBeGreaterThan(0);
        expect(orderInRecord(atKill, heldNumbers)).toEqual({ intent: true, answered: false });
        const held = await get(`/phone-numbers/${encodeURIComponent(heldNumbers[0]!)}`);
        // Held: the service never saw the order; unrecorded: it took it.
        expect(held.status).toBe(scenario.mode === 'held' ? 404 : 200);
      }
      await expectConverged(file, env, tenant, base);
    } finally {
      await proxy.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 600_000);
});
