import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { fakeClock, runCli } from '../helpers/cli.js';
import { loopbackServiceForFile } from '../helpers/loopback-service.js';

// A server that echoes the request in the escapings other languages' encoders write: Python's
// json.dumps (everything past ASCII as \uXXXX, a surrogate pair past the BMP; lower-case hex, and
// upper-case as some encoders write it), percent-encoding (urllib.parse.quote) and form encoding
// (`+` for a space). Secrets with accents, a space and an emoji: none may be printed in any form.

const USER = 'escapes@example.com';
const PASSWORD = 'Pässwörd 日本 😀-1';
const WEBHOOK_SECRET = 'whsec_Ëcho ßecret/😀+2';
const TENANT = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';

type Escaping = 'python json' | 'python json, upper-case hex' | 'percent-encoded' | 'form-encoded';
const ESCAPINGS: Escaping[] = ['python json', 'python json, upper-case hex', 'percent-encoded', 'form-encoded'];
let escaping: Escaping = ESCAPINGS[0]!;

/** JSON as Python's json.dumps writes it by default (ensure_ascii). */
function pythonJson(value: unknown, upper: boolean): string {
  return JSON.stringify(value).replace(/[^\x00-\x7f]/g, (c) => {
    const hex = c.charCodeAt(0).toString(16).padStart(4, '0');
    return `\\u${upper ? hex.toUpperCase() : hex}`;
  });
}

/** Percent-encoding of every byte but the unreserved ones, hex upper- or lower-case. */
function percent(text: string, lower: boolean): string {
  return [...Buffer.from(text, 'utf8')]
    .map((b) => (/[A-Za-z0-9_.~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${lower ? b.toString(16).padStart(2, '0') : b.toString(16).toUpperCase().padStart(2, '0')}`))
    .join('');
}

function echo(req: IncomingMessage, body: string): string {
  const authorization = String(req.headers['authorization'] ?? '');
  const decoded = Buffer.from(authorization.replace(/^Basic /, ''), 'base64').toString('utf8');
  const dump = { headers: req.headers, body, parsed: body === '' ? null : (JSON.parse(body) as unknown), decoded };
  switch (escaping) {
    case 'python json':
      return pythonJson(dump, false);
    case 'python json, upper-case hex':
      return pythonJson(dump, true);
    case 'percent-encoded':
      return `body=${percent(body, true)}&decoded=${percent(decoded, false)}`;
    case 'form-encoded':
      return new URLSearchParams({ body, decoded }).toString();
  }
}

function answer(req: IncomingMessage, res: ServerResponse, body: string): void {
  const text = echo(req, body);
  if (req.method === 'GET' && req.url?.includes('/tenants/') && escaping !== 'python json') {
    // An error whose message holds the echo: printed as the error's message.
    res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ message: `Bad request: ${text}` }));
    return;
  }
  // A successful answer whose fields hold the echo, escaped on the wire as the mode says.
  res.writeHead(200, { 'content-type': 'application/json' }).end(`{"tenantId": "${TENANT}", "domain": "a.example", "echo": ${JSON.stringify(text)}, "raw": ${escaping.startsWith('python') ? text : '""'}}`);
}

const service = loopbackServiceForFile('secret-escapes', answer);

/** Every spelling of the secret the test knows of (what the redactor must have hidden). */
function spellings(secret: string): string[] {
  const units = (upper: boolean): string => pythonJson(secret, upper).slice(1, -1);
  return [secret, units(false), units(true), percent(secret, true), percent(secret, false), encodeURIComponent(secret), new URLSearchParams({ s: secret }).toString().slice(2)];
}

const COMMANDS: { name: string; argv: string[] }[] = [
  { name: 'tenant update with a webhook secret', argv: ['tenant', 'update', TENANT, '--webhook-secret-env', 'HOOK_SECRET'] },
  { name: 'tenant get', argv: ['tenant', 'get', TENANT] },
  { name: 'api POST', argv: ['api', 'POST', '/tenants', '--data', '{"note":"x"}'] },
];

describe('a server that echoes the request in other escapings', () => {
  const cases = COMMANDS.flatMap((command) => ESCAPINGS.map((e) => [command.name, e, command] as const));
  it.each(cases)('%s, echoed %s, prints no secret', async (_name, e, command) => {
    escaping = e;
    for (const variant of [[], ['--json'], ['--debug']]) {
      const result = await runCli([...command.argv, ...variant], {
        env: {
          SVC_BASE_URL: service.url,
          SVC_USERNAME: USER,
          SVC_PASSWORD: PASSWORD,
          SVC_TENANT: TENANT,
          SVC_CONFIG_DIR: service.dir,
          HOOK_SECRET: WEBHOOK_SECRET,
        },
        clock: fakeClock(),
      });
      const printed = result.stdout + result.stderr;
      expect(printed, `${command.name} ${variant.join(' ')}`).toMatch(/\[REDACTED\]/);
      for (const secret of [PASSWORD, WEBHOOK_SECRET]) {
        for (const form of spellings(secret)) expect(printed, `"${form}" with ${variant.join(' ') || 'no flags'}`).not.toContain(form);
      }
      // Nor any recognisable piece of the non-ASCII part, escaped.
      expect(printed.toLowerCase()).not.toContain('\\ud83d\\ude00');
      expect(printed.toLowerCase()).not.toContain('%f0%9f%98%80');
    }
  });
});
