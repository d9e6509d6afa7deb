import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
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
    const node = options.user === undefined ? process.execPath : nodeOthersMayRun();
    const [command, argv] =
      options.fileSizeBlocks === undefined
        ? [node, [BIN, ...args]]
        : ['/bin/sh', ['-c', `ulimit -f ${options.fileSizeBlocks} && exec "$0" "$@"`, node, BIN, ...args]];
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

/** True when a user who is neither owner nor group may reach `path` (x on every folder above it) and `bits` on it. */
function othersMay(path: string, bits: number): boolean {
  const real = realpathSync(path);
  if ((statSync(real).mode & bits) !== bits) return false;
  for (let folder = dirname(real); ; folder = dirname(folder)) {
    if ((statSync(folder).mode & 0o001) === 0) return false;
    if (folder === dirname(folder)) return true;
  }
}

let othersNode: string | undefined;
/**
 * A Node binary another user may execute. Usually this process's own; but a Node installed under
 * root's 0700 home (CI keeps Node 22/24/26 in ~/.cache) is out of reach of the user a test runs the
 * CLI as, so it is copied once into a world-readable temporary folder.
 */
function nodeOthersMayRun(): string {
  if (!othersMay(BIN, 0o004)) {
    throw new Error(`${BIN} is not readable by other users: a test that runs the CLI as another user needs the clone readable by all`);
  }
  if (othersMay(process.execPath, 0o001)) return process.execPath;
  if (othersNode === undefined) {
    const folder = mkdtempSync(join(tmpdir(), 'svc-test-node-'));
    chmodSync(folder, 0o755);
    const copy = join(folder, 'node');
    copyFileSync(process.execPath, copy);
    chmodSync(copy, 0o755);
    process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
    othersNode = copy;
  }
  return othersNode;
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
