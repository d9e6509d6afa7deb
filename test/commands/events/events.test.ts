import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventRecord, sentRecord } from '../../../src/events/records.js';
import { EventStoreReader } from '../../../src/events/store/reader.js';
import { EventStoreWriter, writeSegment } from '../../../src/events/store/writer.js';
import type { StoredRecord } from '../../../src/events/store/record.js';
import { signBody, verifySignature } from '../../../src/domain/signature.js';
import { post } from '../../webhooks/helpers.js';
import { JournalWriter } from '../../../src/send/journal/writer.js';
import { fakeClock, runCli } from '../../helpers/cli.js';
import { MOCK_ENV } from '../../helpers/mock-api.js';
import { startCommand } from '../../helpers/live.js';
import { accepted, mockSends, type SendMock } from '../send/helpers.js';

const US = '+15557770100';
const ANN = '+14155551001';
const BOB = '+14155551002';
const T0 = Date.parse('2026-03-01T09:00:00Z');

const dirs: string[] = [];
let mock: SendMock | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempStore(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-events-cmd-'));
  dirs.push(dir);
  return join(dir, 'events');
}

// A body with odd spacing, key order and non-ASCII: replay must send these exact bytes.
const REPLY_BODY = '{ "from": "+14155551001",  "tos": ["+15557770100"], "message": "Grüße ☀ — yes, Tuesday", "messageId": "in-1" }';

function campaign(dir: string): StoredRecord[] {
  const records: StoredRecord[] = [
    sentRecord({ messageId: 'm-ann', from: US, to: ANN, body: 'Hi Ann, your order shipped', at: new Date(T0) }),
    sentRecord({ messageId: 'm-bob', from: US, to: BOB, body: 'Hi Bob, your order shipped', at: new Date(T0 + 1000) }),
    eventRecord({
      id: 'dlv-1',
      type: 'DeliveryReceipt',
      receivedAt: new Date(T0 + 5000),
      messageId: 'm-ann',
      status: 'delivered',
      headers: { 'content-type': 'application/json', 'x-svc-event': 'DeliveryReceipt', 'x-svc-delivery': 'dlv-1' },
      raw: '{"messageId":"m-ann","status":"delivered","deliveredAt":"2026-03-01T09:00:05Z"}',
    }),
    eventRecord({
      id: 'dlv-2',
      type: 'DeliveryReceipt',
      receivedAt: new Date(T0 + 6000),
      messageId: 'm-bob',
      status: 'failed',
      headers: { 'content-type': 'application/json', 'x-svc-event': 'DeliveryReceipt', 'x-svc-delivery': 'dlv-2' },
      raw: '{"messageId":"m-bob","status":"failed","errorCode":"4720","errorMessage":"Unreachable"}',
    }),
    eventRecord({
      id: 'dlv-3',
      type: 'MessageReceived',
      receivedAt: new Date(T0 + 60_000),
      from: ANN,
      to: [US],
      messageId: 'in-1',
      headers: { 'content-type': 'application/json', 'x-svc-event': 'MessageReceived', 'x-svc-delivery': 'dlv-3', 'x-svc-signature': 'old' },
      raw: REPLY_BODY,
    }),
  ];
  writeSegment(dir, records);
  return records;
}

const clock = fakeClock(T0 + 3600_000);
const run = (argv: string[], options: Parameters<typeof runCli>[1] = {}) => runCli(argv, { clock, ...options });

describe('svc events list', () => {
  it('lists events oldest first, with the JSON shape of the contract', async () => {
    const store = tempStore();
    campaign(store);
    const result = await run(['events', 'list', '--store', store, '--json']);
    expect(result.code).toBe(0);
    const events = JSON.parse(result.stdout) as { id: string }[];
    expect(events.map((e) => e.id)).toEqual(['dlv-1', 'dlv-2', 'dlv-3']);
    expect(events[2]).toEqual({
      id: 'dlv-3',
      type: 'MessageReceived',
      receivedAt: '2026-03-01T09:01:00.000Z',
      messageId: 'in-1',
      from: ANN,
      to: [US],
      status: null,
      // Stored before the listener recorded whether it checked signatures: not known.
      verified: null,
      payload: JSON.parse(REPLY_BODY),
    });
  });

  it('filters by type, number (with the receipts of messages sent to it), message and time', async () => {
    const store = tempStore();
    campaign(store);
    const ids = async (...flags: string[]): Promise<string[]> => {
      const result = await run(['events', 'list', '--store', store, '-o', 'ndjson', ...flags]);
      expect(result.code).toBe(0);
      return result.stdout === '' ? [] : result.stdout.trimEnd().split('\n').map((line) => (JSON.parse(line) as { id: string }).id);
    };
    expect(await ids('--type', 'deliveryreceipt')).toEqual(['dlv-1', 'dlv-2']);
    expect(await ids('--number', ANN)).toEqual(['dlv-1', 'dlv-3']);
    expect(await ids('--number', BOB, '--type', 'DeliveryReceipt')).toEqual(['dlv-2']);
    expect(await ids('--message', 'm-bob')).toEqual(['dlv-2']);
    expect(await ids('--since', '2026-03-01T09:00:06Z')).toEqual(['dlv-2', 'dlv-3']);
    expect(await ids('--until', '2026-03-01T09:00:06Z')).toEqual(['dlv-1']);
    // The clock stands at T0 + 1 h: 30m ago is after every event.
    expect(await ids('--since', '59m')).toEqual(['dlv-3']);
    expect(await ids('--since', '30m')).toEqual([]);
  });

  it('prints a table of events, tab-separated when piped', async () => {
    const store = tempStore();
    campaign(store);
    const result = await run(['events', 'list', '--store', store, '--type', 'MessageReceived']);
    expect(result.stdout).toBe(`2026-03-01T09:01:00.000Z\tMessageReceived\tdlv-3\tin-1\t${ANN}\t${US}\t\tGrüße ☀ — yes, Tuesday\n`);
  });

  it('never cuts an id or a number on a narrow terminal: the least important columns are left out, then the text is cut', async () => {
    const store = tempStore();
    const id = 'dlv_08e6b9d937c7443273a42c4c';
    const messageId = 'd2a5fdb1-6b3c-4176-9797-f3ffb52772f1';
    writeSegment(store, [
      eventRecord({
        id,
        type: 'MessageReceived',
        receivedAt: new Date(T0),
        from: ANN,
        to: [US],
        messageId,
        headers: { 'x-svc-delivery': id },
        raw: JSON.stringify({ from: ANN, tos: [US], message: 'Thanks! Tuesday works, see you at the shop around ten', messageId }),
      }),
    ]);
    const narrow = await run(['events', 'list', '--store', store], { tty: { stdout: true, stderr: true }, columns: 120, env: { NO_COLOR: '1' } });
    expect(narrow.code).toBe(0);
    const [header, row] = narrow.stdout.trimEnd().split('\n');
    // The least important column (the message id) is left out, and named; the empty STATUS goes first.
    expect(header).toMatch(/^RECEIVED +TYPE +ID +FROM +TO +TEXT$/);
    expect(narrow.stderr).toContain('Left out to fit the terminal: MESSAGE');
    expect(row).toContain(` ${id} `);
    // Phone numbers are whole; only the free text is cut.
    expect(row).toContain(` ${ANN} `);
    expect(row).toContain(` ${US} `);
    expect([...row!].length).toBeLessThanOrEqual(120);
    expect(row).not.toContain(messageId);
    expect(row).toMatch(/Thanks! Tuesday.*…$/);
    // With --fields, the columns are those given, in their order of importance: at 50 columns both
    // ids do not fit whole, so the second is left out rather than cut.
    const fields = await run(['events', 'list', '--store', store, '--fields', 'messageId,id'], { tty: { stdout: true, stderr: true }, columns: 50, env: { NO_COLOR: '1' } });
    expect(fields.stdout.trimEnd().split('\n')[1]).toBe(messageId);
    expect(fields.stderr).toContain('Left out to fit the terminal: ID');
  });

  it.each([
    [['--since', 'yesterday'], /--since must be an ISO 8601 date-time .* not "yesterday"/],
    [['--until', '2026-13-45'], /--until must be a date that exists, not "2026-13-45" \(there is no month 13\)/],
    [['--since', '2026-02-30'], /--since must be a date that exists, not "2026-02-30" \(February 2026 has 28 days\)/],
    [['--since', '2026-02-29T09:00:00Z'], /--since must be a date that exists, not "2026-02-29T09:00:00Z" \(February 2026 has 28 days\)/],
    [['--until', '2026-04-31T23:00:00+02:00'], /--until must be a date that exists, not "2026-04-31T23:00:00\+02:00" \(April 2026 has 30 days\)/],
    [['--type', 'Bogus'], /--type must be one of MessageReceived, DeliveryReceipt, OrderStatus, OptOut, OptIn, unknown, not "Bogus"/],
    [['--number', 'ann'], /--number "ann" is not an E.164 number \(a \+ then 8 to 15 digits/],
    [['--number', '12345'], /--number "12345" is not an E.164 number \(a \+ then 8 to 15 digits/],
    [['--number', '14155551001'], /--number "14155551001" is not an E.164 number \(a \+ then 8 to 15 digits/],
    [['--since', '1h', '--until', '2h'], /--since 1h is not before --until 2h/],
    [['--message', '  '], /--message needs a message id, not a blank " {2}"/],
    [['--message', 'm-ann', '--message', ''], /--message needs a message id, not an empty string/],
  ])('refuses %j (exit 2)', async (flags, message) => {
    const result = await run(['events', 'list', '--store', tempStore(), ...flags]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });

  it('takes ISO 8601 letters in either case, and refuses a fraction finer than nanoseconds as a bad form', async () => {
    const store = tempStore();
    campaign(store);
    const upper = await run(['events', 'list', '--store', store, '--since', '2026-01-01T00:00:00Z', '--json']);
    const lower = await run(['events', 'list', '--store', store, '--since', '2026-01-01t00:00:00z', '--json']);
    expect(lower.code, lower.stderr).toBe(0);
    expect(lower.stdout).toBe(upper.stdout);
    const fine = await run(['events', 'list', '--store', store, '--since', '2026-01-01T00:00:00.1234567891Z']);
    expect(fine.code).toBe(2);
    expect(fine.stderr).toContain('--since must be an ISO 8601 date-time with a zone');
  });

  it('refuses a --store that is a file (exit 2), and a data directory that is one', async () => {
    const file = join(tempStore(), '..', 'a-file');
    writeFileSync(file, '{}\n');
    const result = await run(['events', 'list', '--store', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`--store ${file} is not a directory (it is a file)`);
    const byDefault = await run(['events', 'show', 'dlv-1'], { env: { SVC_DATA_DIR: file } });
    expect(byDefault.code).toBe(2);
    expect(byDefault.stderr).toContain(`the event store ${join(file, 'events')} is not a directory: ${file} is a file`);
  });

  it('says where the store would be when there is none yet', async () => {
    const store = tempStore();
    const result = await run(['events', 'list', '--store', store]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`No event store at ${store} yet`);
    expect((await run(['events', 'list', '--store', store, '--json'])).stdout).toBe('[]\n');
  });
});

describe('a delivery stored by two listeners on one store', () => {
  it('is listed, shown, tailed and threaded once, as the copy stored first', async () => {
    const store = tempStore();
    const first = EventStoreWriter.open(store);
    const second = EventStoreWriter.open(store);
    const reply = (at: number, listener: string): StoredRecord =>
      eventRecord({
        id: 'dlv-3',
        type: 'MessageReceived',
        receivedAt: new Date(at),
        from: ANN,
        to: [US],
        messageId: 'in-1',
        headers: { 'content-type': 'application/json', 'x-svc-event': 'MessageReceived', 'x-svc-delivery': 'dlv-3', 'x-listener': listener },
        raw: REPLY_BODY,
      });
    await first.append(reply(T0 + 60_000, 'port-4242'));
    // The sender did not hear the first answer and retried to the other listener.
    await second.append(reply(T0 + 65_000, 'port-4243'));
    await Promise.all([first.close(), second.close()]);

    const list = await run(['events', 'list', '--store', store, '--json']);
    expect((JSON.parse(list.stdout) as { id: string; receivedAt: string }[]).map((e) => `${e.id} ${e.receivedAt}`)).toEqual(['dlv-3 2026-03-01T09:01:00.000Z']);
    const show = JSON.parse((await run(['events', 'show', 'dlv-3', '--store', store, '--json'])).stdout) as { receivedAt: string; headers: Record<string, string> };
    expect(show.receivedAt).toBe('2026-03-01T09:01:00.000Z');
    expect(show.headers['x-listener']).toBe('port-4242');
    const tail = await run(['events', 'tail', '--store', store, '--json']);
    expect(tail.stdout.trimEnd().split('\n')).toHaveLength(1);
    const thread = await run(['thread', ANN, '--store', store]);
    expect(thread.stdout.trimEnd().split('\n').map((line) => (JSON.parse(line) as { id: string }).id)).toEqual(['dlv-3']);
  });
});

describe('svc events show', () => {
  it('shows the payload and the delivery headers, or exits 4 for an unknown id', async () => {
    const store = tempStore();
    campaign(store);
    const json = JSON.parse((await run(['events', 'show', 'dlv-3', '--store', store, '--json'])).stdout) as { headers: IncomingHttpHeaders };
    expect(json.headers['x-svc-delivery']).toBe('dlv-3');
    const text = await run(['events', 'show', 'dlv-2', '--store', store]);
    expect(text.stdout).toContain('x-svc-event: DeliveryReceipt');
    expect(text.stdout).toContain('"errorMessage": "Unreachable"');
    expect(text.stdout).toMatch(/^received +2026-03-01T09:00:06.000Z$/m);
    // On a terminal the time is told relative to now (here, a minute after it arrived).
    const tty = await runCli(['events', 'show', 'dlv-2', '--store', store, '--no-color'], { tty: true, clock: fakeClock(T0 + 66_000) });
    expect(tty.stdout).toMatch(/^received +1 min ago$/m);
    const missing = await run(['events', 'show', 'nope', '--store', store]);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain('no event "nope"');
  });
});

describe('events accepted by webhook listen --no-verify', () => {
  it('are stored marked as not verified, and events show says so (--json: "verified": false)', async () => {
    const store = tempStore();
    const stored = async (args: string[], env: Record<string, string>, body: string, headers: Record<string, string>): Promise<void> => {
      const listen = startCommand(['webhook', 'listen', '--port', '0', '--store', store, ...args], env);
      const banner = await listen.stderr.waitFor(/Listening on (http:\/\/\S+\/)/, listen.done);
      expect(banner).not.toBeNull();
      expect((await post(banner![1]!, body, { headers })).status).toBe(200);
      expect(await listen.interrupt()).toBe(130);
    };
    await stored(['--no-verify'], {}, '{"orderId":1,"status":"Completed"}', { 'X-Svc-Delivery': 'dlv-open' });
    const signedBody = '{"orderId":2,"status":"Completed"}';
    await stored([], { SVC_WEBHOOK_SECRET: 'whsec-l' }, signedBody, { 'X-Svc-Delivery': 'dlv-signed', 'X-Svc-Signature': signBody(signedBody, 'whsec-l') });

    const open = JSON.parse((await run(['events', 'show', 'dlv-open', '--store', store, '--json'])).stdout) as { verified: unknown };
    expect(open.verified).toBe(false);
    const signed = JSON.parse((await run(['events', 'show', 'dlv-signed', '--store', store, '--json'])).stdout) as { verified: unknown };
    expect(signed.verified).toBe(true);
    expect((await run(['events', 'show', 'dlv-open', '--store', store])).stdout).toMatch(/\nsignature +NOT verified \(accepted by webhook listen --no-verify\)\n/);
    expect((await run(['events', 'show', 'dlv-signed', '--store', store])).stdout).toMatch(/\nsignature +verified\n/);
    const listed = (await run(['events', 'list', '--store', store, '-o', 'ndjson'])).stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as { id: string; verified: unknown });
    expect(listed.map((e) => [e.id, e.verified])).toEqual([
      ['dlv-open', false],
      ['dlv-signed', true],
    ]);
    // The store's own line says it too, for grep and jq.
    expect(new EventStoreReader(store).get('dlv-open')?.verified).toBe(false);
  }, 60_000);
});

describe('svc events replay', () => {
  it('sends the stored bytes again, signed with the given secret, with the delivery headers', async () => {
    const store = tempStore();
    campaign(store);
    const received: { body: Buffer; headers: IncomingHttpHeaders }[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ body: Buffer.concat(chunks), headers: req.headers });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    try {
      const result = await run(['events', 'replay', 'dlv-3', '--to', url, '--secret-env', 'APP_SECRET', '--store', store, '--json'], {
        env: { APP_SECRET: 'whsec-app' },
      });
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ id: 'dlv-3', url, status: 204 });
      expect(received).toHaveLength(1);
      const [got] = received;
      expect(got!.body.equals(Buffer.from(REPLY_BODY, 'utf8'))).toBe(true);
      expect(verifySignature(got!.body, String(got!.headers['x-svc-signature']), 'whsec-app')).toEqual({ valid: true, secretIndex: 0 });
      expect(got!.headers['x-svc-delivery']).toBe('dlv-3');
      expect(got!.headers['x-svc-event']).toBe('MessageReceived');
      expect(result.stdout + result.stderr).not.toContain('whsec-app');
    } finally {
      server.close();
    }
  });

  it('traces the request and the answer with --debug, as other commands do, and never the secret', async () => {
    const store = tempStore();
    campaign(store);
    const server = createServer((req, res) => {
      req.resume();
      // The answer begins with a UTF-8 BOM: its secret-named fields are redacted all the same.
      req.on('end', () => res.writeHead(202, { 'Content-Type': 'application/json', 'Set-Cookie': 'session=abc123' }).end('\uFEFF{"queued":true,"token":"t-987"}'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    try {
      const quiet = await run(['events', 'replay', 'dlv-3', '--to', url, '--secret-env', 'APP_SECRET', '--store', store], { env: { APP_SECRET: 'whsec-app' } });
      expect(quiet.stderr).toBe('');
      const traced = await run(['events', 'replay', 'dlv-3', '--to', url, '--secret-env', 'APP_SECRET', '--store', store, '--debug'], { env: { APP_SECRET: 'whsec-app' } });
      expect(traced.code).toBe(0);
      const lines = traced.stderr.trimEnd().split('\n');
      expect(lines).toContain(`[debug] > POST ${url}`);
      expect(lines).toContain(`[debug] > X-Svc-Signature: ${signBody(Buffer.from(REPLY_BODY, 'utf8'), 'whsec-app')}`);
      expect(lines).toContain('[debug] > X-Svc-Delivery: dlv-3');
      expect(lines).toContain(`[debug] > Content-Length: ${Buffer.byteLength(REPLY_BODY)}`);
      expect(lines.some((line) => line.startsWith(`[debug] > [${Buffer.byteLength(REPLY_BODY)} bytes, the stored body byte for byte] {"from":"+14155551001"`))).toBe(true);
      expect(lines.some((line) => /^\[debug\] < 202 \(\d+ ms\)$/.test(line))).toBe(true);
      expect(lines).toContain('[debug] < set-cookie: [REDACTED]');
      expect(lines).toContain('[debug] < {"queued":true,"token":"[REDACTED]"}');
      expect(traced.stdout + traced.stderr).not.toContain('whsec-app');
      expect(traced.stdout + traced.stderr).not.toContain('t-987');
      expect(traced.stdout + traced.stderr).not.toContain('abc123');
    } finally {
      server.close();
    }
  });

  it('sends a body that began with a UTF-8 BOM byte for byte, as the listener received it', async () => {
    const store = tempStore();
    const secret = 'whsec-listener';
    const listen = startCommand(['webhook', 'listen', '--port', '0', '--store', store], { SVC_WEBHOOK_SECRET: secret });
    const received: { body: Buffer; signature: string }[] = [];
    const app = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ body: Buffer.concat(chunks), signature: String(req.headers['x-svc-signature']) });
        res.writeHead(204).end();
      });
    });
    try {
      const banner = await listen.stderr.waitFor(/Listening on (http:\/\/\S+\/)/, listen.done);
      expect(banner).not.toBeNull();
      const original = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(REPLY_BODY, 'utf8')]);
      const answer = await post(banner![1]!, original, { headers: { 'X-Svc-Signature': signBody(original, secret), 'X-Svc-Delivery': 'dlv-bom', 'X-Svc-Event': 'MessageReceived' } });
      expect(answer.status).toBe(200);
      expect(await listen.interrupt()).toBe(130);

      const shown = JSON.parse((await run(['events', 'show', 'dlv-bom', '--store', store, '--json'])).stdout) as { payload: unknown };
      expect(shown.payload).toEqual(JSON.parse(REPLY_BODY));
      // Every reader parses past the BOM: the list's text column and the thread's message.
      expect((await run(['events', 'list', '--store', store])).stdout).toContain('\tGrüße ☀ — yes, Tuesday\n');
      expect((await run(['thread', ANN, '--store', store])).stdout).toContain('"body":"Grüße ☀ — yes, Tuesday"');
      await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(app.address() as AddressInfo).port}/hooks`;
      const replay = await run(['events', 'replay', 'dlv-bom', '--to', url, '--store', store, '--json'], { env: { SVC_WEBHOOK_SECRET: secret } });
      expect(replay.code).toBe(0);
      expect(JSON.parse(replay.stdout)).toMatchObject({ bytes: original.length });
      expect(received).toHaveLength(1);
      expect(received[0]!.body.equals(original)).toBe(true);
      // Signed again under the same secret: the signature the sender sent, and it verifies.
      expect(received[0]!.signature).toBe(signBody(original, secret));
      expect(verifySignature(received[0]!.body, received[0]!.signature, secret)).toEqual({ valid: true, secretIndex: 0 });
    } finally {
      app.close();
      if (!listen.stderr.text.includes('Stopped')) await listen.interrupt();
    }
  }, 60_000);

  it('refuses a target that is neither https nor loopback, and a missing secret (exit 2)', async () => {
    const store = tempStore();
    campaign(store);
    const remote = await run(['events', 'replay', 'dlv-3', '--to', 'http://example.com/x', '--store', store], { env: { SVC_WEBHOOK_SECRET: 's' } });
    expect(remote.code).toBe(2);
    expect(remote.stderr).toMatch(/--to: .*loopback/);
    const noSecret = await run(['events', 'replay', 'dlv-3', '--to', 'http://127.0.0.1:9/x', '--store', store]);
    expect(noSecret.code).toBe(2);
    expect(noSecret.stderr).toMatch(/SVC_WEBHOOK_SECRET is not set/);
  });
});

describe('svc events prune', () => {
  it('deletes what was stored before the time and keeps the rest', async () => {
    const store = tempStore();
    campaign(store);
    const result = await run(['events', 'prune', '--before', '2026-03-01T09:00:05.500Z', '--store', store, '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ before: '2026-03-01T09:00:05.500Z', pruned: 3, kept: 2, busy: 0, untouched: [] });
    expect(new EventStoreReader(store).query({}).map((r) => r.id)).toEqual(['dlv-2', 'dlv-3']);
    expect((await run(['events', 'prune', '--store', store])).code).toBe(2);
  });

  it('refuses a --before date that does not exist (exit 2), and takes one that does', async () => {
    const store = tempStore();
    campaign(store);
    const bad = await run(['events', 'prune', '--before', '2026-02-30', '--store', store]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--before must be a date that exists, not "2026-02-30" (February 2026 has 28 days)');
    expect(new EventStoreReader(store).total).toBe(5);
    // 2028 is a leap year.
    const leap = await run(['events', 'prune', '--before', '2028-02-29', '--store', store, '--json']);
    expect(leap.code).toBe(0);
    expect(JSON.parse(leap.stdout)).toMatchObject({ before: '2028-02-29T00:00:00.000Z', pruned: 5 });
  });
});

describe('svc events tail', () => {
  it('prints the newest events, then with --follow what any writer stores next', async () => {
    const store = tempStore();
    campaign(store);
    const last = await run(['events', 'tail', '-n', '2', '--store', store, '--json']);
    expect(last.stdout.trimEnd().split('\n').map((line) => (JSON.parse(line) as { id: string }).id)).toEqual(['dlv-2', 'dlv-3']);

    const follow = startCommand(['events', 'tail', '--follow', '-n', '0', '--store', store, '--json'], {});
    // It follows from the end of what exists when it says so: only what comes after is shown.
    expect(await follow.stderr.waitFor(/Following /, follow.done)).not.toBeNull();
    const writer = EventStoreWriter.open(store);
    try {
      await writer.append(
        eventRecord({ id: 'dlv-new', type: 'DeliveryReceipt', receivedAt: new Date(T0 + 7200_000), messageId: 'm-ann', status: 'read', headers: {}, raw: '{"messageId":"m-ann","status":"read"}' }),
      );
      const line = await follow.stdout.waitFor(/"id":"dlv-new"/, follow.done);
      expect(line).not.toBeNull();
      expect(follow.stdout.text).not.toContain('dlv-3');
    } finally {
      await writer.close();
      expect(await follow.interrupt()).toBe(130);
    }
  }, 60_000);
});

describe('svc thread', () => {
  it('prints one conversation in time order as JSON lines when piped', async () => {
    const store = tempStore();
    campaign(store);
    const result = await run(['thread', ANN, '--store', store]);
    expect(result.code).toBe(0);
    const items = result.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as { direction: string; body: string | null; status: string | null });
    expect(items.map((i) => i.direction)).toEqual(['out', 'receipt', 'in']);
    expect(items[0]!.body).toBe('Hi Ann, your order shipped');
    expect(items[1]!.status).toBe('delivered');
    expect(items[2]!.body).toBe('Grüße ☀ — yes, Tuesday');
  });

  it('renders a chat on a terminal, with each sent message\'s receipt', async () => {
    const store = tempStore();
    campaign(store);
    const ann = await run(['thread', ANN, '--store', store], { tty: true, env: { NO_COLOR: '1' } });
    expect(ann.stdout).toContain(`Conversation with ${ANN}`);
    expect(ann.stdout).toMatch(/ {10,}Hi Ann, your order shipped\n/);
    expect(ann.stdout).toMatch(/to \+14155551001 · delivered/);
    expect(ann.stdout).toMatch(/\n {2}Grüße ☀ — yes, Tuesday\n/);
    const bob = await run(['thread', BOB, '--store', store], { tty: true, env: { NO_COLOR: '1' } });
    expect(bob.stdout).toMatch(/failed \(Unreachable\)/);
    expect((await run(['thread', 'bob', '--store', store])).code).toBe(2);
    const short = await run(['thread', '12345', '--store', store]);
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('NUMBER "12345" is not an E.164 number (a + then 8 to 15 digits, the first not 0, e.g. +15551234567)');
  });
});

describe('svc thread --journal', () => {
  it('adds the sends a journal names that the store lacks, once per message id, with their receipts', async () => {
    const store = tempStore();
    campaign(store);
    // A receipt of a message the store has no sent record of (sent with SVC_NO_STORE, say).
    writeSegment(store, [
      eventRecord({
        id: 'dlv-9',
        type: 'DeliveryReceipt',
        receivedAt: new Date(T0 + 130_000),
        messageId: 'm-ann-2',
        status: 'delivered',
        headers: { 'x-svc-delivery': 'dlv-9' },
        raw: '{"messageId":"m-ann-2","status":"delivered"}',
      }),
    ]);
    const path = join(store, '..', 'run.jsonl');
    let at = T0;
    const journal = JournalWriter.create(path, { from: US, body: 'sha256:ab', recipients: 'sha256:cd', recipientCount: 3, media: [] }, { clock: () => new Date(at) });
    const [first, second, third] = journal.launch([{ to: [ANN] }, { to: [ANN] }, { to: ['+1 415 555 1001'] }]);
    journal.result(first!, { to: [ANN], outcome: 'accepted', messageId: 'm-ann', status: 'queued' }); // in the store too
    at = T0 + 120_000;
    journal.result(second!, { to: [ANN], outcome: 'accepted', messageId: 'm-ann-2', status: 'queued' });
    journal.result(third!, { to: ['+1 415 555 1001'], outcome: 'rejected', error: { message: 'no', status: 400 } });
    await journal.close();

    const result = await run(['thread', ANN, '--store', store, '--journal', path]);
    expect(result.stderr).toBe('');
    const items = result.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as { direction: string; id: string; body: string | null; journal?: string });
    expect(items.map((i) => `${i.direction} ${i.id}`)).toEqual(['out sent:m-ann', 'receipt dlv-1', 'in dlv-3', 'out sent:m-ann-2', 'receipt dlv-9']);
    expect(items[3]).toMatchObject({ body: null, journal: path });
    const chat = await run(['thread', ANN, '--store', store, '--journal', path], { tty: true, env: { NO_COLOR: '1' } });
    expect(chat.stdout).toContain('(text not recorded: from the journal)');
    expect(chat.stdout).toMatch(/to \+14155551001 · delivered/);
    const missing = await run(['thread', ANN, '--store', store, '--journal', join(store, 'nope.jsonl')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nope.jsonl');
  });

  it('takes each recipient\'s own message id from a request to several', async () => {
    const store = tempStore();
    const path = join(store, '..', 'multi.jsonl');
    const journal = JournalWriter.create(path, { from: US, body: 'sha256:ab', recipients: 'sha256:cd', recipientCount: 2, media: [] }, { clock: () => new Date(T0) });
    const [seq] = journal.launch([{ to: ['+14155559001', ANN] }]);
    journal.result(seq!, { to: ['+14155559001', ANN], outcome: 'accepted', messageId: 'm-first', messageIds: ['m-first', 'm-second'], status: 'queued' });
    await journal.close();
    const result = await run(['thread', ANN, '--store', store, '--journal', path]);
    expect(result.stderr).toBe('');
    const items = result.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as { direction: string; id: string });
    expect(items.map((i) => `${i.direction} ${i.id}`)).toEqual(['out sent:m-second']);
  });
});

describe('svc send records what it sent', () => {
  it('keeps message id, from, to, body and time in the event store, so svc thread shows it', async () => {
    const store = tempStore();
    const dataDir = join(store, '..');
    mock = mockSends(accepted);
    const sent = await runCli(['send', '--from', US, '--to', ANN, '--body', 'Your code is 1234', '--json'], {
      clock: fakeClock(),
      env: { ...MOCK_ENV, SVC_DATA_DIR: dataDir },
      dispatcher: mock.agent,
    });
    expect(sent.code).toBe(0);
    const messageId = (JSON.parse(sent.stdout) as { messageId: string }[])[0]!.messageId;
    const records = new EventStoreReader(store).query({ kinds: ['sent'] });
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ id: `sent:${messageId}`, messageId, from: US, to: [ANN], body: 'Your code is 1234' });
    const thread = await run(['thread', ANN, '--store', store]);
    expect(thread.stdout).toContain('Your code is 1234');
    // SVC_NO_STORE turns it off.
    await runCli(['send', '--from', US, '--to', ANN, '--body', 'again', '--json'], {
      clock: fakeClock(),
      env: { ...MOCK_ENV, SVC_DATA_DIR: dataDir, SVC_NO_STORE: '1' },
      dispatcher: mock.agent,
    });
    expect(new EventStoreReader(store).query({ kinds: ['sent'] })).toHaveLength(1);
    // A --store that is a file is refused before anything is sent (exit 2), not just warned of.
    const file = join(dataDir, 'a-file');
    writeFileSync(file, '{}\n');
    const sends = mock.sends.length;
    const refused = await runCli(['send', '--from', US, '--to', ANN, '--body', 'again', '--store', file], { clock: fakeClock(), env: { ...MOCK_ENV, SVC_DATA_DIR: dataDir }, dispatcher: mock.agent });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`--store ${file} is not a directory (it is a file)`);
    expect(mock.sends).toHaveLength(sends);
  });
});
