import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../../../src/sandbox/index.js';
import { SandboxStore } from '../../../src/sandbox/state/records.js';
import { readSavedState } from '../../../src/sandbox/state/change-log.js';
import { writeFileAtomic } from '../../../src/domain/files/atomic-write.js';
import { createTenant, eventually, obj, provisionAndWait, startHarness, type Harness } from '../helpers.js';

let dir: string;
let stateFile: string;
const running: Harness[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-sandbox-state-'));
  stateFile = join(dir, 'state.json');
});
afterEach(async () => {
  for (const h of running.splice(0)) await h.close();
  await rm(dir, { recursive: true, force: true });
});

async function start(options: Parameters<typeof startHarness>[0] = {}): Promise<Harness> {
  const h = await startHarness({ stateFile, ...options });
  running.push(h);
  return h;
}

async function stop(h: Harness): Promise<void> {
  running.splice(running.indexOf(h), 1);
  await h.close();
}

describe('--state FILE', () => {
  it('keeps tenants (with secrets), numbers, orders, messages, media and webhook state across a restart', async () => {
    const first = await start();
    const tenantId = await createTenant(first, { settings: { webhookPrimaryUri: 'https://hooks.example.com/p', webhookSecret: 'kept-secret' } });
    const order = await provisionAndWait(first, tenantId, ['+14155550500']);
    const message = obj(await first.api('POST', '/messages?isAsync=true', { from: '+14155550500', to: ['+14155559500'], body: 'persist me' }));
    await first.dispatcher.waitFor('DeliveryReceipt', (p) => p['messageId'] === message['messageId'] && p['status'] === 'delivered');
    const uri = obj(await first.api('POST', '/media', { phoneNumber: '+14155550500', fileName: 'k.txt', contentType: 'text/plain', data: Buffer.from('kept bytes').toString('base64'), tenantId }))['uri'] as string;
    first.dispatcher.failedEvents.push({
      deliveryId: 'dlv_persisted',
      event: 'OrderStatus',
      tenantId,
      attempts: 3,
      firstAttemptAt: '2026-01-01T00:00:00.000Z',
      lastAttemptAt: '2026-01-01T00:01:00.000Z',
      lastStatus: 503,
      lastError: null,
      payload: {},
    });
    await stop(first);

    const mode = (await stat(stateFile)).mode & 0o777;
    expect(mode).toBe(0o600);
    // close() has folded everything into the snapshot: the failure queue is on disk, no log is left.
    const onDisk = await readSavedState(stateFile);
    expect(onDisk.snapshot?.dispatcher?.failed.map((f) => f.deliveryId)).toEqual(['dlv_persisted']);
    expect(onDisk.lines).toEqual([]);

    const second = await start();
    expect(second.dispatcher.restored?.failed.map((f) => f.deliveryId)).toEqual(['dlv_persisted']);
    expect(obj(await second.api('GET', `/tenants/${tenantId}`))['settings']).toMatchObject({ webhookSecret: '********' });
    expect(obj(await second.api('GET', `/phone-numbers/orders/${order['orderId'] as number}`))['status']).toBe('Completed');
    expect(obj(await second.api('GET', '/phone-numbers/%2B14155550500'))['status']).toBe('Active');
    expect(obj(await second.api('GET', `/messages/${message['messageId'] as string}`))).toMatchObject({ status: 'delivered', body: 'persist me' });
    // The signing key survived: the old link's token still opens the bytes on the new server.
    const old = new URL(uri);
    const res = await fetch(`${second.sandbox.url}${old.pathname}${old.search}`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('kept bytes');
    // Secrets are kept in clear in the 0600 file (the sandbox signs webhooks with them) ...
    expect(await readFile(stateFile, 'utf8')).toContain('kept-secret');
    // ... and the order counter continues rather than reusing ids.
    const next = obj(await second.api('POST', '/phone-numbers/provision', {
      action: 'Provision',
      tenantId,
      phoneNumbers: [{ number: '+14155550501', messagingFeature: { provisionType: 'SMS', provisionClass: 'P2P' } }],
    }));
    expect(next['orderId']).toBe((order['orderId'] as number) + 1);
  });

  it('resumes in-flight orders and messages after a restart', async () => {
    const first = await start({ orderDelayMs: 40, messageStepMs: 20 });
    const tenantId = await createTenant(first, { settings: { webhookPrimaryUri: 'https://hooks.example.com/r' } });
    await provisionAndWait(first, tenantId, ['+14155550510']);
    await stop(first);

    // Delays long enough that nothing moves before the stop, however slow the machine.
    const slow = await start({ orderDelayMs: 600_000, messageStepMs: 600_000 });
    const message = obj(await slow.api('POST', '/messages?isAsync=true', { from: '+14155550510', to: ['+14155559510'], body: 'in flight' }));
    const order = obj(await slow.api('POST', '/phone-numbers/provision', {
      action: 'Provision',
      tenantId,
      phoneNumbers: [{ number: '+14155550511', messagingFeature: { provisionType: 'SMS', provisionClass: 'P2P' } }],
    }));
    await stop(slow);
    const saved = JSON.parse(await readFile(stateFile, 'utf8')) as { messages: { messageId: string; status: string }[]; orders: { orderId: number; status: string }[] };
    expect(saved.messages.find((m) => m.messageId === message['messageId'])?.status).toBe('queued');
    expect(saved.orders.find((o) => o.orderId === order['orderId'])?.status).toBe('Pending');

    const resumed = await start();
    await resumed.dispatcher.waitFor('DeliveryReceipt', (p) => p['messageId'] === message['messageId'] && p['status'] === 'delivered');
    await resumed.dispatcher.waitFor('OrderStatus', (p) => p['orderId'] === order['orderId'] && p['status'] === 'Completed');
    expect(obj(await resumed.api('GET', `/messages/${message['messageId'] as string}`))['status']).toBe('delivered');
    expect(obj(await resumed.api('GET', `/phone-numbers/orders/${order['orderId'] as number}`))['status']).toBe('Completed');
  });

  it('has every answered write on disk before the answer (snapshot plus change log)', async () => {
    const h = await start();
    const tenantId = await createTenant(h);
    const saved = await readSavedState(stateFile);
    expect(saved.lines.some((l) => l.k === 'tenant' && l.v['tenantId'] === tenantId)).toBe(true);
    expect(saved.snapshot?.logGeneration).toBeGreaterThan(0);
  });

  it('never lets a torn temporary file replace the state, and removes it on start', async () => {
    const h = await start();
    const tenantId = await createTenant(h);
    await stop(h);
    const good = await readFile(stateFile, 'utf8');
    // What a writer killed mid-write leaves: a partial temporary file beside the real one.
    const torn = join(dir, '.state.json.tmp-99999-deadbeef');
    await writeFile(torn, good.slice(0, Math.floor(good.length / 2)));
    const again = await start();
    expect((await again.api('GET', `/tenants/${tenantId}`)).status).toBe(200);
    expect((await readdir(dir)).filter((n) => n.includes('.tmp-'))).toEqual([]);
    await stop(again);
    expect(await readdir(dir)).toEqual(['state.json']);
  });

  it('refuses to start on a state file that is not valid, and leaves it untouched', async () => {
    await writeFile(stateFile, '{"version": 1, "tenan');
    await expect(startSandbox({ port: 0, stateFile })).rejects.toThrow(/not valid JSON/);
    expect(await readFile(stateFile, 'utf8')).toBe('{"version": 1, "tenan');
    await writeFile(stateFile, '{"some": "other file"}');
    await expect(startSandbox({ port: 0, stateFile })).rejects.toThrow(/not a sandbox state/);
    // The right top-level shape, but of another version or with a damaged record inside.
    const empty = { mediaSigningKey: '', nextOrderId: 1, tenants: [], numbers: [], orders: [], messages: [], media: [] };
    const newer = JSON.stringify({ ...empty, version: 99 });
    await writeFile(stateFile, newer);
    await expect(startSandbox({ port: 0, stateFile })).rejects.toThrow(/^state file .* is not a sandbox state this version can load \(unsupported state file version 99/);
    expect(await readFile(stateFile, 'utf8')).toBe(newer);
    await writeFile(stateFile, JSON.stringify({ ...empty, version: 1, tenants: [null] }));
    await expect(startSandbox({ port: 0, stateFile })).rejects.toThrow(/^state file .* is not a sandbox state this version can load/);
  });

  it('writes atomically: the target holds the old or the new content, never a mix, and no temp file stays', async () => {
    await writeFileAtomic(stateFile, 'old');
    await Promise.all([writeFileAtomic(stateFile, 'new-1'), writeFileAtomic(stateFile, 'new-2')]);
    expect(['new-1', 'new-2']).toContain(await readFile(stateFile, 'utf8'));
    expect(await readdir(dir)).toEqual(['state.json']);
    await expect(writeFileAtomic(join(dir, 'missing-dir', 'state.json'), 'x')).rejects.toThrow();
    expect(await readFile(stateFile, 'utf8')).not.toBe('x');
  });
});

describe('--state: the change log and its compaction', () => {
  it('loads a state file written by earlier versions (one JSON document, no log)', async () => {
    const store = new SandboxStore();
    store.tenants.set('11111111-1111-4111-8111-111111111111', {
      tenantId: '11111111-1111-4111-8111-111111111111',
      owner: 'sandbox@example.com',
      billableOwner: 'sandbox@example.com',
      domain: 'old.example.com',
      createdDate: '2024-01-01T00:00:00.000Z',
      settings: { webhookEventType: 'All' },
    });
    store.nextOrderId = 2000;
    const old = store.serialize({ pending: [], failed: [], attempts: [] });
    expect(old).not.toHaveProperty('logGeneration');
    await writeFile(stateFile, JSON.stringify(old));
    const h = await start();
    expect(obj(await h.api('GET', '/tenants/11111111-1111-4111-8111-111111111111'))['domain']).toBe('old.example.com');
    const tenantId = (await h.api('GET', '/tenants')).json as unknown[];
    expect(tenantId).toHaveLength(1);
  });

  it('compacts a log grown past its limit into the snapshot, and loses nothing doing so', async () => {
    const h = await start({ compactBytes: 2000 });
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) ids.push(await createTenant(h, { domain: `c${i}.example.com` }));
    // A few generations have passed: the snapshot names a log beyond the first.
    await eventually(async () => ((await readSavedState(stateFile)).snapshot?.logGeneration ?? 0) > 2 ? true : undefined);
    const saved = await readSavedState(stateFile);
    const inSnapshot = new Set(saved.snapshot?.tenants.map((t) => t.tenantId));
    const inLog = new Set(saved.lines.filter((l) => l.k === 'tenant').map((l) => (l.v as Record<string, unknown>)['tenantId']));
    for (const id of ids) expect(inSnapshot.has(id) || inLog.has(id), id).toBe(true);
    // Only the current log is left beside the snapshot.
    expect((await readdir(dir)).filter((n) => n.endsWith('.log'))).toHaveLength(1);
    await stop(h);
    expect(await readdir(dir)).toEqual(['state.json']);
    const again = await start();
    for (const id of ids) expect((await again.api('GET', `/tenants/${id}`)).status).toBe(200);
  });

  it('drops a torn last log line (never answered) and refuses a damaged one in the middle', async () => {
    const h = await start();
    const kept = await createTenant(h, { domain: 'kept.example.com' });
    // What kill -9 leaves: the log as it is, no compaction on the way out.
    const { lines } = await readSavedState(stateFile);
    expect(lines.length).toBeGreaterThan(0);
    const logName = (await readdir(dir)).find((n) => n.endsWith('.log')) as string;
    running.splice(running.indexOf(h), 1);
    const text = await readFile(join(dir, logName), 'utf8');
    await h.close();
    // close() folded the log into a snapshot without the tenant ... put back an empty snapshot
    // and the crash-time log, torn at its end, as kill -9 during a write would leave them.
    const folded = JSON.parse(await readFile(stateFile, 'utf8')) as { logGeneration: number; tenants: unknown[] };
    await writeFile(stateFile, JSON.stringify({ ...folded, tenants: [] }));
    await writeFile(join(dir, `state.json.${folded.logGeneration}.log`), `${text}{"k":"tenant","v":{"tenantId":"22222222-2222`);
    const again = await start();
    expect((await again.api('GET', `/tenants/${kept}`)).status).toBe(200);
    expect((await again.api('GET', '/tenants')).json).toHaveLength(1);
    await stop(again);
    await writeFile(join(dir, 'state.json.999.log'), `{"k":"tenant",\n${text}`);
    await expect(startSandbox({ port: 0, stateFile })).rejects.toThrow(/state log .*state\.json\.999\.log line 1 is damaged/);
  });
});
