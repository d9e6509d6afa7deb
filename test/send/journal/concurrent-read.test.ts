import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { readJournal } from '../../../src/send/journal/replay.js';
import { readReportJournal, type ReportRecipient } from '../../../src/send/report/data.js';
import { sendsInJournals } from '../../../src/commands/thread/shared/journal-sends.js';

// The readers that take no lock (`send report`, `thread --journal`, the dry run of `send
// --resume`) read while a real send process resumes its journal again and again: it cuts off its
// torn last line, appends, and leaves a new torn line, without pause. No reader may ever refuse
// that sound journal or count the record the send never completed.

const dir = mkdtempSync(join(tmpdir(), 'svc-journal-readers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const bundle = join(dir, 'journal.mjs');
/** Rounds the writer may make at most; the reader stops it sooner, once it has read enough. */
const MOST_ROUNDS = 1500;
/** Readings (each by every reader) made while the writer runs. */
const READINGS = 45;
const BODY = 'Hi';
const FROM = '+15551230000';
const number = (i: number): string => `+1555${String(i).padStart(7, '0')}`;
const sha256 = (text: string): string => `sha256:${createHash('sha256').update(text).digest('hex')}`;
// The recipients every round's request goes to, as a file, so that a real `send --resume --dry-run` takes the journal for its run's.
const recipients = ['phone', ...Array.from({ length: MOST_ROUNDS }, (_, i) => number(i))].join('\n') + '\n';
const RUN = { from: FROM, body: sha256(BODY), recipients: sha256(recipients), recipientCount: MOST_ROUNDS, media: [] };

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

/**
 * Each round, as a resuming send does under its lock: read the journal, cut off its torn last line
 * (JournalWriter.resume), answer the request left in flight as rejected, launch the next, then leave
 * a torn line behind: the start of an `accepted` result for that launch, never completed. So a
 * reader that ever counts someone accepted has believed a record the writer did not finish.
 * It stops when its standard input ends (or after the most rounds), and says how many it made.
 */
const WRITER = `
const { JournalWriter, readJournal, sealRecord } = await import(process.argv[1]);
const { appendFileSync } = await import('node:fs');
const [path, most] = [process.argv[2], Number(process.argv[3])];
const run = ${JSON.stringify(RUN)};
const number = (i) => '+1555' + String(i).padStart(7, '0');
let stop = false;
process.stdin.on('data', () => {});
process.stdin.on('end', () => (stop = true));
let journal = JournalWriter.create(path, run, { fsyncEvery: 0 });
let pending;
let rounds = 0;
for (; rounds < most && !stop; rounds++) {
  if (rounds > 0) journal = JournalWriter.resume(await readJournal(path, { lockHeld: true }), 'none', { fsyncEvery: 0 });
  if (pending !== undefined) journal.result(pending.seq, { to: pending.to, outcome: 'rejected', error: { message: 'no', status: 400 } });
  const to = [number(rounds)];
  const [seq] = journal.launch([{ to }]);
  await journal.close();
  pending = { seq, to };
  const whole = sealRecord({ type: 'result', seq, to, outcome: 'accepted', messageId: 'm' + rounds, at: '2030-01-01T00:00:00.000Z' });
  appendFileSync(path, whole.slice(0, 1 + (rounds * 7919) % (whole.length - 2)));
  if (rounds === 0) process.stdout.write('started\\n');
}
process.stdout.write('rounds ' + rounds + '\\n');
`;

describe('journal readers beside a send that keeps resuming', () => {
  it('never refuse the journal and never count the record the send did not complete', { timeout: 300_000 }, async () => {
    const path = join(dir, 'live.jsonl');
    const csv = join(dir, 'recipients.csv');
    const store = join(dir, 'store');
    writeFileSync(csv, recipients);
    mkdirSync(store);
    const child = spawn(process.execPath, ['--input-type=module', '-e', WRITER, bundle, path, String(MOST_ROUNDS)], { stdio: ['pipe', 'pipe', 'pipe'] });
    onTestFinished(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    let running = true;
    void exited.then(() => (running = false));
    // Reading starts once the journal has its header and first round.
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', () => stdout.includes('started') && resolve());
      void exited.then(() => reject(new Error(`the writer ended before it started: ${stderr}`)));
    });

    const failures: string[] = [];
    const fail = (what: string): void => void failures.push(what);
    // The recipient of the latest request: the one whose acceptance the torn line begins.
    let latest = number(0);
    let readings = 0;
    let lastRecords = 0;
    const cli = { env: { SVC_DATA_DIR: join(dir, 'data') } };
    do {
      const at = `reading ${readings}`;
      try {
        // The dry run's reader.
        const state = await readJournal(path);
        // Whole records are only ever appended: a later reading never sees fewer.
        if (state.records < lastRecords) fail(`${at}: ${state.records} records after ${lastRecords}`);
        lastRecords = state.records;
        latest = number(state.lastSeq - 1);
        if (!state.exists) fail(`${at}: no header`);
        if (state.counts.accepted !== 0 || state.counts.unknown > 1) fail(`${at}: readJournal counted ${JSON.stringify(state.counts)}`);
        // The report's reader.
        const into: ReportRecipient[] = [];
        const report = await readReportJournal(path, 0, into);
        if (report.counts.accepted !== 0 || into.some((r) => r.state === 'accepted')) fail(`${at}: the report counted someone accepted`);
        // The thread's reader, asked about the recipient of the torn acceptance (and the next one's).
        const sent = await sendsInJournals([path], number(state.lastSeq - 1));
        sent.push(...(await sendsInJournals([path], number(state.lastSeq))));
        if (sent.length !== 0) fail(`${at}: thread found a send to ${sent[0]!.to}`);
      } catch (error) {
        fail(`${at}: ${(error as Error).message}`);
      }
      // And the commands themselves, one a reading in turn.
      const command = [
        ['send', 'report', '--journal', path, '--json'],
        ['send', '--from', FROM, '--to-file', csv, '--body', BODY, '--journal', path, '--resume', '--dry-run', '--unknown', 'skip', '--json'],
        ['thread', latest, '--store', store, '--journal', path],
      ][readings % 3]!;
      const result = await runCli(command, cli);
      if (result.code !== 0) fail(`${at}: svc ${command.slice(0, 2).join(' ')} exited ${result.code}: ${result.stderr}`);
      else failures.push(...commandFailures(at, readings % 3, result.stdout));
      readings++;
    } while (running && readings < READINGS);
    child.stdin.end();
    expect(await exited, stderr).toBe(0);
    expect(failures.slice(0, 5)).toEqual([]);
    const rounds = Number(/rounds (\d+)/.exec(stdout)?.[1]);
    expect(rounds).toBeGreaterThan(1);

    // At rest, every request of every round is read: all rejected but the last, left in flight.
    const state = await readJournal(path, { lockHeld: true });
    expect(state.counts).toEqual({ accepted: 0, rejected: rounds - 1, unknown: 1, inFlight: 1 });
    expect(state.torn).toBeDefined();
  });
});

/** What is wrong in a command's output (none when nothing is): nobody accepted, nothing sent by the journal. */
function commandFailures(at: string, which: number, stdout: string): string[] {
  if (which === 0) {
    const report = JSON.parse(stdout) as { total: { accepted: number } };
    return report.total.accepted === 0 ? [] : [`${at}: send report counted ${report.total.accepted} accepted`];
  }
  if (which === 1) {
    // Skipped are the accepted and (with --unknown skip) the unknown: the same when none is accepted.
    const plan = JSON.parse(stdout) as { skipped: number; unknown: number };
    return plan.skipped === plan.unknown && plan.unknown <= 1 ? [] : [`${at}: the dry run planned ${JSON.stringify(plan)}`];
  }
  return stdout === '' ? [] : [`${at}: thread showed ${stdout.slice(0, 200)}`];
}
