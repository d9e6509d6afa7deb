import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Runs the built CLI (bin/svc.js) as a child process, as a user or a script would.

export const BIN = fileURLToPath(new URL('../../bin/svc.js', import.meta.url));

export interface SpawnResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function spawnCli(
  args: string[],
  options: { env?: Record<string, string | undefined>; stdin?: string; timeoutMs?: number } = {},
): Promise<SpawnResult> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries({ PATH: process.env['PATH'], HOME: process.env['HOME'], SVC_DATA_DIR: testDataDir(), ...options.env })) {
      if (v !== undefined) env[k] = v;
    }
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.end(options.stdin ?? '');
  });
}

let dataDir: string | undefined;
/** Sends record what they sent in the event store: never in the developer's own data directory. */
export function testDataDir(): string {
  if (dataDir === undefined) {
    const made = mkdtempSync(join(tmpdir(), 'svc-test-data-'));
    process.once('exit', () => rmSync(made, { recursive: true, force: true }));
    dataDir = made;
  }
  return dataDir;
}
