import { writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeClock, runCli } from '../helpers/cli.js';
import { loopbackServiceForFile } from '../helpers/loopback-service.js';
import { BIN, spawnCli } from '../helpers/spawn.js';
import { startPty } from '../output/pty.js';

// A hostile service on loopback: every string it controls carries terminal control sequences
// (clear the screen, write the clipboard, plant a link, overwrite with CR and backspace, C1 CSI,
// a bidi override). Through every kind of output (tables, objects, errors, spinners, reports,
// `svc api`) on a terminal, none of those bytes may reach it; piped --json and `svc api` stay
// exactly what the service sent.

/** What the service puts in every field; OVERWRITE marks the CR attack. */
const HOSTILE = 'x\u001b[2J\u001b[H\u001b]52;c;cHduZWQ=\u0007\u001b]8;;https://evil.example/\u001b\\link\u001b]8;;\u001b\\\rOVERWRITE\b\b\u009b31mC1\u0085\u202eBIDI\u2066';
const TENANT = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
const NUMBER = '+15551230000';
const MESSAGE = 'a1b2c3d4-0000-4000-8000-000000000001';
// An order id is a number, as the provision answer gives it.
const ORDER = '1042';
const REFUSED = 'c1b2c3d4-0000-4000-8000-000000000003';
const BROKEN = 'd1b2c3d4-0000-4000-8000-000000000004';

const tenant = { tenantId: TENANT, domain: `evil${HOSTILE}.example`, settings: { note: HOSTILE } };
const number = { phoneNumber: NUMBER, status: 'Active', provisionType: 'SMS', provisionClass: 'P2P', friendlyName: HOSTILE, description: HOSTILE, tenantId: TENANT };
/** A reason with a line break: in a one-line report field it must not start a line of its own. */
const FORGED = `${HOSTILE}\nFORGED: every recipient was accepted`;
const message = { messageId: MESSAGE, from: NUMBER, to: ['+15551230001'], status: 'failed', errorCode: `E${HOSTILE}`, errorMessage: FORGED };
let orderReads = 0;

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function answer(req: IncomingMessage, res: ServerResponse, body: string): void {
  const path = new URL(req.url ?? '/', 'http://x').pathname.replace(/^\/api\/v1/, '');
  if (req.method === 'GET' && path === '/tenants') return json(res, 200, [tenant]);
  if (req.method === 'GET' && path === `/tenants/${TENANT}`) return json(res, 200, tenant);
  if (req.method === 'GET' && path === `/tenants/${REFUSED}`) return json(res, 400, { message: `refused${FORGED}`, title: HOSTILE, errorCode: HOSTILE });
  if (req.method === 'GET' && path === `/tenants/${BROKEN}`) {
    res.writeHead(500, { 'content-type': 'text/plain' }).end(`first line${HOSTILE}\nsecond line${HOSTILE}`);
    return;
  }
  if (req.method === 'GET' && path === '/phone-numbers/active') return json(res, 200, { items: [number], page: 1, limit: 20, total: 1 });
  if (req.method === 'GET' && path === `/phone-numbers/${encodeURIComponent(NUMBER)}`) return json(res, 200, number);
  if (req.method === 'GET' && path === `/phone-numbers/orders/${ORDER}`) {
    orderReads++;
    const status = orderReads % 2 === 1 ? `Processing${HOSTILE}` : 'Completed';
    return json(res, 200, { orderId: Number(ORDER), status, phoneNumbers: [{ phoneNumber: NUMBER, status: HOSTILE, errorMessage: HOSTILE }] });
  }
  if (req.method === 'GET' && path === `/messages/${MESSAGE}`) return json(res, 200, message);
  if (req.method === 'POST' && path === '/messages') {
    // The first recipient is accepted, the second refused with a hostile reason.
    if (body.includes('+15551230002')) return json(res, 400, { message: `refused${FORGED}`, errorCode: 'BAD' });
    return json(res, 202, { messageId: MESSAGE, status: 'queued' });
  }
  if (req.method === 'GET' && path === '/sandbox/webhooks/deliveries') {
    return json(res, 200, [{ at: '2026-01-01T00:00:00Z', deliveryId: `dlv${HOSTILE}`, event: HOSTILE, attempt: 1, status: 500, error: HOSTILE, url: `https://app.example/${HOSTILE}` }]);
  }
  if (req.method === 'GET' && path === '/sandbox/webhooks/failed') {
    return json(res, 200, [{ deliveryId: `dlv${HOSTILE}`, event: HOSTILE, attempts: 3, lastStatus: HOSTILE, lastError: HOSTILE, lastAttemptAt: HOSTILE }]);
  }
  if (req.method === 'GET' && path === '/raw') {
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`raw${HOSTILE}\n`);
    return;
  }
  if (req.method === 'GET' && path === '/doc') return json(res, 200, { text: HOSTILE });
  json(res, 404, { message: `no route ${req.method} ${path}` });
}

const service = loopbackServiceForFile('hostile', answer);
const dir = service.dir;

const env = (extra: Record<string, string> = {}): Record<string, string> => ({
  SVC_BASE_URL: service.url,
  SVC_USERNAME: 'hostile@example.com',
  SVC_PASSWORD: 'hostile-pa55',
  SVC_TENANT: TENANT,
  SVC_ORDER_POLL_MS: '10',
  SVC_PAGER: 'cat',
  ...extra,
});

/**
 * The escape sequences svc itself may write: colour (SGR), erase in line, cursor column, up and
 * down, show and hide the cursor (spinners, prompts, the progress line). Anything else is foreign.
 */
const OWN_SEQUENCE = /^\u001b\[(?:[0-9;]*m|[0-2]?K|[0-9]*[GABCD]|\?25[lh])/;

/**
 * What in a terminal's bytes did not come from svc: an escape sequence svc does not write, a
 * control character, or the service's carriage return (in HOSTILE, always before OVERWRITE; svc's
 * own redraws and a pty's CRLF are the other CRs).
 */
function foreignControls(raw: string): string[] {
  const found: string[] = [];
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === 0x1b) {
      const own = OWN_SEQUENCE.exec(raw.slice(i));
      if (own) {
        i += own[0].length - 1;
        continue;
      }
      found.push(JSON.stringify(raw.slice(i, i + 8)));
    } else if (c === 0x0d) {
      if (raw.startsWith('OVERWRITE', i + 1)) found.push(JSON.stringify(raw.slice(i, i + 12)));
    } else if ((c < 0x20 && c !== 0x0a && c !== 0x09) || (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)) {
      found.push(JSON.stringify(raw.slice(i, i + 8)));
    }
  }
  return found;
}

interface Case {
  name: string;
  argv: string[];
  /** What the output must show, made visible. */
  shows: RegExp;
  code?: number;
}

const CASES: Case[] = [
  { name: 'tenant list (a tenant domain in a table)', argv: ['tenant', 'list'], shows: /evilx\\u001b\[2J/ },
  { name: 'tenant get (a domain and settings in an object)', argv: ['tenant', 'get', TENANT], shows: /evilx\\u001b\[2J/ },
  { name: 'number list (a number description in a table)', argv: ['number', 'list'], shows: /x\\u001b\[2J/ },
  { name: 'number get (a number description in an object)', argv: ['number', 'get', NUMBER], shows: /x\\u001b\[2J/ },
  { name: 'message get (errorMessage)', argv: ['message', 'get', MESSAGE], shows: /x\\u001b\[2J/ },
  { name: 'order get (order status)', argv: ['order', 'get', ORDER], shows: /Processingx\\u001b|Completed/ },
  { name: 'order watch (order status in a spinner and the entries table)', argv: ['order', 'watch', ORDER], shows: /Completed/ },
  { name: 'an error message from a JSON answer', argv: ['tenant', 'get', REFUSED], shows: /refusedx\\u001b\[2J/, code: 1 },
  { name: 'the first line of a text answer', argv: ['tenant', 'get', BROKEN], shows: /first linex\\u001b\[2J/, code: 1 },
  { name: 'sandbox webhooks list (webhook-record fields)', argv: ['sandbox', 'webhooks', 'list'], shows: /dlvx\\u001b/ },
  { name: 'sandbox webhooks failed (webhook-record fields)', argv: ['sandbox', 'webhooks', 'failed'], shows: /dlvx\\u001b/ },
  { name: 'svc api, a text answer', argv: ['api', 'GET', '/raw'], shows: /rawx\\u001b\[2J/ },
  { name: 'svc api, a JSON answer', argv: ['api', 'GET', '/doc'], shows: /x\\u001b\[2J/ },
];

describe('a hostile service, in-process on a terminal', () => {
  it.each(CASES)('$name: no control byte from the service reaches the terminal', async ({ argv, shows, code }) => {
    for (const color of [{}, { NO_COLOR: '1' }] as Record<string, string>[]) {
      const result = await runCli(argv, { env: env(color), tty: true, columns: 100, clock: fakeClock() });
      expect(result.code, result.stderr).toBe(code ?? 0);
      expect(foreignControls(result.stdout), result.stdout).toEqual([]);
      expect(foreignControls(result.stderr), result.stderr).toEqual([]);
      expect(`${result.stdout}${result.stderr}`).toMatch(shows);
      expect(`${result.stdout}${result.stderr}`).not.toMatch(/^\s*FORGED/m);
    }
  });

  it('send and send report: a refusal reason and a failure reason, journaled and reported', async () => {
    const journal = join(dir, 'run.jsonl');
    // A templated body: one request for each recipient.
    const recipients = join(dir, 'to.csv');
    writeFileSync(recipients, 'phone,name\n+15551230001,Ann\n+15551230002,Bo\n');
    const sent = await runCli(['send', '--from', NUMBER, '--to-file', recipients, '--body', 'hi {{name}}', '--async', '--journal', journal, '-y'], {
      env: env(),
      tty: true,
    });
    expect(foreignControls(sent.stdout + sent.stderr), sent.stdout + sent.stderr).toEqual([]);
    expect(sent.stdout + sent.stderr).toMatch(/refusedx\\u001b\[2J/);
    const report = await runCli(['send', 'report', '--journal', journal], { env: env(), tty: true, clock: fakeClock() });
    expect(report.code, report.stderr).toBe(0);
    expect(foreignControls(report.stdout + report.stderr), report.stdout + report.stderr).toEqual([]);
    // The failure reasons and the owed recipient's error, each on its one line.
    expect(report.stdout).toMatch(/^ +1 +Ex\\u001b\[2J.*x\\u001b\[2J.*\\nFORGED: every recipient was accepted$/m);
    expect(report.stdout).toMatch(/^ +\+15551230002 +rejected: .*refusedx\\u001b\[2J/m);
    expect(report.stdout).not.toMatch(/^\s*FORGED/m);
    expect(sent.stdout + sent.stderr).not.toMatch(/^\s*FORGED/m);
  });
});

describe('a hostile service, piped', () => {
  it('--json is exactly what JSON.stringify writes of what the service sent, controls and all', async () => {
    const result = await runCli(['tenant', 'get', TENANT, '--json'], { env: env() });
    expect(result.code).toBe(0);
    const parsed = JSON.parse(result.stdout) as typeof tenant;
    expect(parsed.domain).toBe(tenant.domain);
    expect(result.stdout).toBe(`${JSON.stringify(parsed, null, 2)}\n`);
    // The raw C1 and bidi characters are there: JSON does not escape them, and a pipe is not a terminal.
    expect(result.stdout).toContain('\u009b31mC1');
    const ndjson = await runCli(['number', 'list', '-o', 'ndjson'], { env: env() });
    expect(ndjson.stdout).toBe(`${JSON.stringify(number)}\n`);
  });

  it('svc api writes the answer byte for byte', async () => {
    const text = await spawnCli(['api', 'GET', '/raw'], { env: env() });
    expect(text.code).toBe(0);
    expect(text.stdout).toBe(`raw${HOSTILE}\n`);
  });

  it('human tables piped are made terminal-safe too (a pipe often ends at a terminal)', async () => {
    const result = await runCli(['tenant', 'list'], { env: env() });
    expect(result.code).toBe(0);
    expect(foreignControls(result.stdout)).toEqual([]);
    expect(result.stdout).toContain(`${TENANT}\tevilx\\u001b[2J`);
  });

  it('an error is terminal-safe on stderr, and exact as --json', async () => {
    const plain = await runCli(['tenant', 'get', REFUSED], { env: env() });
    expect(foreignControls(plain.stderr)).toEqual([]);
    const json = await runCli(['tenant', 'get', REFUSED, '--json'], { env: env() });
    // The service's message is one line of ours (line breaks as spaces), its other characters as sent.
    const message = (JSON.parse(json.stderr) as { error: { message: string } }).error.message;
    expect(message).toContain(`refused${HOSTILE.replace(/\r/, ' ')} FORGED: every recipient was accepted`);
  });
});

describe('a hostile service, on a real terminal (node-pty)', () => {
  it.each(CASES.filter((c) => !c.name.startsWith('order watch')))('$name: the bytes the terminal received hold no control from the service', async ({ argv, shows, code }) => {
    const run = startPty(process.execPath, [BIN, ...argv], {
      env: { PATH: process.env['PATH'], HOME: process.env['HOME'], TERM: 'xterm-256color', SVC_CONFIG_DIR: join(dir, 'none'), ...env() },
      cols: 100,
      rows: 40,
    });
    expect(await run.exited).toBe(code ?? 0);
    const raw = run.raw();
    expect(foreignControls(raw), raw).toEqual([]);
    expect(raw).toMatch(shows);
    expect(run.text()).not.toMatch(/^\s*FORGED/m);
  }, 60_000);

  it('order watch: a spinner redrawn with a hostile status', async () => {
    const run = startPty(process.execPath, [BIN, 'order', 'watch', ORDER], {
      env: { PATH: process.env['PATH'], HOME: process.env['HOME'], TERM: 'xterm-256color', SVC_CONFIG_DIR: join(dir, 'none'), ...env() },
      cols: 80,
      rows: 40,
    });
    expect(await run.exited).toBe(0);
    expect(foreignControls(run.raw()), run.raw()).toEqual([]);
    expect(run.raw()).toMatch(/Completed/);
  }, 60_000);
});
