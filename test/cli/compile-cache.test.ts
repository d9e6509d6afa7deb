import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/spawn.js';

// bin/compile-cache.js: dist/'s compile cache on Node 20 (Node 22+ has its own). The module is
// exercised directly, whatever Node runs the tests, in a child process that installs it and runs
// main(['--help']) from dist/ (built by `npm test`'s pretest).

const root = fileURLToPath(new URL('../..', import.meta.url));
const chunksDir = join(root, 'dist', 'chunks');
const { cacheDirFor } = createRequire(import.meta.url)(join(root, 'bin', 'compile-cache.js')) as {
  cacheDirFor: (env: Record<string, string | undefined>) => string | undefined;
};

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-compile-cache-'));
  dirs.push(dir);
  return dir;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs node with these arguments and this environment (PATH kept), to its end. */
function runNode(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env['PATH'], ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function runHelp(cacheDir: string): Promise<Run> {
  const script = `
    const { installCompileCache } = require(${JSON.stringify(join(root, 'bin', 'compile-cache.js'))});
    installCompileCache(${JSON.stringify(chunksDir)}, ${JSON.stringify(cacheDir)});
    require(${JSON.stringify(join(root, 'dist', 'cli.js'))})
      .main(['--help'], { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: {} })
      .then((code) => { process.exitCode = code; });`;
  return runNode(['-e', script]);
}

/** The cache's files with their inode: a file rewritten (to a temporary name, then renamed) gets a new one. */
function snapshot(cacheDir: string): Map<string, number> {
  return new Map(readdirSync(cacheDir).map((name) => [name, statSync(join(cacheDir, name)).ino]));
}

describe('the compile cache of dist/ (bin/compile-cache.js)', () => {
  it('writes a cache for each hashed chunk a run compiled, and a second run uses it without rewriting it', async () => {
    const cacheDir = join(tempDir(), 'v8');
    const first = await runHelp(cacheDir);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('Usage: svc');
    const written = snapshot(cacheDir);
    const names = [...written.keys()];
    expect(names.some((name) => /^boot-[A-Za-z0-9_-]{8}\.js\.v8$/.test(name))).toBe(true);
    expect(names.some((name) => /^core-[A-Za-z0-9_-]{8}\.js\.v8$/.test(name))).toBe(true);
    // cli.js carries no content hash in its name, and import-package.js must stay Node's to compile.
    expect(names.filter((name) => !/-[A-Za-z0-9_-]{8}\.js\.v8$/.test(name))).toEqual([]);
    for (const name of names) expect(existsSync(join(chunksDir, name.replace(/\.v8$/, '')))).toBe(true);

    const second = await runHelp(cacheDir);
    expect(second).toEqual(first);
    // V8 accepted every file: none was written again.
    expect(snapshot(cacheDir)).toEqual(written);
  }, 120_000);

  it('a damaged cache file is rejected by V8, the chunk compiled from its source, and the file replaced', async () => {
    const cacheDir = join(tempDir(), 'v8');
    const first = await runHelp(cacheDir);
    expect(first.code, first.stderr).toBe(0);
    const core = readdirSync(cacheDir).find((name) => name.startsWith('core-'))!;
    const good = readFileSync(join(cacheDir, core));
    writeFileSync(join(cacheDir, core), Buffer.from('not a code cache at all'));
    const truncated = readdirSync(cacheDir).find((name) => name.startsWith('boot-'))!;
    writeFileSync(join(cacheDir, truncated), readFileSync(join(cacheDir, truncated)).subarray(0, 64));

    const again = await runHelp(cacheDir);
    expect(again).toEqual(first);
    expect(readFileSync(join(cacheDir, core)).length).toBeGreaterThan(64);
    expect(readFileSync(join(cacheDir, core)).subarray(0, 16)).toEqual(good.subarray(0, 16));
    expect(readFileSync(join(cacheDir, truncated)).length).toBeGreaterThan(64);
    expect(readdirSync(cacheDir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  }, 120_000);

  it('when it writes, it removes the caches of chunks the build no longer has (an upgrade leaves none behind)', async () => {
    const cacheDir = join(tempDir(), 'v8');
    const first = await runHelp(cacheDir);
    expect(first.code, first.stderr).toBe(0);
    const core = readdirSync(cacheDir).find((name) => name.startsWith('core-'))!;
    writeFileSync(join(cacheDir, 'core-AAAAAAAA.js.v8'), readFileSync(join(cacheDir, core)));
    writeFileSync(join(cacheDir, 'notes.txt'), 'not ours to remove');
    rmSync(join(cacheDir, core));
    const again = await runHelp(cacheDir);
    expect(again).toEqual(first);
    expect(existsSync(join(cacheDir, core))).toBe(true);
    expect(existsSync(join(cacheDir, 'core-AAAAAAAA.js.v8'))).toBe(false);
    expect(existsSync(join(cacheDir, 'notes.txt'))).toBe(true);
  }, 120_000);

  it('a cache that cannot be written costs nothing but the speed: same output, nothing on stderr', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a-file'), 'in the way');
    const run = await runHelp(join(dir, 'a-file', 'v8'));
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: svc');
    expect(run.stderr).toBe('');
  }, 120_000);

  it('lives under the user cache directory, one folder per Node release and architecture, and can be turned off', () => {
    const folder = `v8-${process.version}-${process.arch}`;
    expect(cacheDirFor({ HOME: '/home/ada' })).toBe(join('/home/ada', '.cache', 'svc', folder));
    expect(cacheDirFor({ HOME: '/home/ada', XDG_CACHE_HOME: '/var/cache/ada' })).toBe(join('/var/cache/ada', 'svc', folder));
    expect(cacheDirFor({ HOME: '/home/ada', SVC_COMPILE_CACHE: '/tmp/c' })).toBe(join('/tmp/c', folder));
    expect(cacheDirFor({ HOME: '/home/ada', SVC_COMPILE_CACHE: '0' })).toBeUndefined();
    expect(cacheDirFor({ HOME: '/home/ada', NODE_DISABLE_COMPILE_CACHE: '1' })).toBeUndefined();
    expect(cacheDirFor({})).toBeUndefined();
  });

  it('bin/svc.js uses it on Node 20 only; Node 22 and later cache with module.enableCompileCache', async () => {
    const base = tempDir();
    const run = await runNode([BIN, '--version'], { HOME: base, SVC_COMPILE_CACHE: base, NODE_COMPILE_CACHE: join(base, 'node') });
    expect(run.code, run.stderr).toBe(0);
    const ours = join(base, `v8-${process.version}-${process.arch}`);
    if (Number(process.versions.node.split('.')[0]) >= 22) {
      expect(existsSync(ours)).toBe(false);
      expect(existsSync(join(base, 'node'))).toBe(true);
    } else {
      expect(readdirSync(ours).some((name) => name.startsWith('boot-'))).toBe(true);
      expect(existsSync(join(base, 'node'))).toBe(false);
    }
  }, 120_000);
});
