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
  options: {
    env?: Record<string, string | undefined>;
    stdin?: string;
    timeoutMs?: number;
    /**
     * RLIMIT_FSIZE in 512-byte blocks (`ulimit -f`): a write past it fails with EFBIG, as on a full
     * disk (Node ignores SIGXFSZ, so the process lives on to report it).
     */
    fileSizeBlocks?: number;
    /** Run as this user (from a test running as root: file modes then bind as they do for users). */
    user?: { uid: number; gid: number };
  } = {},
): Promise<SpawnResult> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries({ PATH: process.env['PATH'], HOME: process.env['HOME'], SVC_DATA_DIR: testDataDir(), ...options.env })) {
      if (v !== undefined) env[k] = v;
    }
    const [command, argv] =
      options.fileSizeBlocks === undefined
        ? [process.execPath, [BIN, ...args]]
        : ['/bin/sh', ['-c', `ulimit -f ${options.fileSizeBlocks} && exec "$0" "$@"`, process.execPath, BIN, ...args]];
    const child = spawn(command, argv, { env, stdio: ['pipe', 'pipe', 'pipe'], ...(options.user ?? {}) });
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
