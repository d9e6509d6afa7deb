import { afterEach, describe, expect, it } from 'vitest';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { signBody } from '../../src/domain/signature.js';
import { MAX_WEBHOOK_BODY_BYTES, startWebhookListener } from '../../src/webhooks/listener.js';
import type { WebhookListener, WebhookListenerOptions } from '../../src/webhooks/listener.js';
import { collectingSink, post, startFakeApp, unusedPort } from './helpers.js';
import type { CollectingSink, FakeApp } from './helpers.js';
import { deliveryReceipt, incomingMessage, orderStatus } from './sample-payloads.js';
import type { StoredRecord } from '../../src/events/store/record.js';

const secret = 'whsec-listener-test';
const fixedNow = (): Date => new Date('2025-01-02T03:04:05.000Z');

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function listen(options: WebhookListenerOptions = {}): Promise<{ listener: WebhookListener; sink: CollectingSink }> {
  const sink = collectingSink();
  const listener = await startWebhookListener({ now: fixedNow, ...options }, sink);
  cleanups.push(() => listener.close());
  return { listener, sink };
}

async function fakeApp(): Promise<FakeApp> {
  const app = await startFakeApp();
  cleanups.push(() => app.close());
  return app;
}

function signed(body: string, key = secret, extra: Record<string, string> = {}): { headers: Record<string, string> } {
  return { headers: { 'X-Svc-Signature': signBody(body, key), ...extra } };
}

function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
}

describe('startWebhookListener', () => {
  it('binds 127.0.0.1 on a free port by default', async () => {
    const { listener } = await listen();
    expect(listener.host).toBe('127.0.0.1');
    expect(listener.port).toBeGreaterThan(0);
    expect(listener.url).toBe(`http://127.0.0.1:${listener.port}/`);
  });

  it('refuses a forward URL that is plain http to a remote host, or not a URL', async () => {
    const sink = collectingSink();
    await expect(startWebhookListener({ forwardTo: 'http://example.com/hook' }, sink)).rejects.toThrow(/https:\/\/.*loopback/);
    await expect(startWebhookListener({ forwardTo: 'not a url' }, sink)).rejects.toThrow(/not a URL/);
    await expect(startWebhookListener({ forwardTo: 'ftp://127.0.0.1/' }, sink)).rejects.toThrow(/https:\/\//);
  });

  it('refuses an empty list of secrets rather than rejecting every event', async () => {
    await expect(startWebhookListener({ secrets: [] }, collectingSink())).rejects.toThrow(/secrets/);
    await expect(startWebhookListener({ secrets: '' }, collectingSink())).rejects.toThrow(/secrets/);
  });

  it('fails to start on a port in use', async () => {
    const { listener } = await listen();
    await expect(startWebhookListener({ port: listener.port }, collectingSink())).rejects.toThrow(/EADDRINUSE/);
  });
});

describe('signatures', () => {
  const body = JSON.stringify(deliveryReceipt);

  it('answers 200 to a correctly signed event and reports it', async () => {
    const { listener, sink } = await listen({ secrets: secret });
    const answer = await post(listener.url, body, signed(body));
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ received: true, duplicate: false });
    expect(sink.rejections).toEqual([]);
    expect(sink.events).toHaveLength(1);
    expect(sink.events[0]).toMatchObject({
      kind: 'DeliveryReceipt',
      signature: 'valid',
      secretIndex: 0,
      duplicate: false,
      status: 200,
      raw: body,
      payload: deliveryReceipt,
      method: 'POST',
      path: '/',
      receivedAt: fixedNow(),
      forward: null,
    });
  });

  it('verifies the raw bytes: a body with whitespace and CRLF signed as sent passes', async () => {
    const { listener, sink } = await listen({ secrets: secret });
    const spaced = `{ "messageId" : "m-1",\r\n  "status": "sent" }\r\n`;
    expect((await post(listener.url, spaced, signed(spaced))).status).toBe(200);
    expect(sink.events[0]?.raw).toBe(spaced);
  });

  it('keeps a leading UTF-8 BOM in the body it reports and stores, and parses the JSON after it', async () => {
    const stored: StoredRecord[] = [];
    const { listener, sink } = await listen({ secrets: secret, store: { append: async (record) => void stored.push(record) } });
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(body, 'utf8')]);
    expect((await post(listener.url, bytes, { headers: { 'X-Svc-Signature': signBody(bytes, secret) } })).status).toBe(200);
    expect(sink.events[0]).toMatchObject({ kind: 'DeliveryReceipt', raw: `\uFEFF${body}`, payload: deliveryReceipt });
    expect(Buffer.from(stored[0]!.body, 'utf8').equals(bytes)).toBe(true);
  });

  it('rejects a signature over the re-encoded JSON instead of the bytes sent', async () => {
    const { listener, sink } = await listen({ secrets: secret });
    const spaced = `{ "messageId": "m-1", "status": "sent" }`;
    const answer = await post(listener.url, spaced, signed(JSON.stringify(JSON.parse(spaced))));
    expect(answer.status).toBe(401);
    expect(sink.rejections[0]?.reason).toMatch(/mismatch/);
  });

  it('accepts the previous secret during rotation and says which matched', async () => {
    const { listener, sink } = await listen({ secrets: ['whsec-new', secret] });
    expect((await post(listener.url, body, signed(body, 'whsec-new'))).status).toBe(200);
    expect((await post(listener.url, `${body} `, signed(`${body} `, secret))).status).toBe(200);
    expect(sink.events.map((event) => event.secretIndex)).toEqual([0, 1]);
  });

  it('answers 401 to an unsigned event, naming the missing header', async () => {
    const { listener, sink } = await listen({ secrets: secret });
    const answer = await post(listener.url, body);
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body)).toMatchObject({ message: expect.stringMatching(/missing/), title: 'Unauthorized' });
    expect(sink.events).toEqual([]);
    expect(sink.rejections).toHaveLength(1);
    expect(sink.rejections[0]).toMatchObject({ status: 401, method: 'POST', path: '/', remoteAddress: '127.0.0.1' });
    expect(sink.rejections[0]?.reason).toMatch(/signature missing/);
  });

  it('answers 401 to a wrongly signed event, and to a tampered body', async () => {
    const { listener, sink } = await listen({ secrets: secret });
    expect((await post(listener.url, body, signed(body, 'whsec-wrong'))).status).toBe(401);
    expect((await post(listener.url, body.replace('delivered', 'failed'), signed(body))).status).toBe(401);
    expect(sink.rejections.map((rejection) => rejection.reason)).toEqual([
      expect.stringMatching(/signature mismatch/),
      expect.stringMatching(/signature mismatch/),
    ]);
    expect(sink.events).toEqual([]);
  });

  it('answers 401 to a malformed signature', async () => {
    const { listener, sink } = await listen({ secrets: secret });
    const truncated = signBody(body, secret).slice(0, 20);
    expect((await post(listener.url, body, { headers: { 'X-Svc-Signature': truncated } })).status).toBe(401);
    expect((await post(listener.url, body, { headers: { 'X-Svc-Signature': 'not*base64' } })).status).toBe(401);
    expect(sink.rejections.map((rejection) => rejection.reason)).toEqual([
      expect.stringMatching(/signature malformed/),
      expect.stringMatching(/signature malformed/),
    ]);
  });

  it('does not check signatures when no secret is configured, and says so', async () => {
    const { listener, sink } = await listen();
    expect((await post(listener.url, body)).status).toBe(200);
    expect(sink.events[0]).toMatchObject({ signature: 'unchecked', secretIndex: null });
  });

  it('never reports the secret', async () => {
    const { listener, sink } = await listen({ secrets: secret });
    const answers = [await post(listener.url, body, signed(body, 'whsec-wrong')), await post(listener.url, body, signed(body))];
    const everything = JSON.stringify([answers, sink.events, sink.rejections]);
    expect(everything).not.toContain(secret);
  });
});

describe('Basic auth', () => {
  const body = JSON.stringify(incomingMessage);
  const credentials = { username: 'hook-user', password: 'p@ss:word é' };

  it('answers 200 with the right credentials (and a valid signature when both are configured)', async () => {
    const { listener, sink } = await listen({ basicAuth: credentials, secrets: secret });
    const answer = await post(listener.url, body, signed(body, secret, { Authorization: basic('hook-user', 'p@ss:word é') }));
    expect(answer.status).toBe(200);
    expect(sink.events).toHaveLength(1);
  });

  it('answers 401 with a Basic challenge when credentials are missing, wrong or not Basic', async () => {
    const { listener, sink } = await listen({ basicAuth: credentials });
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{}, /missing/],
      [{ Authorization: basic('hook-user', 'wrong') }, /do not match/],
      [{ Authorization: basic('other', 'p@ss:word é') }, /do not match/],
      [{ Authorization: 'Bearer abc' }, /not in Basic form/],
      [{ Authorization: `Basic ${Buffer.from('no-colon').toString('base64')}` }, /not in Basic form/],
    ];
    for (const [headers, reason] of cases) {
      const answer = await post(listener.url, body, { headers });
      expect(answer.status).toBe(401);
      expect(answer.headers['www-authenticate']).toMatch(/^Basic realm=/);
      expect(sink.rejections.at(-1)?.reason).toMatch(reason);
    }
    expect(sink.events).toEqual([]);
    expect(JSON.stringify(sink.rejections)).not.toContain('p@ss');
  });

  it('checks Basic auth before the signature', async () => {
    const { listener, sink } = await listen({ basicAuth: credentials, secrets: secret });
    const answer = await post(listener.url, body, signed(body));
    expect(answer.status).toBe(401);
    expect(sink.rejections[0]?.reason).toMatch(/Basic credentials missing/);
  });
});

describe('bad requests are answered 4xx and the listener keeps running', () => {
  const body = JSON.stringify(orderStatus);

  it('answers 400 to malformed JSON, an empty body and invalid UTF-8', async () => {
    const { listener, sink } = await listen();
    expect((await post(listener.url, '{"orderId": 1,')).status).toBe(400);
    expect((await post(listener.url, '')).status).toBe(400);
    expect((await post(listener.url, Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]))).status).toBe(400);
    expect(sink.rejections.map((rejection) => rejection.reason)).toEqual([
      expect.stringMatching(/^invalid JSON: /),
      'invalid JSON: the body is empty',
      'invalid JSON: the body is not valid UTF-8',
    ]);
    expect((await post(listener.url, body)).status).toBe(200);
  });

  it('checks the signature before parsing: a signed malformed body is 400, an unsigned one 401', async () => {
    const { listener } = await listen({ secrets: secret });
    const broken = '{"orderId":';
    expect((await post(listener.url, broken, signed(broken))).status).toBe(400);
    expect((await post(listener.url, broken)).status).toBe(401);
  });

  it('answers 415 to a wrong or missing content type, and accepts a charset parameter', async () => {
    const { listener, sink } = await listen();
    expect((await post(listener.url, body, { headers: { 'Content-Type': 'text/plain' } })).status).toBe(415);
    expect((await post(listener.url, body, { headers: { 'Content-Type': 'application/x-www-form-urlencoded' } })).status).toBe(415);
    expect((await post(listener.url, body, { headers: { 'Content-Type': '' } })).status).toBe(415);
    expect(sink.rejections.map((rejection) => rejection.reason)).toEqual([
      expect.stringMatching(/"text\/plain" is not application\/json/),
      expect.stringMatching(/is not application\/json/),
      expect.stringMatching(/missing/),
    ]);
    expect((await post(listener.url, body, { headers: { 'Content-Type': 'Application/JSON; charset=utf-8' } })).status).toBe(200);
  });

  it('accepts a body of exactly 1 MB', async () => {
    const { listener, sink } = await listen({ secrets: secret });
    const prefix = '{"orderId":1,"pad":"';
    const exact = `${prefix}${'x'.repeat(MAX_WEBHOOK_BODY_BYTES - prefix.length - 2)}"}`;
    expect(Buffer.byteLength(exact)).toBe(MAX_WEBHOOK_BODY_BYTES);
    expect((await post(listener.url, exact, signed(exact))).status).toBe(200);
    expect(sink.events[0]?.kind).toBe('OrderStatus');
  });

  it('answers 413 with a reason to a body one byte over 1 MB, with or without Content-Length', async () => {
    const { listener, sink } = await listen({ secrets: secret });
    const prefix = '{"orderId":1,"pad":"';
    const over = `${prefix}${'x'.repeat(MAX_WEBHOOK_BODY_BYTES - prefix.length - 1)}"}`;
    expect(Buffer.byteLength(over)).toBe(MAX_WEBHOOK_BODY_BYTES + 1);
    const declared = await post(listener.url, over, signed(over));
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body)).toMatchObject({ message: 'body over 1048576 bytes (the limit is 1 MB)' });
    const chunked = await post(listener.url, over, { ...signed(over), chunked: true });
    expect(chunked.status).toBe(413);
    expect(sink.rejections.map((rejection) => rejection.status)).toEqual([413, 413]);
    expect(sink.events).toEqual([]);
    expect((await post(listener.url, body, signed(body))).status).toBe(200);
  });

  it('answers 413 from the declared length alone, without waiting for the body', async () => {
    const { listener, sink } = await listen();
    const status = await new Promise<number>((resolve, reject) => {
      const outgoing = request(listener.url, {
        method: 'POST',
        agent: false,
        headers: { 'Content-Type': 'application/json', 'Content-Length': String(100 * 1024 * 1024) },
      });
      outgoing.on('response', (response) => {
        resolve(response.statusCode ?? 0);
        response.resume();
        outgoing.destroy();
      });
      outgoing.on('error', (error) => (error.message.includes('socket hang up') ? undefined : reject(error)));
      outgoing.flushHeaders();
    });
    expect(status).toBe(413);
    expect(sink.rejections[0]?.reason).toMatch(/limit is 1 MB/);
    expect((await post(listener.url, body)).status).toBe(200);
  });

  it('answers 405 to methods other than POST, and a short health text to GET /', async () => {
    const { listener, sink } = await listen();
    const health = await post(listener.url, '', { method: 'GET' });
    expect(health.status).toBe(200);
    expect(health.body).toMatch(/POST events here/);
    for (const method of ['PUT', 'DELETE', 'PATCH']) {
      const answer = await post(listener.url, body, { method });
      expect(answer.status).toBe(405);
      expect(answer.headers.allow).toBe('POST');
    }
    expect((await post(`${listener.url}favicon.ico`, '', { method: 'GET' })).status).toBe(405);
    expect(sink.rejections.map((rejection) => rejection.status)).toEqual([405, 405, 405, 405]);
    expect(sink.events).toEqual([]);
  });

  it('survives malformed HTTP and a client that leaves mid-body', async () => {
    const { listener, sink } = await listen();
    const garbage = await new Promise<string>((resolve) => {
      const socket = connect(listener.port, '127.0.0.1', () => socket.write('NOT HTTP AT ALL\r\n\r\n'));
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
      socket.on('close', () => resolve(received));
      socket.on('error', () => undefined);
    });
    expect(garbage).toMatch(/^HTTP\/1\.1 400 /);

    await new Promise<void>((resolve) => {
      const socket = connect(listener.port, '127.0.0.1', () => {
        socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":');
        setImmediate(() => {
          socket.destroy();
          resolve();
        });
      });
    });
    expect((await post(listener.url, body)).status).toBe(200);
    expect(sink.events).toHaveLength(1);
    expect(sink.rejections[0]).toMatchObject({ status: 400, reason: expect.stringMatching(/malformed HTTP/) });
  });

  it('reports a request once when its client hangs up before the body ended (refused early, or cut mid-body)', async () => {
    const { listener, sink } = await listen();
    const hangUpMidBody = (declaredLength: number): Promise<string> =>
      new Promise((resolve) => {
        const socket = connect(listener.port, '127.0.0.1', () => {
          socket.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${declaredLength}\r\n\r\n{"a":`);
        });
        let received = '';
        socket.on('data', (chunk: Buffer) => {
          received += chunk.toString('latin1');
          // The early 413 has arrived: leave, as a sender does once it has its answer.
          socket.end();
        });
        socket.on('error', () => undefined);
        socket.on('close', () => resolve(received));
        // No answer comes to a body that is merely incomplete: leave mid-body.
        if (declaredLength <= MAX_WEBHOOK_BODY_BYTES) setImmediate(() => socket.end());
      });
    expect(await hangUpMidBody(2 * MAX_WEBHOOK_BODY_BYTES)).toMatch(/^HTTP\/1\.1 413 /);
    await hangUpMidBody(100);
    // Both cut requests are reported by now; a later request proves the listener moved on.
    expect((await post(listener.url, body)).status).toBe(200);
    expect(sink.rejections.map((rejection) => rejection.status)).toEqual([413, 400]);
    expect(sink.rejections[1]?.reason).toMatch(/aborted by the client/);
  });

  it('keeps answering when the sink throws', async () => {
    const listener = await startWebhookListener(
      {},
      {
        accepted: () => {
          throw new Error('printer broke');
        },
        rejected: () => {
          throw new Error('printer broke');
        },
      },
    );
    cleanups.push(() => listener.close());
    expect((await post(listener.url, body)).status).toBe(200);
    expect((await post(listener.url, 'nope')).status).toBe(400);
    expect((await post(listener.url, body)).status).toBe(200);
  });
});

describe('payload kinds', () => {
  it('recognises an incoming message, a delivery receipt and an order status by shape', async () => {
    const { listener, sink } = await listen();
    for (const payload of [incomingMessage, deliveryReceipt, orderStatus]) {
      expect((await post(listener.url, JSON.stringify(payload))).status).toBe(200);
    }
    expect(sink.events.map((event) => event.kind)).toEqual(['MessageReceived', 'DeliveryReceipt', 'OrderStatus']);
    expect(sink.events[0]?.summary).toMatchObject({
      from: '+15551230001',
      to: ['+15551230002'],
      text: 'Hello from the other side',
      attachments: 1,
    });
    expect(sink.events[1]?.summary).toMatchObject({ id: deliveryReceipt.messageId, status: 'delivered' });
    expect(sink.events[2]?.summary).toMatchObject({ id: '1234', status: 'Completed', text: '+15551230003 Active' });
  });

  it('accepts unknown shapes and shows them as unknown', async () => {
    const { listener, sink } = await listen();
    for (const payload of ['{"event":"something.new","id":"evt_9"}', '[1,2,3]', '"just a string"', 'null']) {
      expect((await post(listener.url, payload)).status).toBe(200);
    }
    expect(sink.events.map((event) => event.kind)).toEqual(['unknown', 'unknown', 'unknown', 'unknown']);
  });

  it('takes the kind from X-Svc-Event when the sender names it', async () => {
    const { listener, sink } = await listen();
    const body = JSON.stringify({ orderId: 7, status: 'Processing' });
    await post(listener.url, body, { headers: { 'X-Svc-Event': 'OrderStatus' } });
    await post(listener.url, '{"id":"x"}', { headers: { 'X-Svc-Event': 'DeliveryReceipt' } });
    await post(listener.url, JSON.stringify(deliveryReceipt), { headers: { 'X-Svc-Event': 'SomethingElse' } });
    expect(sink.events.map((event) => [event.kind, event.eventHeader])).toEqual([
      ['OrderStatus', 'OrderStatus'],
      ['DeliveryReceipt', 'DeliveryReceipt'],
      ['DeliveryReceipt', 'SomethingElse'],
    ]);
  });
});

describe('deduplication', () => {
  it('reports a retry with the same X-Svc-Delivery as a duplicate, answered 200', async () => {
    const { listener, sink } = await listen({ secrets: secret });
    const body = JSON.stringify(incomingMessage);
    const first = await post(listener.url, body, signed(body, secret, { 'X-Svc-Delivery': 'dlv-1' }));
    const retry = await post(listener.url, body, signed(body, secret, { 'X-Svc-Delivery': 'dlv-1' }));
    expect([first.status, retry.status]).toEqual([200, 200]);
    expect(JSON.parse(retry.body)).toMatchObject({ duplicate: true, deliveryId: 'dlv-1' });
    expect(sink.events.map((event) => [event.deliveryId, event.duplicate, event.dedupeKey])).toEqual([
      ['dlv-1', false, 'delivery:dlv-1'],
      ['dlv-1', true, 'delivery:dlv-1'],
    ]);
  });

  it('treats the same body under another delivery id as a new event', async () => {
    const { listener, sink } = await listen();
    const body = JSON.stringify(deliveryReceipt);
    await post(listener.url, body, { headers: { 'X-Svc-Delivery': 'dlv-a' } });
    await post(listener.url, body, { headers: { 'X-Svc-Delivery': 'dlv-b' } });
    expect(sink.events.map((event) => event.duplicate)).toEqual([false, false]);
  });

  it('falls back to the SHA-256 of the body when there is no delivery id', async () => {
    const { listener, sink } = await listen();
    const body = JSON.stringify(orderStatus);
    await post(listener.url, body);
    await post(listener.url, body);
    await post(listener.url, `${body}\n`);
    expect(sink.events.map((event) => event.duplicate)).toEqual([false, true, false]);
    expect(sink.events[0]?.dedupeKey).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('does not count a rejected request as seen', async () => {
    const { listener, sink } = await listen({ secrets: secret });
    const body = JSON.stringify(deliveryReceipt);
    await post(listener.url, body, signed(body, 'whsec-wrong', { 'X-Svc-Delivery': 'dlv-x' }));
    await post(listener.url, body, signed(body, secret, { 'X-Svc-Delivery': 'dlv-x' }));
    expect(sink.rejections[0]?.deliveryId).toBe('dlv-x');
    expect(sink.events.map((event) => event.duplicate)).toEqual([false]);
  });

  it('forgets the oldest keys beyond its capacity', async () => {
    const { listener, sink } = await listen({ dedupeCapacity: 2 });
    for (const id of ['a', 'b', 'c', 'a']) await post(listener.url, '{}', { headers: { 'X-Svc-Delivery': id } });
    expect(sink.events.map((event) => event.duplicate)).toEqual([false, false, false, false]);
    await post(listener.url, '{}', { headers: { 'X-Svc-Delivery': 'a' } });
    expect(sink.events.at(-1)?.duplicate).toBe(true);
  });
});

describe('forwarding to a local app', () => {
  it('relays the original bytes and end-to-end headers, and answers with the app status and body', async () => {
    const app = await fakeApp();
    app.respond = () => ({ status: 202, body: '{"queued":true}', headers: { 'Retry-After': '5', 'X-App': 'yes' } });
    const { listener, sink } = await listen({ secrets: secret, forwardTo: app.url });
    const body = `{ "messageId": "m-1",\r\n "status": "delivered" }`;
    const answer = await post(`${listener.url}incoming?x=1`, body, {
      headers: {
        'X-Svc-Signature': signBody(body, secret),
        'X-Svc-Event': 'DeliveryReceipt',
        'X-Svc-Delivery': 'dlv-fwd-1',
        'X-Custom': 'kept',
        // As through a tunnel: the sender addressed a public host name.
        Host: 'hooks.example.test',
        Connection: 'keep-alive, X-Per-Hop',
        'X-Per-Hop': 'dropped',
        'Keep-Alive': 'timeout=5',
      },
    });
    expect(answer.status).toBe(202);
    expect(answer.body).toBe('{"queued":true}');
    expect(answer.headers['retry-after']).toBe('5');
    expect(answer.headers['x-app']).toBe('yes');

    expect(app.requests).toHaveLength(1);
    const relayed = app.requests[0];
    expect(relayed?.method).toBe('POST');
    expect(relayed?.url).toBe('/hooks/svc?source=listener');
    expect(relayed?.body.equals(Buffer.from(body, 'utf8'))).toBe(true);
    expect(relayed?.headers).toMatchObject({
      'x-svc-signature': signBody(body, secret),
      'x-svc-event': 'DeliveryReceipt',
      'x-svc-delivery': 'dlv-fwd-1',
      'x-custom': 'kept',
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      host: new URL(app.url).host,
    });
    expect(relayed?.headers['x-per-hop']).toBeUndefined();
    expect(relayed?.headers['keep-alive']).toBeUndefined();
    // The app can verify the relayed bytes against the relayed signature itself.
    expect(signBody(relayed?.body ?? '', secret)).toBe(relayed?.headers['x-svc-signature']);

    expect(sink.events).toHaveLength(1);
    expect(sink.events[0]).toMatchObject({ status: 202, forward: { url: app.url, status: 202, error: null } });
    expect(sink.events[0]?.forward?.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('relays an app error, and forwards the retry again until the app acknowledges it', async () => {
    const app = await fakeApp();
    const statuses = [500, 200];
    app.respond = () => ({ status: statuses.shift() ?? 200, body: '' });
    const { listener, sink } = await listen({ forwardTo: app.url });
    const body = JSON.stringify(deliveryReceipt);
    const headers = { 'X-Svc-Delivery': 'dlv-retry' };
    expect((await post(listener.url, body, { headers })).status).toBe(500);
    expect((await post(listener.url, body, { headers })).status).toBe(200);
    expect((await post(listener.url, body, { headers })).status).toBe(200);
    expect(app.requests).toHaveLength(2);
    expect(sink.events.map((event) => [event.status, event.duplicate, event.forward?.status ?? null])).toEqual([
      [500, false, 500],
      [200, false, 200],
      [200, true, null],
    ]);
  });

  it('relays concurrent retries of one event to the app once', async () => {
    const app = await fakeApp();
    const { listener, sink } = await listen({ forwardTo: app.url });
    const body = JSON.stringify(orderStatus);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => post(listener.url, body, { headers: { 'X-Svc-Delivery': 'dlv-burst' } })),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    expect(app.requests).toHaveLength(1);
    expect(sink.events.filter((event) => !event.duplicate)).toHaveLength(1);
    expect(sink.events.filter((event) => event.duplicate)).toHaveLength(4);
  });

  it('answers 502 and reports the event when the app is down', async () => {
    const port = await unusedPort();
    const forwardTo = `http://127.0.0.1:${port}/hook`;
    const { listener, sink } = await listen({ secrets: secret, forwardTo });
    const body = JSON.stringify(incomingMessage);
    const answer = await post(listener.url, body, signed(body, secret, { 'X-Svc-Delivery': 'dlv-down' }));
    expect(answer.status).toBe(502);
    expect(JSON.parse(answer.body)).toMatchObject({ message: expect.stringMatching(/ECONNREFUSED/) });
    expect(sink.events).toHaveLength(1);
    expect(sink.events[0]).toMatchObject({
      kind: 'MessageReceived',
      status: 502,
      duplicate: false,
      forward: { url: forwardTo, status: null, error: expect.stringMatching(/ECONNREFUSED/) },
    });
    // Not acknowledged, so the sender's retry is a new attempt, not a duplicate.
    await post(listener.url, body, signed(body, secret, { 'X-Svc-Delivery': 'dlv-down' }));
    expect(sink.events[1]?.duplicate).toBe(false);
  });

  it('answers 502 when the app breaks off its answer', async () => {
    const { createServer } = await import('node:http');
    const broken = createServer((_request, response) => {
      response.writeHead(200, { 'Content-Length': '100' });
      response.write('{"partial":');
      setImmediate(() => response.socket?.destroy());
    });
    await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          broken.close(() => resolve());
          broken.closeAllConnections();
        }),
    );
    const address = broken.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const { listener, sink } = await listen({ forwardTo: `http://127.0.0.1:${port}/` });
    const answer = await post(listener.url, '{"orderId":1}');
    expect(answer.status).toBe(502);
    expect(sink.events[0]?.forward).toMatchObject({ status: null, error: expect.stringMatching(/broke off/) });
    expect((await post(listener.url, '{"orderId":2}')).status).toBe(502);
  });

  it('answers 502 when the app does not answer in time', async () => {
    const { createServer } = await import('node:http');
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          silent.close(() => resolve());
          silent.closeAllConnections();
        }),
    );
    const address = silent.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const { listener, sink } = await listen({ forwardTo: `http://127.0.0.1:${port}/`, forwardTimeoutMs: 50 });
    const answer = await post(listener.url, '{"orderId":1}');
    expect(answer.status).toBe(502);
    expect(sink.events[0]?.forward?.error).toMatch(/no answer within 50 ms/);
  });
});

describe('close()', () => {
  it('resolves while a keep-alive connection is open, and stops accepting', async () => {
    const sink = collectingSink();
    const listener = await startWebhookListener({}, sink);
    const agent = new Agent({ keepAlive: true });
    cleanups.push(() => agent.destroy());
    expect((await post(listener.url, '{}', { agent })).status).toBe(200);
    await listener.close();
    await expect(post(listener.url, '{}')).rejects.toThrow(/ECONNREFUSED/);
    await listener.close();
  });

  it('cuts a request whose body never ends after its grace period', async () => {
    const sink = collectingSink();
    const listener = await startWebhookListener({ closeGraceMs: 20 }, sink);
    const socket = connect(listener.port, '127.0.0.1');
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.on('connect', () => resolve()));
    // Expect: 100-continue makes the listener say when it has parsed the headers and started handling.
    const continued = new Promise<void>((resolve) => socket.once('data', () => resolve()));
    socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10\r\nExpect: 100-continue\r\n\r\n');
    await continued;
    socket.write('{');
    const closedSocket = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    await listener.close();
    await closedSocket;
    expect(sink.rejections).toHaveLength(1);
    expect(sink.rejections[0]?.reason).toMatch(/aborted/);
  });
});

describe('load', () => {
  it('takes 2,000 signed events, 50 at a time, and reports each exactly once', async () => {
    const { listener, sink } = await listen({ secrets: secret });
    const agent = new Agent({ keepAlive: true, maxSockets: 50 });
    cleanups.push(() => agent.destroy());
    const total = 2000;
    const concurrency = 50;
    const statuses: number[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < total) {
        const index = next;
        next += 1;
        const body = JSON.stringify({ ...deliveryReceipt, messageId: `m-${index}`, sequence: index });
        const answer = await post(listener.url, body, { agent, ...signed(body, secret, { 'X-Svc-Delivery': `load-${index}` }) });
        statuses.push(answer.status);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    expect(statuses).toHaveLength(total);
    expect(statuses.every((status) => status === 200)).toBe(true);
    expect(sink.rejections).toEqual([]);
    expect(sink.events).toHaveLength(total);
    const ids = new Set(sink.events.map((event) => event.deliveryId));
    expect(ids.size).toBe(total);
    expect(sink.events.some((event) => event.duplicate)).toBe(false);
    for (let index = 0; index < total; index += 1) expect(ids.has(`load-${index}`)).toBe(true);
  });
});

describe('startWebhookListener with an event store', () => {
  function gatedStore(): { records: StoredRecord[]; append(record: StoredRecord): Promise<void>; open(): void; fail: Error | null; called: Promise<void> } {
    let release: () => void = () => {};
    let gate = new Promise<void>((resolve) => (release = resolve));
    let calledNow: () => void = () => {};
    const store = {
      records: [] as StoredRecord[],
      fail: null as Error | null,
      called: new Promise<void>((resolve) => (calledNow = resolve)),
      async append(record: StoredRecord): Promise<void> {
        calledNow();
        await gate;
        if (store.fail !== null) throw store.fail;
        store.records.push(record);
      },
      open(): void {
        release();
        gate = Promise.resolve();
      },
    };
    return store;
  }

  it('answers 200 only once the event is stored, and stores a retry once', async () => {
    const store = gatedStore();
    const { listener, sink } = await listen({ secrets: secret, store });
    const body = JSON.stringify(incomingMessage);
    let answered = false;
    const first = post(listener.url, body, signed(body, secret, { 'X-Svc-Delivery': 'd-1' })).then((answer) => {
      answered = true;
      return answer;
    });
    // A retry while the first is being stored waits for it instead of storing again.
    const retry = post(listener.url, body, signed(body, secret, { 'X-Svc-Delivery': 'd-1' }));
    await store.called;
    expect(answered).toBe(false);
    expect(store.records).toHaveLength(0);
    store.open();
    expect((await first).status).toBe(200);
    expect((await retry).status).toBe(200);
    expect(store.records.map((r) => r.id)).toEqual(['d-1']);
    expect(store.records[0]).toMatchObject({ kind: 'event', type: 'MessageReceived', body, messageId: incomingMessage.messageId });
    expect(store.records[0]!.headers?.['x-svc-delivery']).toBe('d-1');
    expect(store.records[0]!.headers?.['authorization']).toBeUndefined();
    expect(sink.events.map((e) => [e.stored, e.duplicate])).toEqual([
      [true, false],
      [false, true],
    ]);
  });

  it('answers 503 when the event cannot be stored, so the sender retries', async () => {
    const store = gatedStore();
    store.fail = new Error('disk full');
    store.open();
    const { listener, sink } = await listen({ secrets: secret, store });
    const body = JSON.stringify(deliveryReceipt);
    const answer = await post(listener.url, body, signed(body, secret, { 'X-Svc-Delivery': 'd-2' }));
    expect(answer.status).toBe(503);
    expect(answer.body).toContain('could not be stored: disk full');
    expect(sink.events).toHaveLength(0);
    store.fail = null;
    expect((await post(listener.url, body, signed(body, secret, { 'X-Svc-Delivery': 'd-2' }))).status).toBe(200);
    expect(store.records.map((r) => r.id)).toEqual(['d-2']);
  });

  it('after a restart, knows what is already stored (storedIds)', async () => {
    const store = gatedStore();
    store.open();
    const { listener, sink } = await listen({ secrets: secret, store, storedIds: ['d-old'] });
    const body = JSON.stringify(deliveryReceipt);
    const answer = await post(listener.url, body, signed(body, secret, { 'X-Svc-Delivery': 'd-old' }));
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ duplicate: true });
    expect(store.records).toHaveLength(0);
    expect(sink.events[0]?.duplicate).toBe(true);
  });

  it('with --forward-to, stores once even when the app refuses and the retry is relayed again', async () => {
    const store = gatedStore();
    store.open();
    const app = await fakeApp();
    const { listener } = await listen({ secrets: secret, store, forwardTo: app.url });
    app.respond = () => ({ status: 500, body: '{"error":true}' });
    const body = JSON.stringify(deliveryReceipt);
    expect((await post(listener.url, body, signed(body, secret, { 'X-Svc-Delivery': 'd-3' }))).status).toBe(500);
    app.respond = () => ({ status: 200, body: '{"ok":true}' });
    expect((await post(listener.url, body, signed(body, secret, { 'X-Svc-Delivery': 'd-3' }))).status).toBe(200);
    expect(app.requests).toHaveLength(2);
    expect(store.records.map((r) => r.id)).toEqual(['d-3']);
  });
});
