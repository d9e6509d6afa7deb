import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

// bin/svc.js in a copy of the package that was never built: one line saying what to do, exit 1.

const BIN_DIR = fileURLToPath(new URL('../../bin/', import.meta.url));
let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('bin/svc.js without dist/', () => {
  it('says the package is not built and how to build it, without a stack trace', () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-nodist-'));
    mkdirSync(join(dir, 'bin'));
    for (const name of ['svc.js', 'package.json', 'compile-cache.js']) copyFileSync(join(BIN_DIR, name), join(dir, 'bin', name));
    const run = spawnSync(process.execPath, [join(dir, 'bin', 'svc.js'), 'health'], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', HOME: dir }, timeout: 60_000 });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(`error: svc is not built: ${join(dir, 'dist')} is missing or incomplete. Run \`npm run build\` in ${dir} (or reinstall svc).\n`);
  });
});
