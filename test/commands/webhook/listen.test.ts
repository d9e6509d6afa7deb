import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startCommand, type LiveCapture } from '../../helpers/live.js';
import { signBody } from '../../../src/domain/signature.js';
import { post, startFakeApp, unusedPort } from '../../webhooks/helpers.js';
import { deliveryReceipt, incomingMessage, orderStatus } from '../../webhooks/sample-payloads.js';

// `webhook listen` runs until Ctrl-C, so these tests drive main() in-process with live streams:
// they read the address from the banner, post events, then abort as Ctrl-C would.

interface RunningListen {
  url: string;
  stdout: LiveCapture;
  stderr: LiveCapture;
  /** Ctrl-C, then the exit code. */
  interrupt(): Promise<number>;
}

const running: RunningListen[] = [];
// Every listener here stores into a data directory of its own, never the developer's.
const dataDir = mkdtempSync(join(tmpdir(), 'svc-listen-data-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
afterEach(async () => {
  for (const listen of running.splice(0)) await listen.interrupt();
});

async function startListen(
  args: string[],
  options: { env?: Record<string, string>; tty?: boolean } = {},
): Promise<RunningListen | { code: number; stdout: string; stderr: string }> {
  const ownData = mkdtempSync(join(dataDir, 'listener-'));
  const command = startCommand(['webhook', 'listen', '--port', '0', ...args], { SVC_DATA_DIR: ownData, ...options.env }, options.tty ?? false);
  const { stdout, stderr, done } = command;
  const banner = await stderr.waitFor(/Listening on (http:\/\/\S+\/)/, done);
  if (banner === null) return { code: await done, stdout: stdout.text, stderr: stderr.text };
  const listen: RunningListen = { url: banner[1] ?? '', stdout, stderr, interrupt: command.interrupt };
  running.push(listen);
  return listen;
}

async function started(args: string[], options: { env?: Record<string, string>; tty?: boolean } = {}): Promise<RunningListen> {
  const result = await startListen(args, options);
  if (!('url' in result)) throw new Error(`listen ended with ${result.code}: ${result.stderr}`);
  return result;
}

const secret = 'whsec-listen-command';
const env = { SVC_WEBHOOK_SECRET: secret };

function signedHeaders(body: string, extra: Record<string, string> = {}): { headers: Record<string, string> } {
  return { headers: { 'X-Svc-Signature': signBody(body, secret), ...extra } };
}

describe('svc webhook listen', () => {
  it('prints each accepted event as a readable line and exits 130 on Ctrl-C after closing', async () => {
    const listen = await started([], { env });
    expect(listen.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(listen.stderr.text).toMatch(/signatures checked/);
    for (const payload of [incomingMessage, deliveryReceipt, orderStatus]) {
      const body = JSON.stringify(payload);
      expect((await post(listen.url, body, signedHeaders(body))).status).toBe(200);
    }
    const lines = listen.stdout.text.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d {2}message {2}\+15551230001 -> \+15551230002 {2}"Hello from the other side"/);
    expect(lines[1]).toMatch(/receipt .*delivered$/);
    expect(lines[2]).toMatch(/order {4}#1234 {2}Completed/);
    expect(listen.stdout.text).not.toMatch(/\u001b\[/);

    expect(await listen.interrupt()).toBe(130);
    expect(listen.stderr.text).toMatch(/Stopped: 3 events, 0 duplicates, 0 refused\./);
    await expect(post(listen.url, '{}')).rejects.toThrow(/ECONNREFUSED/);
    expect(`${listen.stdout.text}${listen.stderr.text}`).not.toContain(secret);
  });

  it('prints one JSON object a line with --json', async () => {
    const listen = await started(['--json'], { env });
    for (const payload of [incomingMessage, deliveryReceipt, orderStatus, { something: 'else' }]) {
      const body = JSON.stringify(payload);
      await post(listen.url, body, signedHeaders(body, { 'X-Svc-Delivery': `d-${Object.keys(payload).length}` }));
    }
    const objects = listen.stdout.text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string; payload: unknown; deliveryId: string; signature: string });
    expect(objects.map((object) => object.kind)).toEqual(['MessageReceived', 'DeliveryReceipt', 'OrderStatus', 'unknown']);
    expect(objects[2]?.payload).toEqual(orderStatus);
    expect(objects.every((object) => object.signature === 'valid')).toBe(true);
  });

  it('answers 401 to a wrong or missing signature, warning on stderr with the reason', async () => {
    const listen = await started([], { env });
    const body = JSON.stringify(deliveryReceipt);
    expect((await post(listen.url, body, { headers: { 'X-Svc-Signature': signBody(body, 'whsec-wrong') } })).status).toBe(401);
    expect((await post(listen.url, body)).status).toBe(401);
    expect(listen.stdout.text).toBe('');
    expect(listen.stderr.text).toMatch(/warning: .*rejected 401 {2}POST \/ from 127\.0\.0\.1: signature mismatch/);
    expect(listen.stderr.text).toMatch(/warning: .*rejected 401 .*signature missing/);
  });

  it('answers 4xx to oversized, malformed and mistyped bodies and keeps running', async () => {
    const listen = await started([], { env });
    const big = `{"pad":"${'x'.repeat(1024 * 1024)}"}`;
    expect((await post(listen.url, big, signedHeaders(big))).status).toBe(413);
    expect((await post(listen.url, '{nope', signedHeaders('{nope'))).status).toBe(400);
    expect((await post(listen.url, '{}', { headers: { 'Content-Type': 'text/plain', 'X-Svc-Signature': signBody('{}', secret) } })).status).toBe(415);
    const body = JSON.stringify(orderStatus);
    expect((await post(listen.url, body, signedHeaders(body))).status).toBe(200);
    expect(listen.stderr.text).toMatch(/rejected 413 .*limit is 1 MB/);
    expect(listen.stderr.text).toMatch(/rejected 400 .*invalid JSON/);
    expect(listen.stderr.text).toMatch(/rejected 415 .*not application\/json/);
    expect(listen.stdout.text.trimEnd().split('\n')).toHaveLength(1);
  });

  it('says so once on stderr when a retry arrives, and prints the event once on stdout', async () => {
    const listen = await started(['--json'], { env });
    const body = JSON.stringify(incomingMessage);
    for (let attempt = 0; attempt < 3; attempt += 1) {
      expect((await post(listen.url, body, signedHeaders(body, { 'X-Svc-Delivery': 'dlv-42' }))).status).toBe(200);
    }
    expect(listen.stdout.text.trimEnd().split('\n')).toHaveLength(1);
    expect(listen.stderr.text.match(/message \(duplicate\) {2}already acknowledged, answered 200 {2}\[dlv-42\]/g)).toHaveLength(2);
    expect(await listen.interrupt()).toBe(130);
    expect(listen.stderr.text).toMatch(/Stopped: 1 event, 2 duplicates, 0 refused\./);
  });

  it('checks Basic credentials from --basic-auth-env', async () => {
    const listen = await started(['--basic-auth-env', 'HOOK_AUTH'], { env: { ...env, HOOK_AUTH: 'hook:s3cret:with:colons' } });
    const body = JSON.stringify(deliveryReceipt);
    const auth = (pair: string): string => `Basic ${Buffer.from(pair).toString('base64')}`;
    expect((await post(listen.url, body, signedHeaders(body, { Authorization: auth('hook:s3cret:with:colons') }))).status).toBe(200);
    expect((await post(listen.url, body, signedHeaders(body, { Authorization: auth('hook:wrong') }))).status).toBe(401);
    expect((await post(listen.url, body, signedHeaders(body))).status).toBe(401);
    expect(listen.stderr.text).toMatch(/Basic auth required/);
    expect(listen.stderr.text).toMatch(/Basic credentials do not match/);
    expect(listen.stderr.text).toMatch(/Basic credentials missing/);
    expect(listen.stderr.text).not.toContain('s3cret');
  });

  it('accepts every secret of a comma-separated --secret-env list', async () => {
    const listen = await started(['--secret-env', 'NEW_SECRET, OLD_SECRET'], { env: { NEW_SECRET: 'whsec-new', OLD_SECRET: 'whsec-old' } });
    expect(listen.stderr.text).toMatch(/signatures checked against 2 secrets/);
    for (const key of ['whsec-new', 'whsec-old', 'whsec-other']) {
      const body = JSON.stringify({ ...deliveryReceipt, messageId: key });
      await post(listen.url, body, { headers: { 'X-Svc-Signature': signBody(body, key) } });
    }
    expect(listen.stdout.text.trimEnd().split('\n')).toHaveLength(2);
    expect(listen.stderr.text).toMatch(/rejected 401 .*mismatch/);
  });

  it('relays events to --forward-to and reports the app status; 502 when the app is down', async () => {
    const app = await startFakeApp();
    try {
      app.respond = () => ({ status: 201, body: '{"stored":true}' });
      const listen = await started(['--forward-to', app.url], { env });
      const body = JSON.stringify(orderStatus);
      const answer = await post(listen.url, body, signedHeaders(body));
      expect(answer).toMatchObject({ status: 201, body: '{"stored":true}' });
      expect(app.requests[0]?.body.toString('utf8')).toBe(body);
      expect(listen.stderr.text).toContain(`forwarding to ${app.url}`);
      expect(listen.stdout.text).toMatch(/order .*-> app 201 in \d+ ms\n$/);
    } finally {
      await app.close();
    }
    const port = await unusedPort();
    const down = await started(['--forward-to', `http://127.0.0.1:${port}/`], { env });
    const body = JSON.stringify(deliveryReceipt);
    expect((await post(down.url, body, signedHeaders(body))).status).toBe(502);
    expect(down.stdout.text).toMatch(/-> app unreachable \(.*ECONNREFUSED.*\), answered 502\n$/);
  });

  it('does not start without a secret (exit 2), and names the ways out', async () => {
    const result = await startListen([], { env: {} });
    expect('url' in result).toBe(false);
    if ('url' in result) return;
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no webhook secret/);
    expect(result.stderr).toMatch(/--no-verify/);
    expect(result.stderr).toMatch(/SVC_WEBHOOK_SECRET/);
  });

  it('with --no-verify, accepts unsigned events and warns on start', async () => {
    const listen = await started(['--no-verify'], { env: {} });
    expect(listen.stderr.text).toMatch(/warning: --no-verify: signatures are NOT checked/);
    expect(listen.stderr.text).toMatch(/signatures NOT checked/);
    expect((await post(listen.url, '{"orderId":1}')).status).toBe(200);
    expect(listen.stdout.text).toMatch(/order {4}#1/);
  });

  it('with --fsync says so in the banner, and refuses it beside --no-store (exit 2)', async () => {
    const listen = await started(['--fsync'], { env });
    expect(listen.stderr.text).toMatch(/storing in .*, synced before each answer/);
    const body = JSON.stringify(orderStatus);
    expect((await post(listen.url, body, signedHeaders(body))).status).toBe(200);
    const result = await startListen(['--fsync', '--no-store'], { env });
    expect('url' in result ? 0 : result.code).toBe(2);
    if (!('url' in result)) expect(result.stderr).toMatch(/--fsync and --no-store/);
  });

  it.each([
    [['--store', 'events-a', '--no-store']],
    [['--no-store', '--store=events-a']],
  ])('refuses --store beside --no-store whatever their order: %j (exit 2)', async (flags) => {
    const result = await startListen(flags, { env });
    expect('url' in result ? 0 : result.code).toBe(2);
    if (!('url' in result)) expect(result.stderr).toContain('--store and --no-store cannot be used together');
  });

  it('takes a value that looks like the other form as a value, not as that flag', async () => {
    // `--store` here is the value of --secret-env: the command gets to judge it (and refuses it).
    const result = await startListen(['--no-store', '--secret-env', '--store'], { env });
    expect('url' in result ? 0 : result.code).toBe(2);
    if (!('url' in result)) {
      expect(result.stderr).not.toContain('cannot be used together');
      expect(result.stderr).toContain('--secret-env takes the name of an environment variable');
    }
  });

  it('refuses --no-verify beside a secret (exit 2)', async () => {
    const result = await startListen(['--no-verify'], { env });
    expect('url' in result ? 0 : result.code).toBe(2);
  });

  it('colours lines on a terminal, and not with NO_COLOR', async () => {
    const body = JSON.stringify(deliveryReceipt);
    const coloured = await started([], { env, tty: true });
    await post(coloured.url, body, signedHeaders(body));
    expect(coloured.stdout.text).toMatch(/\u001b\[\d+m/);
    const plain = await started([], { env: { ...env, NO_COLOR: '1' }, tty: true });
    await post(plain.url, body, signedHeaders(body));
    expect(plain.stdout.text).not.toMatch(/\u001b\[/);
    expect(plain.stdout.text).toMatch(/receipt/);
  });

  it('refuses bad settings before binding (exit 2)', async () => {
    const cases: Array<[string[], Record<string, string>, RegExp]> = [
      [['--forward-to', 'http://example.com/hook'], env, /--forward-to: .*loopback/],
      [['--secret-env', 'MISSING_VAR'], {}, /MISSING_VAR is not set/],
      [['--basic-auth-env', 'HOOK_AUTH'], { ...env, HOOK_AUTH: 'no-colon' }, /HOOK_AUTH must hold USER:PASSWORD/],
      [['--basic-auth-env', 'HOOK_AUTH'], env, /HOOK_AUTH is not set/],
      [['--port', '70000'], env, /--port must be a whole number from 0 to 65535/],
      // An empty host would bind every interface.
      [['--host', ''], env, /--host needs an address of this machine \(default 127\.0\.0\.1\), not an empty string/],
      [['--host', ' '], env, /--host needs an address of this machine \(default 127\.0\.0\.1\), not a blank " "/],
    ];
    for (const [args, caseEnv, message] of cases) {
      const result = await startListen(args, { env: caseEnv });
      expect('url' in result).toBe(false);
      if ('code' in result) {
        expect(result.code).toBe(2);
        expect(result.stderr).toMatch(message);
        expect(result.stderr).not.toContain('no-colon');
      }
    }
  });

  it('refuses a --store that is a file, or lies under one (exit 2), naming the path', async () => {
    const file = join(dataDir, 'not-a-directory');
    writeFileSync(file, 'x');
    const result = await startListen(['--store', file], { env });
    expect('url' in result ? 0 : result.code).toBe(2);
    if (!('url' in result)) expect(result.stderr).toContain(`--store ${file} is not a directory (it is a file)`);
    const under = await startListen(['--store', join(file, 'events')], { env });
    expect('url' in under ? 0 : under.code).toBe(2);
    if (!('url' in under)) expect(under.stderr).toContain(`--store ${join(file, 'events')} is not a directory: ${file} is a file`);
  });

  it('fails with exit 1 when the port is taken', async () => {
    const first = await started([], { env });
    const port = new URL(first.url).port;
    const result = await startListen(['--port', port], { env });
    expect(result).toMatchObject({ code: 1, stderr: expect.stringMatching(new RegExp(`port ${port} .*already in use`)) });
  });
});
