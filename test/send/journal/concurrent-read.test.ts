import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { JournalFormatError, sealRecord } from '../../../src/send/journal/format.js';
import { readJournalSteadily, STEADY_READ_ATTEMPTS, type JournalRecords } from '../../../src/send/journal/parser.js';
import { readJournal } from '../../../src/send/journal/replay.js';
import { JournalWriter } from '../../../src/send/journal/writer.js';
import { readReportJournal, type ReportRecipient } from '../../../src/send/report/data.js';
import { sendsInJournals } from '../../../src/commands/thread/shared/journal-sends.js';

// Readers (`send report`, the dry run of `send --resume`, `thread --journal`) take no lock: they read while a send
// appends, and while a resuming send cuts off a torn last line and writes on. Here a real writer
// process does exactly that, round after round, and the readers read all the while.

const dir = mkdtempSync(join(tmpdir(), 'svc-journal-readers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const bundle = join(dir, 'journal.mjs');

beforeAll(async () => {
  // The child uses the journal's own writer and replay, bundled from the sources.
  const source = (file: string): string => JSON.stringify(new URL(`../../../src/send/journal/${file}`, import.meta.url).pathname);
  await build({
    stdin: { contents: `export { JournalWriter } from ${source('writer.ts')};\nexport { readJournal } from ${source('replay.ts')};\nexport { sealRecord } from ${source('format.ts')};\n`, resolveDir: dir, loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: bundle,
    logLevel: 'silent',
  });
});

const ROUNDS = 300;
const RUN = { from: '+15551230000', body: 'sha256:ab', recipients: 'sha256:cd', recipientCount: ROUNDS, media: [] };

/**
 * Each round, as a resuming send does: read the journal, cut off its torn last line (JournalWriter.resume),
 * answer the request left in flight as rejected, launch the next, then leave a torn line behind: the
 * first part of an `accepted` result for that launch, which is never completed. So a reader that ever
 * counts someone accepted has believed a record the writer did not finish.
 */
const WRITER = `
const { JournalWriter, readJournal, sealRecord } = await import(process.argv[1]);
const { appendFileSync } = await import('node:fs');
const [path, rounds] = [process.argv[2], Number(process.argv[3])];
const run = ${JSON.stringify(RUN)};
const number = (i) => '+1555' + String(i).padStart(7, '0');
let journal = JournalWriter.create(path, run, { fsyncEvery: 0 });
let pending;
for (let i = 0; i < rounds; i++) {
  if (i > 0) journal = JournalWriter.resume(await readJournal(path), 'none', { fsyncEvery: 0 });
  if (pending !== undefined) journal.result(pending.seq, { to: pending.to, outcome: 'rejected', error: { message: 'no', status: 400 } });
  const to = [number(i)];
  const [seq] = journal.launch([{ to }]);
  await journal.close();
  pending = { seq, to };
  const whole = sealRecord({ type: 'result', seq, to, outcome: 'accepted', messageId: 'm' + i, at: '2030-01-01T00:00:00.000Z' });
  appendFileSync(path, whole.slice(0, 1 + (i * 7919) % (whole.length - 2)));
  if (i === 0) process.stdout.write('started\\n');
}
`;

describe('journal readers under a concurrent writer', () => {
  it('never fail and never count a record the writer did not complete', { timeout: 300_000 }, async () => {
    const path = join(dir, 'live.jsonl');
    const child = spawn(process.execPath, ['--input-type=module', '-e', WRITER, bundle, path, String(ROUNDS)], { stdio: ['ignore', 'pipe', 'pipe'] });
    onTestFinished(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    let done = false;
    void exited.then(() => (done = true));
    // Reading starts once the journal has its header and first round.
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('started') && resolve());
      void exited.then(() => reject(new Error(`the writer ended before it started: ${stderr}`)));
    });

    let reads = 0;
    let lastRecords = 0;
    const failures: string[] = [];
    while (!done) {
      try {
        const state = await readJournal(path);
        // Whole records are only ever appended: a later read never sees fewer.
        if (state.records < lastRecords) failures.push(`read ${reads}: ${state.records} records after ${lastRecords}`);
        lastRecords = state.records;
        if (state.counts.accepted !== 0) failures.push(`read ${reads}: readJournal counted ${state.counts.accepted} accepted`);
        if (!state.exists) failures.push(`read ${reads}: readJournal found no header`);
        const into: ReportRecipient[] = [];
        const report = await readReportJournal(path, 0, into);
        if (report.counts.accepted !== 0 || into.some((r) => r.state === 'accepted')) failures.push(`read ${reads}: the report counted someone accepted`);
        const sent = await sendsInJournals([path], `+1555${String(reads % ROUNDS).padStart(7, '0')}`);
        if (sent.length !== 0) failures.push(`read ${reads}: thread found a send to ${sent[0]!.to}`);
      } catch (error) {
        failures.push(`read ${reads}: ${(error as Error).message}`);
      }
      reads++;
    }
    expect(await exited, stderr).toBe(0);
    expect(failures.slice(0, 5)).toEqual([]);
    expect(reads).toBeGreaterThan(0);

    // At rest, every request of every round is read: all rejected but the last, left in flight.
    const state = await readJournal(path);
    expect(state.counts).toEqual({ accepted: 0, rejected: ROUNDS - 1, unknown: 1, inFlight: 1 });
    expect(state.torn).toBeDefined();
  });
});

describe('readJournalSteadily', () => {
  let counter = 0;
  /** A journal with one request launched, and the sealed line of its result (not written). */
  async function journalWithLaunch(): Promise<{ path: string; result: string }> {
    const path = join(dir, `steady-${++counter}.jsonl`);
    const journal = JournalWriter.create(path, RUN, { fsyncEvery: 0 });
    const [seq] = journal.launch([{ to: ['+15550000001'] }]);
    await journal.close();
    return { path, result: sealRecord({ type: 'result', seq, to: ['+15550000001'], outcome: 'accepted', messageId: 'm-1', at: '2030-01-01T00:00:00.000Z' }) };
  }
  /** Reads every record, counting the readings; `between` runs after each reading, as a writer would. */
  function counting(between: (reading: number) => void = () => {}) {
    let readings = 0;
    const read = async (records: JournalRecords) => {
      let torn: Buffer | undefined;
      const all = [];
      try {
        for await (const record of records({ onTorn: (t) => (torn = t.bytes) })) all.push(record);
      } finally {
        between(++readings);
      }
      return { all, torn };
    };
    return { read, readings: () => readings };
  }

  it('refuses damage that is on disk after one reading', async () => {
    const { path, result } = await journalWithLaunch();
    appendFileSync(path, result.replace('accepted', 'rejected'));
    const reader = counting();
    await expect(readJournalSteadily(path, reader.read)).rejects.toBeInstanceOf(JournalFormatError);
    expect(reader.readings()).toBe(1);
  });

  it('believes a torn last line at rest after one reading', async () => {
    const { path, result } = await journalWithLaunch();
    appendFileSync(path, result.slice(0, 20));
    const reader = counting();
    const { torn } = await readJournalSteadily(path, reader.read, { settleTorn: true });
    expect(torn?.toString()).toBe(result.slice(0, 20));
    expect(reader.readings()).toBe(1);
  });

  it('reads again when the torn last line was a write in progress, and then sees it whole', async () => {
    const { path, result } = await journalWithLaunch();
    appendFileSync(path, result.slice(0, 20));
    const reader = counting((reading) => reading === 1 && appendFileSync(path, result.slice(20)));
    const { all, torn } = await readJournalSteadily(path, reader.read, { settleTorn: true });
    expect(torn).toBeUndefined();
    expect(all.at(-1)).toMatchObject({ type: 'result', outcome: 'accepted' });
    expect(reader.readings()).toBe(2);
  });

  it('without settleTorn, leaves a torn end to the reader', async () => {
    const { path, result } = await journalWithLaunch();
    appendFileSync(path, result.slice(0, 20));
    const reader = counting((reading) => reading === 1 && appendFileSync(path, result.slice(20)));
    const { torn } = await readJournalSteadily(path, reader.read);
    expect(torn?.toString()).toBe(result.slice(0, 20));
    expect(reader.readings()).toBe(1);
  });

  it('reads again when a line it refused was replaced under it (a torn tail cut off and written on)', async () => {
    const { path, result } = await journalWithLaunch();
    const whole = readFileSync(path).length;
    // What a reader sees when it read the old torn tail and then the new record's end.
    const mixed = result.slice(0, 30) + result.slice(35);
    appendFileSync(path, mixed);
    const reader = counting((reading) => {
      if (reading !== 1) return;
      truncateSync(path, whole);
      appendFileSync(path, result);
    });
    const { all } = await readJournalSteadily(path, reader.read);
    expect(all.at(-1)).toMatchObject({ type: 'result', outcome: 'accepted' });
    expect(reader.readings()).toBe(2);
  });

  it('gives up after a bounded number of readings of a file that keeps changing', async () => {
    const { path, result } = await journalWithLaunch();
    const whole = readFileSync(path);
    const broken = (reading: number): string => result.slice(0, 30) + String(reading % 10) + result.slice(31);
    appendFileSync(path, broken(0));
    const reader = counting((reading) => writeFileSync(path, Buffer.concat([whole, Buffer.from(broken(reading))])));
    await expect(readJournalSteadily(path, reader.read)).rejects.toBeInstanceOf(JournalFormatError);
    expect(reader.readings()).toBe(STEADY_READ_ATTEMPTS);
  });
});
