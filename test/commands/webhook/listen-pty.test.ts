import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { signBody } from '../../../src/domain/signature.js';
import { BIN } from '../../helpers/spawn.js';
import { startPty, type PtySession } from '../../output/pty.js';
import { post } from '../../webhooks/helpers.js';
import { incomingMessage } from '../../webhooks/sample-payloads.js';

// `svc webhook listen` with no secret, started by a person on a real terminal: it makes one,
// shows it once with the exact line that points a tenant at the listener, and starts; the secret
// is never printed again, whatever the events carry. Without a person there (CI), it refuses.

const TENANT = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
const dir = mkdtempSync(join(tmpdir(), 'svc-listen-pty-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let session: PtySession | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

function listen(extra: Record<string, string> = {}, args: string[] = []): PtySession {
  const home = mkdtempSync(join(dir, 'run-'));
  session = startPty(process.execPath, [BIN, 'webhook', 'listen', '--port', '0', '--store', join(home, 'events'), ...args], {
    cols: 80,
    rows: 40,
    env: { PATH: process.env['PATH'], HOME: home, TERM: 'xterm', NO_COLOR: '1', SVC_CONFIG_DIR: join(home, 'config'), SVC_DATA_DIR: home, CI: undefined, ...extra },
  });
  return session;
}

function filesUnder(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' }).map((name) => join(root, name)).filter((path) => statSync(path).isFile());
}

describe('svc webhook listen without a secret, on a terminal', () => {
  it('makes one, shows it once with the tenant update line, checks events with it, and never prints it again', async () => {
    const pty = listen({ SVC_TENANT: TENANT });
    const [, url] = await pty.waitFor(/Listening on (http:\/\/127\.0\.0\.1:\d+\/) \(signatures checked, storing in /);
    const [, secret] = await pty.waitFor(/^ {2}export SVC_WEBHOOK_SECRET=([A-Za-z0-9_-]{43})$/m);
    // The exact line to run, with this listener's URL and the profile's (here SVC_TENANT's)
    // tenant, continued with backslashes to fit the 80 columns.
    expect(pty.text()).toMatch(/^ {2}svc tenant update \S+ \\\n {6}--webhook-primary-uri/m);
    expect(pty.text().replace(/ \\\n +/g, ' ')).toContain(`  svc tenant update ${TENANT} --webhook-primary-uri ${url} --webhook-secret-env SVC_WEBHOOK_SECRET\n`);
    expect(pty.text()).toMatch(/No webhook secret was given, so this listener made one \(shown only now\)/);

    // Events are checked against it: signed ones accepted, others refused.
    const carrying = JSON.stringify({ ...incomingMessage, message: `the secret is ${secret}` });
    let from = pty.mark();
    expect((await post(url!, carrying, { headers: { 'X-Svc-Signature': signBody(carrying, secret!) } })).status).toBe(200);
    await pty.waitFor(/message +\+15551230001 -> \+15551230002 +"the secret is \[REDACTED\]"/, from);
    from = pty.mark();
    expect((await post(url!, carrying, { headers: { 'X-Svc-Signature': signBody(carrying, 'another secret') } })).status).toBe(401);
    await pty.waitFor(/warning: .*signature/i, from);
    pty.write('\u0003');
    expect(await pty.exited).toBe(130);
    // Shown once: neither the event that carried it nor anything after shows it again.
    expect(pty.text().split(secret!).length - 1).toBe(1);
  }, 60_000);

  it('names the placeholder when no tenant is known, and how to find yours', async () => {
    const pty = listen();
    await pty.waitFor(/Listening on http:\/\/127\.0\.0\.1:\d+\//);
    expect(pty.text().replace(/ \\\n +/g, ' ')).toMatch(/ {2}svc tenant update TENANT_ID --webhook-primary-uri http:\/\/127\.0\.0\.1:\d+\/ --webhook-secret-env SVC_WEBHOOK_SECRET\n/);
    expect(pty.text()).toContain('(svc tenant list shows your tenant ids.)');
    pty.write('\u0003');
    expect(await pty.exited).toBe(130);
  }, 60_000);

  it('in CI (nobody to see a secret) refuses as a script is refused: exit 2 with the fix', async () => {
    const pty = listen({ CI: 'true' });
    expect(await pty.exited).toBe(2);
    expect(pty.text()).toMatch(/error: no webhook secret: the listener would accept forged events, so it does not start/);
    expect(pty.text()).toContain('set SVC_WEBHOOK_SECRET (or name another variable with --secret-env VAR)');
    expect(pty.text()).not.toContain('export SVC_WEBHOOK_SECRET');
  }, 60_000);

  it('a secret that is given is used, and nothing is made', async () => {
    const pty = listen({ SVC_WEBHOOK_SECRET: 'given-secret-value' });
    await pty.waitFor(/Listening on http:\/\/127\.0\.0\.1:\d+\/ \(signatures checked/);
    expect(pty.text()).not.toContain('export SVC_WEBHOOK_SECRET');
    pty.write('\u0003');
    expect(await pty.exited).toBe(130);
    // The event store holds events only, never the secret.
    for (const file of filesUnder(dir)) expect(readFileSync(file, 'utf8')).not.toContain('given-secret-value');
  }, 60_000);
});
