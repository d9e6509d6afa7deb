import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventRecord, sentRecord } from '../../src/events/records.js';
import { writeSegment } from '../../src/events/store/writer.js';
import { json, startTestServer, type TestServer } from '../helpers/http-server.js';
import { BIN } from '../helpers/spawn.js';
import { startPty } from './pty.js';

// Finished documents go through the pager when taller than the terminal:
// order get, message get, events list/show, thread and sandbox webhooks list, on a real
// pseudo-terminal with SVC_PAGER a filter that marks every line it pages. And the tenant of a
// media upload, asked for there.

const TENANT = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
const OTHER_TENANT = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const US = '+15557770100';
const ANN = '+14155551001';
const T0 = Date.parse('2026-03-01T09:00:00Z');
const ORDER_NUMBERS = Array.from({ length: 12 }, (_, i) => ({ phoneNumber: `+1555123${String(i).padStart(4, '0')}`, status: 'Completed' }));

let server: TestServer;
let dir: string;
let store: string;
beforeAll(async () => {
  server = await startTestServer();
  server.on('GET', '/api/v1/phone-numbers/orders/1042', json(200, { orderId: 1042, status: 'Completed', action: 'Provision', tenantId: TENANT, phoneNumbers: ORDER_NUMBERS }));
  server.on(
    'GET',
    '/api/v1/messages/0b0a6c8e-2f7a-4a55-9b1e-3d7c2a1f9e10',
    json(200, { messageId: '0b0a6c8e-2f7a-4a55-9b1e-3d7c2a1f9e10', status: 'delivered', from: US, to: [ANN], body: 'Hello', segments: 1, encoding: 'GSM-7', queuedAt: '2026-03-01T09:00:00Z', sentAt: '2026-03-01T09:00:01Z', deliveredAt: '2026-03-01T09:00:05Z', errorCode: null, errorMessage: null }),
  );
  server.on(
    'GET',
    '/api/v1/sandbox/webhooks/deliveries',
    json(200, Array.from({ length: 12 }, (_, i) => ({ at: `2026-03-01T09:00:${String(i).padStart(2, '0')}Z`, deliveryId: `dlv-${i}`, event: 'DeliveryReceipt', attempt: 1, status: 200, url: 'http://127.0.0.1:9/hook' }))),
  );
  server.on('GET', '/api/v1/tenants', json(200, [{ tenantId: TENANT, domain: 'a.example' }, { tenantId: OTHER_TENANT, domain: 'b.example' }]));
  server.on('POST', '/api/v1/media', json(201, { uri: 'https://media.test/photo.png', fileName: 'photo.png' }));
  dir = mkdtempSync(join(tmpdir(), 'svc-paged-'));
  writeFileSync(join(dir, 'photo.png'), Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 7)]));
  store = join(dir, 'events');
  const records = [];
  for (let i = 0; i < 6; i++) {
    records.push(sentRecord({ messageId: `m-${i}`, from: US, to: ANN, body: `Message ${i}`, at: new Date(T0 + i * 60_000) }));
    records.push(
      eventRecord({
        id: `dlv-${i}`,
        type: 'DeliveryReceipt',
        receivedAt: new Date(T0 + i * 60_000 + 5000),
        messageId: `m-${i}`,
        status: 'delivered',
        headers: { 'content-type': 'application/json', 'x-svc-event': 'DeliveryReceipt', 'x-svc-delivery': `dlv-${i}` },
        raw: JSON.stringify({ messageId: `m-${i}`, status: 'delivered', statusReason: null, deliveredAt: '2026-03-01T09:00:05Z', errorCode: null, errorMessage: null }),
      }),
    );
  }
  writeSegment(store, records);
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const env = (extra: Record<string, string> = {}): Record<string, string | undefined> => ({
  PATH: process.env['PATH'],
  HOME: process.env['HOME'],
  TERM: 'xterm',
  NO_COLOR: '1',
  SVC_CONFIG_DIR: '/nonexistent-svc-config',
  SVC_DATA_DIR: dir,
  SVC_BASE_URL: server.url,
  SVC_USERNAME: 'pty@example.com',
  SVC_PASSWORD: 'pty-pa55',
  SVC_TENANT: TENANT,
  SVC_PAGER: "sed 's/^/PAGED|/'",
  CI: undefined,
  ...extra,
});

const COMMANDS: [string, string[], RegExp][] = [
  ['order get', ['order', 'get', '1042'], /PAGED\|.*\+15551230011/],
  ['message get', ['message', 'get', '0b0a6c8e-2f7a-4a55-9b1e-3d7c2a1f9e10'], /PAGED\|.*deliveredAt/],
  ['events list', ['events', 'list', '--store', '{store}'], /PAGED\|.*dlv-5/],
  ['events show', ['events', 'show', 'dlv-1', '--store', '{store}'], /PAGED\|.*"errorMessage": null/],
  ['thread', ['thread', ANN, '--store', '{store}'], /PAGED\|.*Message 5/],
  ['sandbox webhooks list', ['sandbox', 'webhooks', 'list'], /PAGED\|.*dlv-11/],
];

describe('paged on a terminal when taller than it', () => {
  it.each(COMMANDS)('%s', async (_name, args, last) => {
    const argv = args.map((a) => (a === '{store}' ? store : a));
    const paged = startPty(process.execPath, [BIN, ...argv], { env: env(), rows: 6, cols: 160 });
    await paged.waitFor(last);
    expect(await paged.exited).toBe(0);
    const shown = paged.text().split('\n').filter((line) => line.trim() !== '');
    // Every line of the document went through the pager.
    expect(shown.length).toBeGreaterThan(6);
    expect(shown.filter((line) => !line.startsWith('PAGED|'))).toEqual([]);

    const unpaged = startPty(process.execPath, [BIN, ...argv, '--no-pager'], { env: env(), rows: 6, cols: 160 });
    expect(await unpaged.exited).toBe(0);
    expect(unpaged.text()).not.toContain('PAGED|');
  }, 60_000);
});

describe('the tenant of a media upload, on a real terminal', () => {
  it('is chosen among the account\'s tenants (arrow keys, Enter) when none is given', async () => {
    const run = startPty(process.execPath, [BIN, 'media', 'upload', join(dir, 'photo.png'), '--number', US, '--shape', 'a'], { env: env({ SVC_TENANT: '' }) });
    await run.waitFor(/Which tenant\?[\s\S]*b\.example/);
    run.write('\u001b[B');
    run.write('\r');
    await run.waitFor(/media\.test\/photo\.png/);
    expect(await run.exited).toBe(0);
    const upload = server.requests.find((r) => r.method === 'POST' && r.url === '/api/v1/media');
    expect(JSON.parse(upload!.body)).toMatchObject({ tenantId: OTHER_TENANT, phoneNumber: US });
  }, 60_000);

  it('is never asked with CI set: the error names --tenant, SVC_TENANT and svc tenant use', async () => {
    const before = server.requests.length;
    const run = startPty(process.execPath, [BIN, 'media', 'upload', join(dir, 'photo.png'), '--number', US], { env: env({ SVC_TENANT: '', CI: 'true' }) });
    await run.waitFor(/tenant of the upload is missing: give --tenant GUID or set SVC_TENANT[\s\S]*svc tenant use GUID/);
    expect(await run.exited).toBe(2);
    expect(server.requests.length).toBe(before);
  }, 60_000);
});
