import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { BIN } from '../../helpers/spawn.js';
import { basicAuth } from '../../helpers/live.js';
import { ExchangeLogFiles } from '../../sandbox/openapi-check.js';

// The built CLI as a person runs it: `svc sandbox start --port 0` must say which port it got,
// serve on it, and stop cleanly on Ctrl-C (SIGINT).

const children: ChildProcessWithoutNullStreams[] = [];
// Every request and answer of these sandboxes is validated against the OpenAPI document.
const exchanges = new ExchangeLogFiles();
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});
afterAll(() => {
  const validated = exchanges.check();
  exchanges.dispose();
  expect(validated).toBeGreaterThan(0);
});

interface Spawned {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with the first match in stderr, or null when the process ended first. */
  waitForStderr(pattern: RegExp): Promise<RegExpExecArray | null>;
}

function spawnSvc(args: string[]): Spawned {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...exchanges.env() },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  const waiters: Array<() => void> = [];
  const wake = (): void => {
    for (const w of waiters.splice(0)) w();
  };
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString('utf8');
    wake();
  });
  child.stderr.on('data', (c: Buffer) => {
    err += c.toString('utf8');
    wake();
  });
  let ended = false;
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => {
      ended = true;
      wake();
      resolve({ code, signal });
    });
  });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exit,
    async waitForStderr(pattern) {
      for (;;) {
        const match = pattern.exec(err);
        if (match !== null || ended) return match;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
  };
}

describe('bin/svc.js sandbox start (end to end)', () => {
  it('prints the port it got with --port 0, serves the API there, and exits 130 after a clean stop on SIGINT', async () => {
    const svc = spawnSvc(['sandbox', 'start', '--port', '0', '--order-delay', '20']);
    const banner = await svc.waitForStderr(/Sandbox running at http:\/\/127\.0\.0\.1:(\d+) /);
    expect(banner, svc.stderr()).not.toBeNull();
    const port = Number(banner?.[1]);
    expect(port).toBeGreaterThan(0);
    await svc.waitForStderr(/Ctrl-C to stop\./);

    const auth = basicAuth('sandbox@example.com', 'sandbox');
    const created = await fetch(`http://127.0.0.1:${port}/api/v1/tenants`, {
      method: 'POST',
      headers: { Authorization: auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ domain: 'e2e.example.com' }),
    });
    expect(created.status).toBe(201);
    const refused = await fetch(`http://127.0.0.1:${port}/api/v1/tenants`, { headers: { Authorization: basicAuth('sandbox@example.com', 'wrong') } });
    expect(refused.status).toBe(401);

    svc.child.kill('SIGINT');
    const { code } = await svc.exit;
    expect(code).toBe(130);
    expect(svc.stderr()).toContain('Sandbox stopped.');
    expect(svc.stdout()).toBe('');
    await expect(fetch(`http://127.0.0.1:${port}/api/v1/health`, { headers: { Authorization: auth } })).rejects.toThrow();
  });

  it('--json: one JSON object on stdout carrying the real port', async () => {
    const svc = spawnSvc(['sandbox', 'start', '--port', '0', '--json']);
    await svc.waitForStderr(/Ctrl-C to stop\./);
    const summary = JSON.parse(svc.stdout()) as { url: string; port: number; apiUrl: string };
    expect(summary.url).toBe(`http://127.0.0.1:${summary.port}`);
    const health = await fetch(`${summary.apiUrl}/health`, { headers: { Authorization: basicAuth('sandbox@example.com', 'sandbox') } });
    expect(health.status).toBe(200);
    svc.child.kill('SIGINT');
    expect((await svc.exit).code).toBe(130);
  });
});
