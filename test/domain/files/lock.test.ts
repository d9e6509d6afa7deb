import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holderState, lockFileSync, lockFileWaiting, LockHeldError, type LockHolder } from '../../../src/domain/files/lock.js';

const LOCK_SOURCE = fileURLToPath(new URL('../../../src/domain/files/lock.ts', import.meta.url));

let dir: string;
let bundle: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-lock-'));
  // Child processes take the lock through the same module, bundled to plain JavaScript.
  bundle = join(dir, 'lock.mjs');
  buildSync({ entryPoints: [LOCK_SOURCE], bundle: true, platform: 'node', format: 'esm', outfile: bundle, logLevel: 'silent' });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A process that ran and ended: its pid is free (and collected), so a lock it held is stale. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

function holderRecord(overrides: Partial<LockHolder>): string {
  return JSON.stringify({ pid: process.pid, host: hostname(), token: 'ab12', since: '2026-01-01T00:00:00.000Z', ...overrides });
}

/** Runs `script` (ESM, with `lock` imported from the bundle) in a child; resolves with its lines once it exits. */
function child(script: string, onLine?: (line: string, kill: () => void) => void): Promise<{ lines: string[]; signal: NodeJS.Signals | null }> {
  const source = `import * as lock from ${JSON.stringify(bundle)};\n${script}`;
  const proc = spawn(process.execPath, ['--input-type=module', '-e', source], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: string[] = [];
  let rest = '';
  proc.stdout.on('data', (chunk: Buffer) => {
    rest += chunk.toString();
    const parts = rest.split('\n');
    rest = parts.pop()!;
    for (const line of parts) {
      lines.push(line);
      onLine?.(line, () => proc.kill('SIGKILL'));
    }
  });
  return new Promise((resolve) => proc.on('close', (_code, signal) => resolve({ lines, signal })));
}

describe('file locks', () => {
  it('refuses a second taker, naming the holder, until the first releases', () => {
    const file = join(dir, 'journal.jsonl');
    const first = lockFileSync(file, { command: 'svc send' });
    let refused: unknown;
    try {
      lockFileSync(file);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(LockHeldError);
    const error = refused as LockHeldError;
    expect(error.holder?.pid).toBe(process.pid);
    expect(error.holder?.command).toBe('svc send');
    expect(error.lockPath).toBe(`${realpathSync(dir)}/journal.jsonl.lock`);
    first.release();
    first.release();
    expect(existsSync(`${file}.lock`)).toBe(false);
    lockFileSync(file).release();
    // Nothing is left beside the file: no candidate records, no breaking locks.
    expect(readdirSync(dir).filter((name) => name.startsWith('journal.jsonl'))).toEqual([]);
  });

  it('gives two names of one file (relative, absolute, a symbolic link) one lock', () => {
    const file = join(dir, 'real.jsonl');
    writeFileSync(file, '');
    symlinkSync(file, join(dir, 'link.jsonl'));
    const lock = lockFileSync(join(dir, 'link.jsonl'));
    expect(lock.lockPath).toBe(`${realpathSync(file)}.lock`);
    expect(() => lockFileSync(file)).toThrow(LockHeldError);
    expect(() => lockFileSync(join(dir, '.', 'real.jsonl'))).toThrow(LockHeldError);
    lock.release();
    rmSync(file);
    rmSync(join(dir, 'link.jsonl'));
  });

  it('takes over from a holder whose process has ended, whose pid was reused, or from before a reboot', async () => {
    const file = join(dir, 'state.json');
    const states: Array<[Partial<LockHolder>, string]> = [
      [{ pid: await deadPid() }, 'ended'],
      [{ start: '1' }, 'pid reused (another start time)'],
      [{ boot: 'another-boot' }, 'machine rebooted'],
    ];
    for (const [holder, why] of states) {
      writeFileSync(`${file}.lock`, holderRecord(holder));
      expect(holderState(JSON.parse(readFileSync(`${file}.lock`, 'utf8')) as LockHolder), why).toBe('dead');
      const lock = lockFileSync(file);
      expect(JSON.parse(readFileSync(`${file}.lock`, 'utf8')).pid, why).toBe(process.pid);
      lock.release();
    }
  });

  it('takes a holder on another host as alive, and a lock file it cannot read as held', () => {
    const file = join(dir, 'remote.json');
    writeFileSync(`${file}.lock`, holderRecord({ host: 'elsewhere.example', pid: 1 }));
    expect(() => lockFileSync(file)).toThrow(expect.objectContaining({ remote: true, holder: expect.objectContaining({ host: 'elsewhere.example' }) }));
    writeFileSync(`${file}.lock`, 'not a lock record');
    expect(() => lockFileSync(file)).toThrow(expect.objectContaining({ holder: undefined }));
    rmSync(`${file}.lock`);
  });

  it('waits for a live holder to let go when asked to wait', async () => {
    const file = join(dir, 'store.json');
    const first = lockFileSync(file);
    const waiting = lockFileWaiting(file, { waitMs: 60_000 });
    first.release();
    (await waiting).release();
    const again = lockFileSync(file);
    await expect(lockFileWaiting(file, { waitMs: 0 })).rejects.toBeInstanceOf(LockHeldError);
    again.release();
  });

  it('a holder killed with SIGKILL leaves no stuck lock', async () => {
    const file = join(dir, 'killed.json');
    const run = await child(`lock.lockFileSync(${JSON.stringify(file)}, { command: 'holder' }); console.log('locked'); setInterval(() => {}, 1000);`, (line, kill) => {
      if (line === 'locked') kill();
    });
    expect(run.lines).toEqual(['locked']);
    expect(run.signal).toBe('SIGKILL');
    expect(existsSync(`${file}.lock`)).toBe(true);
    lockFileSync(file).release();
  });

  it('of many processes breaking one stale lock at once, exactly one holds it at a time', async () => {
    const file = join(dir, 'race.json');
    const log = join(dir, 'race.log');
    writeFileSync(log, '');
    writeFileSync(`${file}.lock`, holderRecord({ pid: await deadPid(), token: 'dead00' }));
    // Each child tries until it gets the lock, notes entering and leaving in the log, and releases.
    const script = `
      import { appendFileSync } from 'node:fs';
      const l = await lock.lockFileWaiting(${JSON.stringify(file)}, { waitMs: 120000 });
      appendFileSync(${JSON.stringify(log)}, 'in ' + process.pid + '\\n');
      for (let i = 0; i < 2000; i++) JSON.stringify({ i });
      appendFileSync(${JSON.stringify(log)}, 'out ' + process.pid + '\\n');
      l.release();`;
    await Promise.all(Array.from({ length: 8 }, () => child(script)));
    const events = readFileSync(log, 'utf8').trim().split('\n');
    expect(events).toHaveLength(16);
    // Entries and exits alternate, each exit by the process that entered last.
    for (let i = 0; i < events.length; i += 2) {
      expect(events[i]).toMatch(/^in /);
      expect(events[i + 1]).toBe(events[i]!.replace('in', 'out'));
    }
    expect(readdirSync(dir).filter((name) => name.startsWith('race.json'))).toEqual([]);
  });
});
