import { mkdtempSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { fakeClock, runCli } from '../helpers/cli.js';
import { loopbackServiceForFile } from '../helpers/loopback-service.js';

// The secret-echo server: a server that repeats everything it was sent (headers, body,
// the decoded Authorization, and all of that again in Base64) in its error messages, its HTML
// error pages, its answer headers and its successful answers. Every command, with and without
// --debug and --json, must print none of the secrets in play in any form.

const USER = 'echo@example.com';
const PASSWORD = 'S3cret pass/word+x';
const WEBHOOK_SECRET = 'whsec_Echo-Me-1234';
const BASIC_PASSWORD = 'basic-PW-4567';
const PROXY_PASSWORD = 'proxy-PW-8901';
const TENANT = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
const NUMBER = '+15551230000';

type Mode = 'error 400 echoing the request' | 'HTML 500 echoing the request' | 'success echoing the request';
const MODES: Mode[] = ['error 400 echoing the request', 'HTML 500 echoing the request', 'success echoing the request'];
let mode: Mode = MODES[0]!;

function dumpOf(req: IncomingMessage, body: string): string {
  const authorization = String(req.headers['authorization'] ?? '');
  const decoded = Buffer.from(authorization.replace(/^Basic /, ''), 'base64').toString('utf8');
  const text = JSON.stringify({ headers: req.headers, body, decoded, encoded: encodeURIComponent(decoded) });
  // Also in Base64, at three alignments, as a server that encodes whole blocks would.
  const b64 = [0, 1, 2].map((n) => Buffer.from(`${'#'.repeat(n)}${text}`).toString('base64')).join(' ');
  return `${text} ${b64}`;
}

function answer(req: IncomingMessage, res: ServerResponse, body: string): void {
  const dump = dumpOf(req, body);
  const echoHeaders = {
    'x-echo-authorization': String(req.headers['authorization'] ?? ''),
    'x-echo-decoded': encodeURIComponent(Buffer.from(String(req.headers['authorization'] ?? '').replace(/^Basic /, ''), 'base64').toString('utf8')),
    'www-authenticate': `Basic realm="${encodeURIComponent(body.slice(0, 200))}"`,
  };
  if (mode === 'error 400 echoing the request') {
    res.writeHead(400, { 'content-type': 'application/json', ...echoHeaders }).end(JSON.stringify({ message: `Bad request: ${dump}`, title: dump, errorCode: 'ECHO' }));
  } else if (mode === 'HTML 500 echoing the request') {
    res.writeHead(500, { 'content-type': 'text/html', ...echoHeaders }).end(`<html><head><title>Error ${dump}</title></head><body><pre>${dump}</pre></body></html>`);
  } else {
    // An object that also holds a list: a good answer to every call, full of the echo of what
    // the run sent (a secret the run never sent or read is not in play, and cannot be echoed).
    const status = req.method === 'POST' ? 201 : 200;
    res.writeHead(status, { 'content-type': 'application/json', ...echoHeaders }).end(
      JSON.stringify({
        echo: dump,
        items: [{ echo: dump, tenantId: TENANT, phoneNumber: NUMBER }],
        tenantId: TENANT,
        phoneNumber: NUMBER,
        phoneNumberId: TENANT,
        orderId: 'o-1',
        status: req.url?.includes('/messages/') ? 'delivered' : 'Completed',
        messageId: 'm-1',
        loaUrl: 'https://files.example/loa.pdf',
        uri: 'https://files.example/m.png',
        settings: { note: dump },
      }),
    );
  }
}

const service = loopbackServiceForFile('secret-echo', answer);
const dir = service.dir;
const PNG = join(dir, 'm.png');
const PDF = join(dir, 'loa.pdf');
const BODY = join(dir, 'body.json');
const RECIPIENTS = join(dir, 'to.txt');

beforeAll(() => {
  writeFileSync(PNG, Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 7)]));
  writeFileSync(PDF, '%PDF-1.4\n%echo\n');
  writeFileSync(BODY, '{"hello": "world"}');
  writeFileSync(RECIPIENTS, '+15551230001\n+15551230002\n');
});

const COMMANDS: { name: string; argv: string[]; stdin?: string }[] = [
  { name: 'health', argv: ['health'] },
  { name: 'tenant list', argv: ['tenant', 'list'] },
  { name: 'tenant get', argv: ['tenant', 'get', TENANT] },
  {
    name: 'tenant create with a webhook secret and a Basic auth password',
    argv: ['tenant', 'create', '--domain', 'a.example', '--webhook-primary-uri', 'https://hooks.example/in', '--webhook-secret-env', 'HOOK_SECRET', '--webhook-basic-auth-username', 'hooks', '--webhook-basic-auth-password-stdin'],
    stdin: `${BASIC_PASSWORD}\n`,
  },
  { name: 'tenant update with a webhook secret from stdin', argv: ['tenant', 'update', TENANT, '--webhook-secret-stdin'], stdin: `${WEBHOOK_SECRET}\n` },
  { name: 'number list', argv: ['number', 'list'] },
  { name: 'number get', argv: ['number', 'get', NUMBER] },
  { name: 'number provision', argv: ['number', 'provision', NUMBER, '--tenant', TENANT, '--type', 'SMS', '--class', 'P2P'] },
  { name: 'number unprovision', argv: ['number', 'unprovision', NUMBER, '--tenant', TENANT] },
  { name: 'number update', argv: ['number', 'update', NUMBER, '--description', 'd'] },
  { name: 'number loa upload', argv: ['number', 'loa', 'upload', PDF] },
  { name: 'order get', argv: ['order', 'get', '1'] },
  { name: 'order watch', argv: ['order', 'watch', '1'] },
  { name: 'message get', argv: ['message', 'get', '0b0a6c8e-2f7a-4a55-9b1e-3d7c2a1f9e10'] },
  { name: 'message watch', argv: ['message', 'watch', '0b0a6c8e-2f7a-4a55-9b1e-3d7c2a1f9e10'] },
  { name: 'media upload', argv: ['media', 'upload', PNG, '--number', NUMBER, '--tenant', TENANT] },
  { name: 'send', argv: ['send', '--from', NUMBER, '--to', '+15551230001', '--body', 'hi'] },
  { name: 'send --to-file', argv: ['send', '--from', NUMBER, '--to-file', RECIPIENTS, '--body', 'hi'] },
  { name: 'api', argv: ['api', 'POST', '/tenants', '--data', `@${BODY}`, '--include'] },
  { name: 'auth login', argv: ['auth', 'login', '--profile', 'echo', '--username', USER, '--password-stdin'], stdin: `${PASSWORD}\n` },
  { name: 'auth status', argv: ['auth', 'status'] },
  { name: 'webhook sign', argv: ['webhook', 'sign', '--secret-env', 'HOOK_SECRET', '--body-file', BODY] },
  { name: 'webhook verify', argv: ['webhook', 'verify', '--secret-env', 'HOOK_SECRET', '--signature', 'bm9wZQ==', '--body-file', BODY] },
];

const SECRETS = { password: PASSWORD, 'webhook secret': WEBHOOK_SECRET, 'Basic auth password': BASIC_PASSWORD, 'proxy password': PROXY_PASSWORD };

/** Every form a secret could be printed in that the tests can think of. */
function forms(secret: string): string[] {
  return [
    secret,
    encodeURIComponent(secret),
    encodeURIComponent(secret).replace(/%20/g, '+'),
    JSON.stringify(secret).slice(1, -1),
    Buffer.from(secret).toString('base64').replace(/=+$/, ''),
    Buffer.from(`${USER}:${secret}`).toString('base64').replace(/=+$/, ''),
  ];
}

/** Base64 runs in the output, decoded at every alignment: none may hold a secret. */
function decodedBase64Runs(text: string): string[] {
  const out: string[] = [];
  for (const run of text.match(/[A-Za-z0-9+/_-]{16,}={0,2}/g) ?? []) {
    for (let skip = 0; skip < 4; skip++) out.push(Buffer.from(run.slice(skip), 'base64').toString('latin1'));
  }
  return out;
}

const VARIANTS = [[], ['--debug'], ['--json'], ['--debug', '--json']];
const cases = COMMANDS.flatMap((command) => MODES.map((m) => [command.name, m, command] as const));

describe('the secret-echo server', () => {
  it.each(cases)('%s, answered with an %s, never prints a secret (plain, --debug, --json, both)', async (_name, m, command) => {
    mode = m;
    const config = mkdtempSync(join(dir, 'config-'));
    for (const variant of VARIANTS) {
      const result = await runCli([...command.argv, ...variant], {
        env: {
          SVC_BASE_URL: service.url,
          SVC_USERNAME: USER,
          SVC_PASSWORD: PASSWORD,
          SVC_TENANT: TENANT,
          SVC_CONFIG_DIR: config,
          SVC_ORDER_POLL_MS: '10',
          HOOK_SECRET: WEBHOOK_SECRET,
          // Not used for a loopback API, but known: they must not leak either.
          HTTPS_PROXY: `http://proxy-user:${PROXY_PASSWORD}@proxy.invalid:3128`,
          HTTP_PROXY: `http://proxy-user:${PROXY_PASSWORD}@proxy.invalid:3128`,
        },
        ...(command.stdin !== undefined ? { stdin: command.stdin } : {}),
        clock: fakeClock(),
      });
      const printed = result.stdout + result.stderr;
      // The run did talk to the echo server (or failed on purpose), so there was something to leak.
      expect(printed.length, `${command.name} ${variant.join(' ')}`).toBeGreaterThan(0);
      for (const [what, secret] of Object.entries(SECRETS)) {
        for (const form of forms(secret)) expect(printed, `${what} as "${form}" with ${variant.join(' ') || 'no flags'}`).not.toContain(form);
        for (const decoded of decodedBase64Runs(printed)) expect(decoded.includes(secret), `${what} in Base64 with ${variant.join(' ') || 'no flags'}`).toBe(false);
      }
    }
  });
});
