import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { basicAuth, startCommand, type RunningCommand } from '../../helpers/live.js';
import { BIN, spawnCli } from '../../helpers/spawn.js';

// One sandbox per --state file: a second one is refused naming the first (it would erase what
// the first saved), and one killed with SIGKILL leaves no lock that keeps the next one out.

const AUTH = basicAuth('sandbox@example.com', 'sandbox');
const running: RunningCommand[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const command of running.splice(0)) await command.interrupt();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-state-lock-'));
  dirs.push(dir);
  return dir;
}

async function startInProcess(state: string): Promise<string> {
  const command = startCommand(['sandbox', 'start', '--port', '0', '--state', state], {});
  running.push(command);
  const banner = await command.stderr.waitFor(/Sandbox running at (http:\/\/127\.0\.0\.1:\d+)/, command.done);
  if (banner === null) throw new Error(`the sandbox did not start: exit ${await command.done}\n${command.stderr.text}`);
  return banner[1]!;
}

async function createTenant(url: string, domain: string): Promise<void> {
  const answer = await fetch(`${url}/api/v1/tenants`, { method: 'POST', headers: { authorization: AUTH, 'content-type': 'application/json' }, body: JSON.stringify({ domain }) });
  expect(answer.status).toBe(201);
}

async function domains(url: string): Promise<string[]> {
  const answer = await fetch(`${url}/api/v1/tenants`, { headers: { authorization: AUTH } });
  const body = (await answer.json()) as unknown;
  const list = (Array.isArray(body) ? body : ((body as { items?: unknown[] }).items ?? [])) as Array<{ domain?: string }>;
  return list.map((tenant) => tenant.domain ?? '').sort();
}

describe('svc sandbox start --state: one sandbox per file', () => {
  it('refuses a second sandbox on the same file, naming the first; the file keeps the first one\'s data', async () => {
    const dir = tempDir();
    const state = join(dir, 'state.json');
    const url = await startInProcess(state);
    await createTenant(url, 'first.example.com');
    const before = readFileSync(state, 'utf8');
    const second = await spawnCli(['sandbox', 'start', '--port', '0', '--state', state], { timeoutMs: 60_000 });
    expect(second.code, second.stderr).toBe(1);
    expect(second.stderr).toContain(`--state ${state} is in use by another sandbox: process ${process.pid} (svc sandbox start) since`);
    expect(second.stderr).toContain('Stop that one first, or give this one another --state file');
    expect(readFileSync(state, 'utf8')).toBe(before);
    expect(await domains(url)).toEqual(['first.example.com']);
    // Stopped, it lets go: the next one starts on the same file with the data.
    expect(await running.pop()!.interrupt()).toBe(130);
    expect(existsSync(`${state}.lock`)).toBe(false);
    const again = await startInProcess(state);
    expect(await domains(again)).toEqual(['first.example.com']);
  });

  it('a sandbox killed with SIGKILL leaves no lock that keeps the next one out', async () => {
    const dir = tempDir();
    const state = join(dir, 'state.json');
    const child = spawn(process.execPath, [BIN, 'sandbox', 'start', '--port', '0', '--state', state], {
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', SVC_CONFIG_DIR: dir },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const deadline = setTimeout(() => child.kill('SIGKILL'), 60_000);
    let stderr = '';
    let url = '';
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, signal) => resolve(signal)));
    const started = new Promise<void>((resolve) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
        const match = /Sandbox running at (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
        if (match !== null && url === '') {
          url = match[1]!;
          resolve();
        }
      });
    });
    await Promise.race([started, exited]);
    expect(url, stderr).not.toBe('');
    await createTenant(url, 'killed.example.com');
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    clearTimeout(deadline);
    expect(existsSync(`${state}.lock`)).toBe(true);
    const next = await startInProcess(state);
    // The answered write survived the kill (the change log), and the stale lock did not matter.
    expect(await domains(next)).toEqual(['killed.example.com']);
  });
});
