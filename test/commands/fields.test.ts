import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventRecord, sentRecord } from '../../src/events/records.js';
import { writeSegment } from '../../src/events/store/writer.js';
import { fakeClock, runCli } from '../helpers/cli.js';
import { createMockApi, MOCK_ENV, type MockApi } from '../helpers/mock-api.js';
import { accepted, mockSends, type SendMock } from './send/helpers.js';

// --fields for the commands that write their documents themselves: send
// results and --dry-run, `svc api`, events list/show, thread, send report. An unknown field is
// exit 2 listing those there are; for send, before anything is sent.

const FROM = '+15551230000';
const A = '+15557650001';
const B = '+15557650002';
const US = '+15557770100';
const ANN = '+14155551001';
const T0 = Date.parse('2026-03-01T09:00:00Z');

let sendMock: SendMock | undefined;
let apiMock: MockApi | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await sendMock?.close();
  await apiMock?.agent.close();
  sendMock = undefined;
  apiMock = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const send = (argv: string[], options: Parameters<typeof runCli>[1] = {}) =>
  runCli(['send', '--from', FROM, ...argv], { clock: fakeClock(), ...options, env: { ...MOCK_ENV, ...options.env }, ...(sendMock ? { dispatcher: sendMock.agent } : {}) });

function store(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-fields-'));
  dirs.push(dir);
  const path = join(dir, 'events');
  writeSegment(path, [
    sentRecord({ messageId: 'm-ann', from: US, to: ANN, body: 'Hi Ann', at: new Date(T0) }),
    eventRecord({
      id: 'dlv-1',
      type: 'DeliveryReceipt',
      receivedAt: new Date(T0 + 5000),
      messageId: 'm-ann',
      status: 'delivered',
      headers: { 'content-type': 'application/json' },
      raw: '{"messageId":"m-ann","status":"delivered","deliveredAt":"2026-03-01T09:00:05Z"}',
    }),
  ]);
  return path;
}

describe('--fields on send', () => {
  it('selects from each result in --json and ndjson, nested paths kept nested', async () => {
    sendMock = mockSends(accepted);
    const json = await send(['--to', A, '--to', B, '--body', 'Hi', '--json', '--fields', 'to,messageId']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([{ to: [A, B], messageId: `msg-0-${A}` }]);
    const ndjson = await send(['--to', A, '--body', 'Hi', '-o', 'ndjson', '--fields', 'status,queuedAt']);
    expect(ndjson.code).toBe(0);
    expect(ndjson.stdout).toBe('{"status":"queued","queuedAt":"2026-01-01T00:00:00Z"}\n');
  });

  it('selects error fields of a refused request', async () => {
    sendMock = mockSends(() => ({ status: 400, body: { message: 'bad number', errorCode: 'E1' } }));
    const result = await send(['--to', A, '--body', 'Hi', '--json', '--fields', 'to,error.message']);
    expect(JSON.parse(result.stdout)).toEqual([{ to: [A], error: { message: expect.stringContaining('bad number') } }]);
  });

  it('prints the fields as a key/value view when piped', async () => {
    sendMock = mockSends(accepted);
    const result = await send(['--to', A, '--body', 'Hi', '--fields', 'messageId']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`messageId\tmsg-0-${A}\n`);
  });

  it('refuses an unknown field with exit 2, listing the fields, before anything is sent', async () => {
    sendMock = mockSends(accepted);
    const result = await send(['--to', A, '--body', 'Hi', '--fields', 'messageID']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('"messageID" is not a field');
    expect(result.stderr).toContain('messageId');
    expect(result.stderr).toContain('error.message');
    expect(sendMock.sends).toHaveLength(0);
  });

  it('selects from the --dry-run document, and refuses a field it does not have', async () => {
    const dry = await send(['--to', A, B, '--body', 'Hi', '--dry-run', '--json', '--fields', 'recipients,segments']);
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout)).toEqual({ recipients: 2, segments: 1 });
    const table = await send(['--to', A, '--body', 'Hi', '--dry-run', '--fields', 'encoding']);
    expect(table.stdout).toBe('encoding\tGSM-7\n');
    expect(table.stderr).toContain('nothing was sent');
    const bad = await send(['--to', A, '--body', 'Hi', '--dry-run', '--fields', 'messageId']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"messageId" is not a field');
    expect(bad.stderr).toMatch(/Available: .*totalSegments/);
    expect(bad.stdout).toBe('');
  });
});

describe('--fields on svc api', () => {
  it('selects from an object answer and from each element of an array answer', async () => {
    apiMock = createMockApi();
    apiMock.expect('GET', 'tenants/t1', { status: 200, body: { tenantId: 't1', domain: 'x.com', settings: { rateLimit: 5, other: 1 } } });
    apiMock.expect('GET', 'tenants', { status: 200, body: [{ tenantId: 'a', domain: 'a.com' }, { tenantId: 'b', domain: 'b.com' }] });
    const run = (argv: string[]) => runCli(argv, { env: MOCK_ENV, dispatcher: apiMock!.agent });
    const one = await run(['api', 'GET', '/tenants/t1', '--fields', 'tenantId,settings.rateLimit']);
    expect(one.code).toBe(0);
    expect(JSON.parse(one.stdout)).toEqual({ tenantId: 't1', settings: { rateLimit: 5 } });
    const list = await run(['api', 'GET', '/tenants', '-o', 'ndjson', '--fields', 'domain']);
    expect(list.stdout).toBe('[{"domain":"a.com"},{"domain":"b.com"}]\n');
    apiMock.verify();
  });

  it('refuses an unknown field with exit 2 and the available ones', async () => {
    apiMock = createMockApi();
    apiMock.expect('GET', 'tenants/t1', { status: 200, body: { tenantId: 't1', domain: 'x.com' } });
    const result = await runCli(['api', 'GET', '/tenants/t1', '--fields', 'domian'], { env: MOCK_ENV, dispatcher: apiMock.agent });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('"domian" is not a field');
    expect(result.stderr).toContain('Available: tenantId, domain');
    expect(result.stdout).toBe('');
  });

  it('after a call that changed something, an unknown field still prints the whole answer', async () => {
    apiMock = createMockApi();
    apiMock.expect('POST', 'tenants', { status: 201, body: { tenantId: 't2', domain: 'y.com' } });
    const result = await runCli(['api', 'POST', '/tenants', '--data', '{"domain":"y.com"}', '--fields', 'id'], { env: MOCK_ENV, dispatcher: apiMock.agent });
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toEqual({ tenantId: 't2', domain: 'y.com' });
    expect(result.stderr).toContain('"id" is not a field');
    expect(result.stderr).toContain('The POST was made: its whole answer is on stdout.');
  });
});

describe('--fields on sandbox outputs', () => {
  it('webhooks list and failed select from each row, in --json and as piped rows', async () => {
    apiMock = createMockApi();
    const rows = [{ at: '2026-03-01T09:00:00Z', deliveryId: 'dlv-1', event: 'DeliveryReceipt', attempt: 1, status: 500, error: 'HTTP 500', url: 'http://127.0.0.1:9/hook' }];
    apiMock.expect('GET', 'sandbox/webhooks/deliveries', { status: 200, body: rows });
    apiMock.expect('GET', 'sandbox/webhooks/failed', { status: 200, body: rows });
    const run = (argv: string[]) => runCli(argv, { env: MOCK_ENV, dispatcher: apiMock!.agent });
    const list = await run(['sandbox', 'webhooks', 'list', '--json', '--fields', 'deliveryId,status']);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([{ deliveryId: 'dlv-1', status: 500 }]);
    const failed = await run(['sandbox', 'webhooks', 'failed', '--fields', 'deliveryId,error']);
    expect(failed.stdout).toBe('dlv-1\tHTTP 500\n');
    apiMock.verify();
  });
});

describe('--fields on the event store', () => {
  it('events list --json, ndjson and a table of the JSON fields', async () => {
    const path = store();
    const json = await runCli(['events', 'list', '--store', path, '--json', '--fields', 'id,type,status']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([{ id: 'dlv-1', type: 'DeliveryReceipt', status: 'delivered' }]);
    const piped = await runCli(['events', 'list', '--store', path, '--fields', 'id,status']);
    expect(piped.stdout).toBe('dlv-1\tdelivered\n');
    const bad = await runCli(['events', 'list', '--store', path, '--fields', 'statuss']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/"statuss" is not a field[\s\S]*Available: .*status/);
    expect(bad.stdout).toBe('');
    // --json errors are one JSON document: the message names the field, the hint keeps the list.
    const badJson = await runCli(['events', 'list', '--store', path, '--json', '--fields', 'statuss']);
    expect(badJson.code).toBe(2);
    const error = (JSON.parse(badJson.stderr) as { error: { message: string; hint?: string } }).error;
    expect(error.message).toContain('"statuss" is not a field');
    expect(error.hint).toMatch(/Available: .*status/);
  });

  it('events show and thread', async () => {
    const path = store();
    const show = await runCli(['events', 'show', 'dlv-1', '--store', path, '--fields', 'type,payload.deliveredAt']);
    expect(show.code).toBe(0);
    expect(show.stdout).toBe('type\tDeliveryReceipt\npayload.deliveredAt\t2026-03-01T09:00:05Z\n');
    const thread = await runCli(['thread', ANN, '--store', path, '-o', 'ndjson', '--fields', 'messageId']);
    expect(thread.code).toBe(0);
    expect(thread.stdout).toBe('{"messageId":"m-ann"}\n{"messageId":"m-ann"}\n');
    const badThread = await runCli(['thread', ANN, '--store', path, '--json', '--fields', 'nope']);
    expect(badThread.code).toBe(2);
  });
});
