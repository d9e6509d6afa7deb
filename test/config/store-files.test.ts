import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/spawn.js';
import { runCli } from '../helpers/cli.js';
import { CliError } from '../../src/errors.js';
import { lockFileSync } from '../../src/domain/files/lock.js';
import { openProfileStore } from '../../src/config/store-write.js';

// The profile store as a file that several processes, a full disk and other users meet.

let dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});

function configDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-store-'));
  dirs.push(dir);
  return dir;
}

function login(dir: string, profile: string, extra: Parameters<typeof spawnCli>[1] = {}) {
  return spawnCli(['auth', 'login', '--profile', profile, '--sandbox', '--no-verify'], { ...extra, env: { SVC_CONFIG_DIR: dir, ...extra.env } });
}

function profilesIn(dir: string): string[] {
  return Object.keys((JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { profiles: object }).profiles).sort();
}

describe('the profile store on disk', () => {
  it('keeps all eight profiles of eight logins run at once', async () => {
    const dir = configDir();
    const names = Array.from({ length: 8 }, (_, i) => `p${i + 1}`);
    const results = await Promise.all(names.map((name) => login(dir, name)));
    for (const result of results) expect(result.code, result.stderr).toBe(0);
    expect(profilesIn(dir)).toEqual(names);
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['config.json']);
  });

  it('on a full disk (a file size limit), fails naming the store and keeps every profile stored before', async () => {
    const dir = configDir();
    for (const name of ['alpha', 'beta', 'gamma', 'delta', 'epsilon']) expect((await login(dir, name)).code).toBe(0);
    const before = readFileSync(join(dir, 'config.json'), 'utf8');
    expect(before.length).toBeGreaterThan(512);
    // One block of 512 bytes: the new store cannot be written past its first 512.
    const result = await login(dir, 'zeta', { fileSizeBlocks: 1 });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Cannot write the profile store ${join(dir, 'config.json')}: the file would grow past the size this process may write (EFBIG`);
    expect(result.stderr).toContain('the profiles stored before are kept');
    expect(result.stderr).not.toContain('Unexpected error');
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(before);
    expect(readdirSync(dir)).toEqual(['config.json']);
  });

  it('is not held up by the lock of a login that was killed', async () => {
    const dir = configDir();
    const child = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => child.on('exit', resolve));
    writeFileSync(join(dir, 'config.json.lock'), JSON.stringify({ pid: child.pid, host: hostname(), token: 'dead01', since: '2026-01-01T00:00:00Z', command: 'svc (profile store)' }));
    const result = await login(dir, 'after');
    expect(result.code, result.stderr).toBe(0);
    expect(profilesIn(dir)).toEqual(['after']);
    expect(existsSync(join(dir, 'config.json.lock'))).toBe(false);
  });

  it('names the holder when a live svc keeps the lock past the wait', async () => {
    const dir = configDir();
    const lock = lockFileSync(join(dir, 'config.json'), { command: 'svc auth login' });
    try {
      const store = await openProfileStore(dir, { lockWaitMs: 0 });
      const error = await store.setProfile('blocked', { baseUrl: 'https://api.example.com', username: 'u', password: 'p' }).then(() => undefined, (caught: unknown) => caught);
      expect(error).toBeInstanceOf(CliError);
      expect((error as CliError).exitCode).toBe(1);
      expect((error as CliError).message).toBe(`The profile store ${join(dir, 'config.json')} is being changed by another svc: process ${process.pid} (svc auth login) holds it`);
      expect((error as CliError).hints.join(' ')).toContain(`remove ${join(dir, 'config.json.lock')}`);
      expect(existsSync(join(dir, 'config.json'))).toBe(false);
    } finally {
      lock.release();
    }
  });

  it('makes a store holding a password that others can read private, with a warning naming it', async () => {
    const dir = configDir();
    expect((await login(dir, 'alpha')).code).toBe(0);
    const file = join(dir, 'config.json');
    chmodSync(file, 0o644);
    const status = await runCli(['auth', 'status'], { env: { SVC_CONFIG_DIR: dir } });
    expect(status.code).toBe(0);
    expect(status.stderr).toContain(`the profile store ${file} holds a password and was readable by other users (mode 0644); it is now 0600`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const again = await runCli(['auth', 'status'], { env: { SVC_CONFIG_DIR: dir } });
    expect(again.stderr).not.toContain('readable by other users');
  });

  it('leaves a readable store without passwords (keychain profiles only) as it is', async () => {
    const dir = configDir();
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ activeProfile: 'k', profiles: { k: { baseUrl: 'https://api.example.com', username: 'k@example.com', passwordIn: 'keychain' } } }));
    chmodSync(file, 0o644);
    const result = await runCli(['profile', 'list'], { env: { SVC_CONFIG_DIR: dir } });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(statSync(file).mode & 0o777).toBe(0o644);
  });

  it('refuses a store that others can write, for reading and for changing it', async () => {
    const dir = configDir();
    expect((await login(dir, 'alpha')).code).toBe(0);
    const file = join(dir, 'config.json');
    const before = readFileSync(file, 'utf8');
    chmodSync(file, 0o666);
    for (const argv of [['auth', 'status'], ['profile', 'use', 'alpha'], ['auth', 'login', '--profile', 'beta', '--sandbox', '--no-verify']]) {
      const result = await runCli(argv, { env: { SVC_CONFIG_DIR: dir } });
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr).toContain(`The profile store ${file} can be changed by other users (mode 0666): it is not used`);
      expect(result.stderr).toContain(`chmod 600 ${file}`);
    }
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(statSync(file).mode & 0o777).toBe(0o666);
  });

  it('keeps what earlier versions wrote: unknown keys and the tab-indented layout', async () => {
    const dir = configDir();
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ __internal__: { migrations: { version: '1.0.0' } }, profiles: { old: { baseUrl: 'https://api.example.com', username: 'o@example.com', password: 'pw' } } }, undefined, '\t'), { mode: 0o600 });
    const result = await runCli(['auth', 'login', '--profile', 'new', '--sandbox', '--no-verify'], { env: { SVC_CONFIG_DIR: dir } });
    expect(result.code, result.stderr).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('\n\t"profiles": {\n\t\t"old": {');
    expect(JSON.parse(text)).toMatchObject({ __internal__: { migrations: { version: '1.0.0' } }, activeProfile: 'new' });
    expect(profilesIn(dir)).toEqual(['new', 'old']);
  });
});
