import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/spawn.js';
import { testDataDir } from '../helpers/spawn.js';
import { ExchangeLogFiles } from '../sandbox/openapi-check.js';

// Every termination signal is a Ctrl-C (exit 128 + the signal number): the long-running commands
// stop cleanly on SIGINT, SIGTERM and SIGHUP and exit 130, 143 and 129. The signal is sent once
// the command has said it is running, never after a sleep.

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function runUntil(args: string[], ready: RegExp, signal: NodeJS.Signals, env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', SVC_DATA_DIR: testDataDir(), ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  let sent = false;
  const deadline = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const onText = (chunk: Buffer): void => {
    stderr += chunk.toString('utf8');
    if (!sent && ready.test(stderr)) {
      sent = true;
      child.kill(signal);
    }
  };
  child.stderr.on('data', onText);
  child.stdout.on('data', onText);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(deadline);
      resolve({ code, stderr });
    });
  });
}

describe.each([
  ['SIGINT', 130],
  ['SIGTERM', 143],
  ['SIGHUP', 129],
] as const)('%s', (signal, code) => {
  it(`stops svc sandbox start, which saves its state and exits ${code}`, async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-signals-'));
    const state = join(dir, 'state.json');
    const exchanges = new ExchangeLogFiles();
    const result = await runUntil(['sandbox', 'start', '--port', '0', '--state', state], /Ctrl-C to stop/, signal, { SVC_CONFIG_DIR: dir, ...exchanges.env() });
    exchanges.check();
    exchanges.dispose();
    expect(result.code, result.stderr).toBe(code);
    expect(result.stderr).toContain('state saved');
    expect(existsSync(state)).toBe(true);
  });

  it(`stops svc webhook listen with exit ${code}`, async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-signals-'));
    const result = await runUntil(['webhook', 'listen', '--port', '0'], /127\.0\.0\.1:\d+/, signal, {
      SVC_CONFIG_DIR: dir,
      SVC_WEBHOOK_SECRET: 'a-test-secret',
    });
    expect(result.code, result.stderr).toBe(code);
  });
});
