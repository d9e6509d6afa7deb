import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JournalWriter, readJournal } from '../../src/send/journal.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-journal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let counter = 0;
const journalPath = () => join(dir, `journal-${++counter}.ndjson`);
const fixedClock = () => new Date('2030-01-02T03:04:05.000Z');

describe('JournalWriter', () => {
  it('appends one JSON line per request, with the time it was recorded', async () => {
    const path = journalPath();
    const journal = JournalWriter.open(path, { clock: fixedClock });
    const entry = journal.record({ to: ['+15550100001'], outcome: 'accepted', messageId: 'm-1', status: 'queued' });
    journal.record({
      to: ['+15550100002', '+15550100003'],
      outcome: 'rejected',
      error: { message: 'bad', status: 400, errorCode: 'VALIDATION_ERROR' },
      at: '2030-01-01T00:00:00.000Z',
    });
    await journal.close();
    expect(entry.at).toBe('2030-01-02T03:04:05.000Z');
    const lines = readFileSync(path, 'utf8').split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe('');
    expect(JSON.parse(lines[0]!)).toEqual({
      to: ['+15550100001'],
      outcome: 'accepted',
      messageId: 'm-1',
      status: 'queued',
      at: '2030-01-02T03:04:05.000Z',
    });
    expect(JSON.parse(lines[1]!)).toMatchObject({ outcome: 'rejected', at: '2030-01-01T00:00:00.000Z' });
  });

  it('has each line in the file as soon as record returns, before close', async () => {
    const path = journalPath();
    const journal = JournalWriter.open(path, { fsyncEvery: 0 });
    journal.record({ to: ['+15550100001'], outcome: 'unknown' });
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(1);
    journal.record({ to: ['+15550100002'], outcome: 'accepted' });
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(2);
    await journal.close();
  });

  it('creates the file readable by its owner only, appends to an existing one, refuses after close', async () => {
    const path = journalPath();
    const first = JournalWriter.open(path);
    first.record({ to: ['+15550100001'], outcome: 'accepted' });
    await first.close();
    await first.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(() => first.record({ to: ['+15550100001'], outcome: 'accepted' })).toThrow('closed');
    const second = JournalWriter.open(path, { fsyncEvery: 1 });
    second.record({ to: ['+15550100002'], outcome: 'accepted' });
    await second.close();
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(2);
  });

  it('syncs in the background every fsyncEvery lines, and on demand', async () => {
    const path = journalPath();
    const journal = JournalWriter.open(path, { fsyncEvery: 2 });
    for (let i = 0; i < 25; i++) journal.record({ to: [`+1555010${String(i).padStart(4, '0')}`], outcome: 'accepted' });
    await journal.sync();
    await journal.sync();
    journal.record({ to: ['+15550109999'], outcome: 'accepted' });
    await journal.close();
    await journal.sync();
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(26);
  });
});

describe('readJournal', () => {
  it('an absent journal means nothing was sent', async () => {
    const summary = await readJournal(join(dir, 'never-written.ndjson'));
    expect(summary).toMatchObject({ exists: false, entries: 0, rejected: 0, unknown: 0, tornLineCount: 0 });
    expect(summary.accepted.size).toBe(0);
    expect(summary.accepted.has('+15550100001')).toBe(false);
  });

  it('builds the resume set: accepted wins over any other outcome, unknown over rejected', async () => {
    const path = journalPath();
    const journal = JournalWriter.open(path);
    const A = '+15550100001'; // unknown, then accepted on a retry
    const B = '+15550100002'; // rejected only
    const C = '+15550100003'; // rejected, then unknown
    const D = '+15550100004'; // accepted, then rejected (a later run must still skip it)
    const E = '+15550100005'; // unknown only
    const F = '+15550100006'; // accepted with G in one request
    const G = '+15550100007';
    journal.record({ to: [A], outcome: 'unknown', error: { message: 'socket hang up' } });
    journal.record({ to: [B], outcome: 'rejected', error: { message: 'bad', status: 400 } });
    journal.record({ to: [C], outcome: 'rejected' });
    journal.record({ to: [D], outcome: 'accepted', messageId: 'd' });
    journal.record({ to: [E], outcome: 'unknown' });
    journal.record({ to: [A], outcome: 'accepted', messageId: 'a' });
    journal.record({ to: [C], outcome: 'unknown' });
    journal.record({ to: [D], outcome: 'rejected' });
    journal.record({ to: [F, G], outcome: 'accepted', messageId: 'fg' });
    await journal.close();

    const summary = await readJournal(path);
    expect(summary.exists).toBe(true);
    expect(summary.entries).toBe(9);
    expect([A, B, C, D, E, F, G].filter((to) => summary.accepted.has(to))).toEqual([A, D, F, G]);
    expect(summary.accepted.size).toBe(4);
    expect(summary.unknown).toBe(2); // C, E
    expect(summary.rejected).toBe(1); // B
    expect(summary.tornLineCount).toBe(0);
  });

  it('tolerates and reports a torn last line, and a writer reopening after it starts a new line', async () => {
    const path = journalPath();
    writeFileSync(
      path,
      `${JSON.stringify({ to: ['+15550100001'], outcome: 'accepted', at: 'x' })}\n` + '{"to":["+15550100002"],"outc',
    );
    const before = await readJournal(path);
    expect(before.entries).toBe(1);
    expect(before.accepted.has('+15550100001')).toBe(true);
    expect(before.accepted.has('+15550100002')).toBe(false);
    expect(before.tornLines).toEqual([{ line: 2, text: '{"to":["+15550100002"],"outc' }]);

    const journal = JournalWriter.open(path);
    journal.record({ to: ['+15550100002'], outcome: 'accepted' });
    await journal.close();
    const after = await readJournal(path);
    expect(after.entries).toBe(2);
    expect(after.accepted.has('+15550100002')).toBe(true);
    expect(after.tornLines).toEqual([{ line: 2, text: '{"to":["+15550100002"],"outc' }]);
  });

  it('counts lines that are JSON but not entries as torn, and skips blank lines', async () => {
    const path = journalPath();
    writeFileSync(path, '\n[1,2]\n{"to":"+15550100001","outcome":"accepted"}\n{"to":["+15550100001"],"outcome":"maybe"}\n\n');
    const summary = await readJournal(path);
    expect(summary.entries).toBe(0);
    expect(summary.tornLines.map((t) => t.line)).toEqual([2, 3, 4]);
  });

  it('reads a long journal streamed in chunks', async () => {
    const path = journalPath();
    const journal = JournalWriter.open(path, { fsyncEvery: 0 });
    const total = 20_000;
    for (let i = 0; i < total; i++) {
      journal.record({ to: [`+1555${String(i).padStart(7, '0')}`], outcome: i % 10 === 0 ? 'unknown' : 'accepted' });
    }
    await journal.close();
    appendFileSync(path, '{"to":["+1555');
    const summary = await readJournal(path);
    expect(summary.entries).toBe(total);
    expect(summary.accepted.size).toBe(total - total / 10);
    expect(summary.unknown).toBe(total / 10);
    expect(summary.tornLineCount).toBe(1);
    expect(summary.tornLines[0]!.line).toBe(total + 1);
  });
});

describe('a writer killed with SIGKILL', () => {
  let bundle: string;
  beforeAll(async () => {
    bundle = join(dir, 'journal-bundle.mjs');
    await build({
      entryPoints: [new URL('../../src/send/journal.ts', import.meta.url).pathname],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: bundle,
      logLevel: 'silent',
    });
  });

  it('loses no line whose record() had returned, and the journal resumes cleanly', async () => {
    const path = journalPath();
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `
        const { JournalWriter } = await import(${JSON.stringify(bundle)});
        const journal = JournalWriter.open(${JSON.stringify(path)}, { fsyncEvery: 0 });
        for (let i = 0; i < 1_000_000; i++) {
          journal.record({ to: ['+1555' + String(i).padStart(7, '0')], outcome: 'accepted', messageId: 'm' + i });
          // Told only after the line was written, as the sender counts an answer only then.
          process.stdout.write(i + '\\n');
        }
        `,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let acknowledged = -1;
    let buffered = '';
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (text: string) => {
      buffered += text;
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      if (lines.length > 0) acknowledged = Number(lines[lines.length - 1]);
      if (acknowledged >= 3000) child.kill('SIGKILL');
    });
    const signal = await exited;
    expect(signal).toBe('SIGKILL');
    expect(acknowledged).toBeGreaterThanOrEqual(3000);

    const summary = await readJournal(path);
    expect(summary.tornLineCount).toBeLessThanOrEqual(1);
    for (let i = 0; i <= acknowledged; i++) {
      if (!summary.accepted.has(`+1555${String(i).padStart(7, '0')}`)) throw new Error(`entry ${i} was lost`);
    }

    const resumed = JournalWriter.open(path);
    resumed.record({ to: ['+19995550000'], outcome: 'accepted' });
    await resumed.close();
    const after = await readJournal(path);
    expect(after.accepted.has('+19995550000')).toBe(true);
    expect(after.entries).toBe(summary.entries + 1);
  });
});
