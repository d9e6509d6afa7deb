import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventRecord, sentRecord } from '../../src/events/records.js';
import { writeSegment } from '../../src/events/store.js';
import { json, startTestServer, type TestServer } from '../helpers/http-server.js';
import { BIN } from '../helpers/spawn.js';
import { startPty } from './pty.js';

// Finished documents go through the pager when taller than the terminal (issue 11, item 3):
// order get, message get, events list/show, thread and sandbox webhooks list, on a real
// pseudo-terminal with SVC_PAGER a filter that marks every line it pages.

const TENANT = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
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
    '/api/v1/messages/m-1',
    json(200, { messageId: 'm-1', status: 'delivered', from: US, to: [ANN], body: 'Hello', segments: 1, encoding: 'GSM-7', queuedAt: '2026-03-01T09:00:00Z', sentAt: '2026-03-01T09:00:01Z', deliveredAt: '2026-03-01T09:00:05Z', errorCode: null, errorMessage: null }),
  );
  server.on(
    'GET',
    '/api/v1/sandbox/webhooks/deliveries',
    json(200, Array.from({ length: 12 }, (_, i) => ({ at: `2026-03-01T09:00:${String(i).padStart(2, '0')}Z`, deliveryId: `dlv-${i}`, event: 'DeliveryReceipt', attempt: 1, status: 200, url: 'http://127.0.0.1:9/hook' }))),
  );
  dir = mkdtempSync(join(tmpdir(), 'svc-paged-'));
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
  ['message get', ['message', 'get', 'm-1'], /PAGED\|.*deliveredAt/],
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
