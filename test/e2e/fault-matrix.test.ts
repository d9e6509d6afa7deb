import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeClock, runCli } from '../helpers/cli.js';

// The fault-server matrix: every API call the CLI makes, against a live server on
// 127.0.0.1 that answers that one call with each fault nobody named: redirects with and without
// a Location, a 204, an HTML page, JSON of the wrong kind, JSON cut short, a connection reset
// before and after the body began, and a body trickled past --timeout. Every run must end with
// exit 1, print no data as if all were well, and a send must never journal anyone as accepted.

const TENANT = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
const NUMBER = '+15551230000';
const TO_A = '+15551230001';
const TO_B = '+15551230002';
const ORDER = '1';
const MESSAGE = '0b0a6c8e-2f7a-4a55-9b1e-3d7c2a1f9e10';
const PASSWORD = 'fault-Pa55word';
/**
 * --timeout for every case but the trickle: generous, since those answers come at once and a
 * request that timed out on a loaded machine (two cores, the whole suite in parallel) would be
 * a failure of the test, not of the CLI.
 */
const TIMEOUT = '30';
/**
 * --timeout for the trickle, which goes on until the client gives up (at most a minute): short,
 * so that the case ends soon (a read is tried four times). A bulk send (--to-file) goes through
 * undici, whose HTTP parser is compiled to WebAssembly on its first connection: on a loaded
 * machine that alone can take longer than 0.3 s, so it gets longer.
 */
const TRICKLE_TIMEOUT = '0.3';
const BULK_TRICKLE_TIMEOUT = '1.5';

type Fault = (req: IncomingMessage, res: ServerResponse, kind: 'object' | 'list' | 'other') => void;

const redirect =
  (status: number, location?: string): Fault =>
  (_req, res) => {
    res.writeHead(status, location ? { location } : {}).end();
  };
const FAULTS: Record<string, Fault> = {
  ...Object.fromEntries(
    [301, 302, 303, 307, 308].flatMap((status) => [
      [`${status} with a Location`, redirect(status, 'https://someone:hunter2@login.example.com/sso?token=t0ken-value')],
      [`${status} without a Location`, redirect(status)],
    ]),
  ),
  '101 nobody asked for': (req) => {
    req.socket.end('HTTP/1.1 101 Switching Protocols\r\nconnection: upgrade\r\nupgrade: websocket\r\n\r\n');
  },
  '204 where a body is due': (_req, res) => {
    res.writeHead(204).end();
  },
  '200 with an HTML page': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><html><head><title>Welcome to nginx!</title></head></html>');
  },
  '200 with the wrong JSON kind': (_req, res, kind) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(kind === 'list' ? '{"total": 3}' : '[{"messageId": "m-x"}]');
  },
  '200 with JSON cut short': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"messageId": "m-1", "status": "que');
  },
  'a reset before any answer': (req) => {
    req.socket.destroy();
  },
  'a reset after the body began': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
    res.write('{"messageId": "m-1", ');
    setImmediate(() => res.socket?.destroy());
  },
  'a body trickled past --timeout': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"pad": "');
    // One byte every 50 ms until the client goes away (past any --timeout of this file), at most a minute.
    let sent = 0;
    const timer = setInterval(() => {
      if (++sent > 1200 || res.destroyed) {
        clearInterval(timer);
        if (!res.destroyed) res.end('"}');
        return;
      }
      res.write('x');
    }, 50);
    res.on('close', () => clearInterval(timer));
  },
};

interface Route {
  method: string;
  path: string;
  kind: 'object' | 'list' | 'other';
  normal: (res: ServerResponse) => void;
}

const jsonAnswer = (status: number, body: unknown) => (res: ServerResponse) => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};
const enc = encodeURIComponent;
const ROUTES: Record<string, Route> = {
  health: { method: 'GET', path: '/api/v1/health', kind: 'object', normal: jsonAnswer(200, { status: 'Healthy', entries: [] }) },
  listTenants: { method: 'GET', path: '/api/v1/tenants', kind: 'list', normal: jsonAnswer(200, [{ tenantId: TENANT }]) },
  getTenant: { method: 'GET', path: `/api/v1/tenants/${TENANT}`, kind: 'object', normal: jsonAnswer(200, { tenantId: TENANT, domain: 'a.example' }) },
  createTenant: { method: 'POST', path: '/api/v1/tenants', kind: 'object', normal: jsonAnswer(201, { tenantId: TENANT, domain: 'a.example' }) },
  updateTenant: { method: 'PUT', path: `/api/v1/tenants/${TENANT}`, kind: 'other', normal: (res) => res.writeHead(204).end() },
  listNumbers: { method: 'GET', path: '/api/v1/phone-numbers/active', kind: 'list', normal: jsonAnswer(200, { items: [{ phoneNumber: NUMBER }], page: 1, total: 1 }) },
  getNumber: { method: 'GET', path: `/api/v1/phone-numbers/${enc(NUMBER)}`, kind: 'object', normal: jsonAnswer(200, { phoneNumber: NUMBER, phoneNumberId: TENANT, status: 'Active' }) },
  updateNumber: { method: 'PUT', path: `/api/v1/phone-numbers/${enc(NUMBER)}`, kind: 'other', normal: (res) => res.writeHead(204).end() },
  provision: { method: 'POST', path: '/api/v1/phone-numbers/provision', kind: 'object', normal: jsonAnswer(202, { orderId: ORDER, status: 'Pending' }) },
  loa: { method: 'POST', path: '/api/v1/phone-numbers/loa', kind: 'object', normal: jsonAnswer(201, { loaUrl: 'https://files.example/loa.pdf' }) },
  getOrder: { method: 'GET', path: `/api/v1/phone-numbers/orders/${ORDER}`, kind: 'object', normal: jsonAnswer(200, { orderId: ORDER, status: 'Completed' }) },
  getMessage: { method: 'GET', path: `/api/v1/messages/${MESSAGE}`, kind: 'object', normal: jsonAnswer(200, { messageId: MESSAGE, status: 'delivered' }) },
  media: { method: 'POST', path: '/api/v1/media', kind: 'object', normal: jsonAnswer(201, { uri: 'https://files.example/m.png', fileName: 'm.png' }) },
  send: { method: 'POST', path: '/api/v1/messages', kind: 'object', normal: jsonAnswer(202, { messageId: 'm-1', status: 'queued' }) },
};

let server: Server;
let baseUrl: string;
const sockets = new Set<Socket>();
/** The fault of the current run: which route, from which of its calls on, and what. */
let active: { route: Route; fromCall: number; fault: Fault } | undefined;
const calls = new Map<Route, number>();
const unhandled: string[] = [];

const dir = mkdtempSync(join(tmpdir(), 'svc-fault-matrix-'));
const PNG = join(dir, 'm.png');
const PDF = join(dir, 'loa.pdf');
const RECIPIENTS = join(dir, 'to.txt');

beforeAll(async () => {
  writeFileSync(PNG, Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 7)]));
  writeFileSync(PDF, '%PDF-1.4\n%fault matrix\n');
  writeFileSync(RECIPIENTS, `${TO_A}\n${TO_B}\n`);
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0];
      const route = Object.values(ROUTES).find((r) => r.method === req.method && r.path === path);
      if (route === undefined) {
        unhandled.push(`${req.method} ${req.url}`);
        res.writeHead(599).end();
        return;
      }
      const n = (calls.get(route) ?? 0) + 1;
      calls.set(route, n);
      if (active !== undefined && active.route === route && n >= active.fromCall) active.fault(req, res, route.kind);
      else route.normal(res);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
  expect(unhandled).toEqual([]);
});

interface Call {
  name: string;
  route: Route;
  /** The fault starts at this call of the route (2: the read-back after a PUT). */
  fromCall?: number;
  argv: string[];
  /** The recipients of a send, checked in its journal. */
  recipients?: string[];
}

const CALLS: Call[] = [
  { name: 'health', route: ROUTES.health!, argv: ['health'] },
  { name: 'tenant list', route: ROUTES.listTenants!, argv: ['tenant', 'list'] },
  { name: 'tenant get', route: ROUTES.getTenant!, argv: ['tenant', 'get', TENANT] },
  { name: 'tenant create', route: ROUTES.createTenant!, argv: ['tenant', 'create', '--domain', 'a.example'] },
  { name: 'tenant update (its read)', route: ROUTES.getTenant!, argv: ['tenant', 'update', TENANT, '--domain', 'b.example'] },
  { name: 'tenant update (the PUT)', route: ROUTES.updateTenant!, argv: ['tenant', 'update', TENANT, '--domain', 'b.example'] },
  { name: 'tenant update (the read-back)', route: ROUTES.getTenant!, fromCall: 2, argv: ['tenant', 'update', TENANT, '--domain', 'b.example'] },
  { name: 'number list', route: ROUTES.listNumbers!, argv: ['number', 'list'] },
  { name: 'number get', route: ROUTES.getNumber!, argv: ['number', 'get', NUMBER] },
  { name: 'number provision', route: ROUTES.provision!, argv: ['number', 'provision', NUMBER, '--tenant', TENANT, '--type', 'SMS', '--class', 'P2P'] },
  { name: 'number unprovision', route: ROUTES.provision!, argv: ['number', 'unprovision', NUMBER, '--tenant', TENANT, '--yes'] },
  { name: 'number update (the PUT)', route: ROUTES.updateNumber!, argv: ['number', 'update', NUMBER, '--description', 'd'] },
  { name: 'number update (the read-back)', route: ROUTES.getNumber!, argv: ['number', 'update', NUMBER, '--description', 'd'] },
  { name: 'number loa upload', route: ROUTES.loa!, argv: ['number', 'loa', 'upload', PDF] },
  { name: 'order get', route: ROUTES.getOrder!, argv: ['order', 'get', ORDER] },
  { name: 'order watch', route: ROUTES.getOrder!, argv: ['order', 'watch', ORDER, '--interval', '0.1'] },
  { name: 'message get', route: ROUTES.getMessage!, argv: ['message', 'get', MESSAGE] },
  { name: 'message watch', route: ROUTES.getMessage!, argv: ['message', 'watch', MESSAGE, '--interval', '0.1'] },
  { name: 'media upload', route: ROUTES.media!, argv: ['media', 'upload', PNG, '--number', NUMBER, '--tenant', TENANT, '--shape', 'a'] },
  { name: 'send to one', route: ROUTES.send!, argv: ['send', '--from', NUMBER, '--to', TO_A, '--body', 'hi'], recipients: [TO_A] },
  { name: 'send to several', route: ROUTES.send!, argv: ['send', '--from', NUMBER, '--to', TO_A, '--to', TO_B, '--body', 'hi'], recipients: [TO_A, TO_B] },
  { name: 'send --to-file', route: ROUTES.send!, argv: ['send', '--from', NUMBER, '--to-file', RECIPIENTS, '--body', 'hi'], recipients: [TO_A, TO_B] },
];

let runs = 0;
// A PUT may answer 204 (the CLI then reads the resource back, which has its own row).
const cases = CALLS.flatMap((call) =>
  Object.keys(FAULTS)
    .filter((fault) => !(call.route.method === 'PUT' && fault.startsWith('204')))
    .map((fault) => [call.name, fault, call] as const),
);

describe('the --debug trace of a redirect', () => {
  it('shows where it pointed without the credentials or query the server put in it', async () => {
    calls.clear();
    active = { route: ROUTES.listTenants!, fromCall: 1, fault: FAULTS['302 with a Location']! };
    const result = await runCli(['tenant', 'list', '--debug'], {
      env: { SVC_BASE_URL: baseUrl, SVC_USERNAME: 'faults@example.com', SVC_PASSWORD: PASSWORD },
      clock: fakeClock(),
    });
    active = undefined;
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('< location: https://login.example.com/sso?...');
    expect(result.stderr).not.toMatch(/hunter2|t0ken-value/);
  });
});

describe('the fault-server matrix', () => {
  it.each(cases)('%s, answered with %s, exits 1 and shows nothing as a success', async (_name, faultName, call) => {
    const journal = join(dir, `journal-${++runs}.ndjson`);
    const isSend = call.recipients !== undefined;
    // Given before the command, --timeout is the global per-request one (after `order watch` it
    // would be the watch's own).
    const timeout = !faultName.includes('trickled') ? TIMEOUT : call.argv.includes('--to-file') ? BULK_TRICKLE_TIMEOUT : TRICKLE_TIMEOUT;
    const argv = ['--timeout', timeout, ...call.argv, '--json', ...(isSend ? ['--journal', journal] : [])];
    calls.clear();
    active = { route: call.route, fromCall: call.fromCall ?? 1, fault: FAULTS[faultName]! };
    const result = await runCli(argv, {
      env: { SVC_BASE_URL: baseUrl, SVC_USERNAME: 'faults@example.com', SVC_PASSWORD: PASSWORD, SVC_TENANT: TENANT, SVC_ORDER_POLL_MS: '10' },
      clock: fakeClock(),
    });
    active = undefined;
    expect(calls.get(call.route) ?? 0, 'the faulty call was made').toBeGreaterThanOrEqual(call.fromCall ?? 1);
    expect(result.code, result.stderr).toBe(1);
    const error = (JSON.parse(result.stderr.trim().split('\n').at(-1)!) as { error: { message: string; status: number | null } }).error;
    if (faultName.includes('with a Location')) {
      expect(error.message).toContain('redirect to https://login.example.com/sso?...');
      expect(error.message).toContain('the base URL is probably wrong');
    }
    if (faultName.includes('without a Location')) expect(error.message).toContain('redirect without a Location');
    // undici (the bulk send) reads an unasked-for 101 as a protocol error, without a status.
    if (faultName.startsWith('101') && call.argv.includes('--to-file')) expect(error.status).toBeNull();
    else if (/^(\d{3})/.test(faultName)) expect(error.status).toBe(Number(faultName.slice(0, 3)));
    if (faultName.includes('trickled')) expect(error.message).toContain(`within ${timeout} s (--timeout)`);
    expect(result.stdout + result.stderr).not.toMatch(/hunter2|t0ken-value/);
    if (!isSend) {
      expect(result.stdout).toBe('');
      return;
    }
    // A send: one array element per request, each an error; nobody journaled as accepted.
    const printed = JSON.parse(result.stdout) as { to: string[]; error?: unknown; messageId?: unknown }[];
    expect(printed.flatMap((r) => r.to).sort()).toEqual([...call.recipients!].sort());
    for (const element of printed) expect(element.error).toBeDefined();
    expect(existsSync(journal)).toBe(true);
    const text = readFileSync(journal, 'utf8');
    for (const to of call.recipients!) expect(text).toContain(to);
    expect(text).not.toMatch(/"accepted"/);
    // An answer that may have been acted on is unknown, never rejected (resume must ask).
    expect(text).toMatch(/"unknown"/);
  });
});
