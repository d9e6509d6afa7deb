import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendOptOutChanges, EVERY_NUMBER, optOutsPath, readOptOutLog, sealChange, type ConsentChange } from '../../src/optouts/log.js';
import { OptOutList } from '../../src/optouts/list.js';

const work = mkdtempSync(join(tmpdir(), 'svc-optouts-log-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function change(op: 'out' | 'in', number: string, from: string = EVERY_NUMBER): ConsentChange {
  return { op, number, from, at: '2026-11-26T10:00:00.000Z', cause: 'hand', by: 'tester@host' };
}

describe('the opt-out log', () => {
  it('keeps each change on one sealed line and reads it back', () => {
    const dir = join(work, 'roundtrip');
    appendOptOutChanges(dir, [change('out', '+14155551001'), { ...change('out', '+14155551002', '+15555550100'), cause: 'keyword', keyword: 'STOP', event: 'dlv-1', tenant: 't' }]);
    const { changes, damaged } = readOptOutLog(dir);
    expect(damaged).toEqual([]);
    expect(changes).toHaveLength(2);
    expect(changes[1]).toMatchObject({ keyword: 'STOP', event: 'dlv-1', tenant: 't', from: '+15555550100' });
  });

  it('skips a line whose checksum fails, and a torn last line never swallows the next change', () => {
    const dir = join(work, 'torn');
    appendOptOutChanges(dir, [change('out', '+14155551001')]);
    // An edited line, then a write cut short (no line feed).
    const edited = sealChange(change('out', '+14155551002')).replace('+14155551002', '+14155551003');
    appendFileSync(optOutsPath(dir), `${edited}${sealChange(change('out', '+14155551004')).slice(0, 30)}`);
    appendOptOutChanges(dir, [change('out', '+14155551005')]);
    const { changes, damaged } = readOptOutLog(dir);
    expect(changes.map((c) => c.number)).toEqual(['+14155551001', '+14155551005']);
    expect(damaged).toEqual([2, 3]);
  });

  it('is created owner-only', () => {
    const dir = join(work, 'mode');
    appendOptOutChanges(dir, [change('out', '+14155551001')]);
    expect(statSync(optOutsPath(dir)).mode & 0o777).toBe(0o600);
  });

  it('reads an absent log as empty', () => {
    expect(readOptOutLog(join(work, 'nothing'))).toEqual({ changes: [], damaged: [] });
  });
});

describe('the list the log adds up to', () => {
  it('answers per sending number, with every number\'s opt-outs in each', () => {
    const list = new OptOutList([change('out', '+1A', '+1S'), change('out', '+1B'), change('out', '+1C', '+1T')]);
    const s = list.lookupFor('+1S');
    expect(['+1A', '+1B', '+1C'].map((n) => s.has(n))).toEqual([true, true, false]);
    expect(list.lookupFor('+1U').has('+1B')).toBe(true);
    expect(list.lookupFor('+1U').has('+1A')).toBe(false);
  });

  it('lifts a number\'s own and every number\'s opt-out on START to it, only that number\'s on nothing else', () => {
    const list = new OptOutList([change('out', '+1A', '+1S'), change('out', '+1A'), change('out', '+1A', '+1T')]);
    expect(list.changes(change('in', '+1A', '+1S'))).toBe(true);
    list.apply(change('in', '+1A', '+1S'));
    expect(list.lookupFor('+1S').has('+1A')).toBe(false);
    expect(list.lookupFor('+1T').has('+1A')).toBe(true);
    list.apply(change('in', '+1A'));
    expect(list.lookupFor('+1T').has('+1A')).toBe(false);
    expect(list.size).toBe(0);
  });

  it('keeps the first of repeated opt-outs and says a repeat changes nothing', () => {
    const first = { ...change('out', '+1A', '+1S'), at: '2026-01-01T00:00:00.000Z' };
    const list = new OptOutList([first]);
    expect(list.changes(change('out', '+1A', '+1S'))).toBe(false);
    list.apply(change('out', '+1A', '+1S'));
    expect(list.entryFor('+1S', '+1A')?.at).toBe(first.at);
    expect(list.changes(change('in', '+1B', '+1S'))).toBe(false);
  });
});

describe('two writers at once, one killed with SIGKILL', () => {
  let script = '';
  beforeAll(async () => {
    script = join(work, 'writer.cjs');
    await build({ entryPoints: [join(__dirname, 'writer-child.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: script, logLevel: 'warning' });
  });

  function writer(dir: string, prefix: string, count: number, onAck: (index: number) => void): { child: ChildProcess; done: Promise<void> } {
    const child = spawn(process.execPath, [script, dir, prefix, String(count)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let pending = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) onAck(Number(line));
    });
    return { child, done: new Promise((resolve) => child.on('close', () => resolve())) };
  }

  it('loses nothing acknowledged and the file still reads', async () => {
    const dir = join(work, 'concurrent');
    const COUNT = 400;
    const acked = { a: new Set<number>(), b: new Set<number>() };
    const a = writer(dir, '+1415555', COUNT, (i) => acked.a.add(i));
    // Killed once it has acknowledged a quarter: wherever it is then (inside a write, a sync, between).
    const b = writer(dir, '+1212555', COUNT, (i) => {
      acked.b.add(i);
      if (acked.b.size === COUNT / 4) b.child.kill('SIGKILL');
    });
    await Promise.all([a.done, b.done]);
    expect(a.child.exitCode).toBe(0);
    expect(b.child.signalCode).toBe('SIGKILL');
    expect(acked.a.size).toBe(COUNT);
    expect(acked.b.size).toBeGreaterThanOrEqual(COUNT / 4);
    expect(acked.b.size).toBeLessThan(COUNT);

    const { changes, damaged } = readOptOutLog(dir);
    // At most the one write the kill cut short is unreadable; every other line is whole (the two
    // writers' lines never interleave within a line).
    expect(damaged.length).toBeLessThanOrEqual(1);
    const lines = readFileSync(optOutsPath(dir), 'utf8').split('\n').filter((line) => line !== '');
    expect(changes.length).toBe(lines.length - damaged.length);
    const numbers = new Set(changes.map((c) => c.number));
    for (const i of acked.a) expect(numbers.has(`+1415555${String(i).padStart(4, '0')}`)).toBe(true);
    for (const i of acked.b) expect(numbers.has(`+1212555${String(i).padStart(4, '0')}`)).toBe(true);
    // And the log still takes changes after the kill.
    appendOptOutChanges(dir, [change('out', '+19995550000')]);
    expect(readOptOutLog(dir).changes.at(-1)?.number).toBe('+19995550000');
  }, 120_000);
});
