import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { runBulk } from '../../../src/send/engine.js';
import { journalRecordFor, UNREACHABLE_AFTER, type BulkRequest, type BulkSummary } from '../../../src/send/bulk-types.js';
import { ApiError, NetworkError } from '../../../src/errors.js';
import { JournalFormatError, messageIdsOf, sealRecord, type JournalOutcome, type JournalRun } from '../../../src/send/journal/format.js';
import { JournalWriter } from '../../../src/send/journal/writer.js';
import { readJournal, type JournalState } from '../../../src/send/journal/replay.js';
import { readJournalRecords } from '../../../src/send/journal/parser.js';
import { runDifferences } from '../../../src/send/journal/differences.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-journal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let counter = 0;
const journalPath = () => join(dir, `journal-${++counter}.jsonl`);
const fixedClock = () => new Date('2030-01-02T03:04:05.000Z');
const RUN: JournalRun = { from: '+15551230000', body: 'sha256:ab', recipients: 'sha256:cd', recipientCount: 20, media: [] };
const number = (i: number): string => `+1555010${String(i).padStart(4, '0')}`;

async function records(path: string) {
  const all = [];
  for await (const record of readJournalRecords(path)) all.push(record);
  return all;
}

describe('JournalWriter and readJournal', () => {
  it('writes a header, launches before results, each line with its checksum, mode 0600', async () => {
    const path = journalPath();
    const journal = JournalWriter.create(path, RUN, { clock: fixedClock, svc: '9.9.9' });
    const [a, b] = journal.launch([{ to: [number(1)] }, { to: [number(2), number(3)] }]);
    journal.result(b!, { to: [number(2), number(3)], outcome: 'rejected', error: { message: 'bad', status: 400, errorCode: 'VALIDATION_ERROR' } });
    journal.result(a!, { to: [number(1)], outcome: 'accepted', messageId: 'm-1', status: 'queued' });
    await journal.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const lines = readFileSync(path, 'utf8').split('\n');
    expect(lines).toHaveLength(6);
    expect(lines[0]).toBe(
      '{"journal":"svc-send","version":2,"run":{"from":"+15551230000","body":"sha256:ab","recipients":"sha256:cd","recipientCount":20,"media":[]},"created":"2030-01-02T03:04:05.000Z","svc":"9.9.9","crc":"' +
        JSON.parse(lines[0]!).crc +
        '"}',
    );
    expect(lines[1]).toMatch(/^\{"type":"launch","seq":1,"to":\["\+15550100001"\],"crc":"[0-9a-f]{8}"\}$/);
    expect(JSON.parse(lines[4]!)).toMatchObject({ type: 'result', seq: 1, outcome: 'accepted', messageId: 'm-1', at: '2030-01-02T03:04:05.000Z' });

    const state = await readJournal(path);
    expect(state.exists).toBe(true);
    expect(state.header!.run).toEqual(RUN);
    expect(state.header!.svc).toBe('9.9.9');
    expect(state.counts).toEqual({ accepted: 1, rejected: 2, unknown: 0, inFlight: 0 });
    expect([1, 2, 3, 4].map((i) => state.stateOf(number(i)))).toEqual(['accepted', 'rejected', 'rejected', undefined]);
    const seen: string[] = [];
    state.forEachRecipient((to, s) => seen.push(`${to} ${s}`));
    expect(seen.sort()).toEqual([`${number(1)} accepted`, `${number(2)} rejected`, `${number(3)} rejected`]);
  });

  it('an absent or empty journal means nothing was sent', async () => {
    const absent = await readJournal(join(dir, 'never-written.jsonl'));
    expect(absent).toMatchObject({ exists: false, records: 0, validBytes: 0 });
    const empty = journalPath();
    writeFileSync(empty, '');
    expect((await readJournal(empty)).exists).toBe(false);
  });

  it('a launch without a result is unknown (in flight); accepted wins over anything, unknown over rejected', async () => {
    const path = journalPath();
    const journal = JournalWriter.create(path, RUN);
    const seq = (to: string): number => journal.launch([{ to: [to] }])[0]!;
    const A = number(1); // unknown, then accepted on a resend
    const B = number(2); // rejected only
    const C = number(3); // rejected, then unknown
    const D = number(4); // in flight at the crash
    journal.result(seq(A), { to: [A], outcome: 'unknown', error: { message: 'socket hang up' } });
    journal.result(seq(B), { to: [B], outcome: 'rejected' });
    journal.result(seq(C), { to: [C], outcome: 'rejected' });
    journal.result(seq(A), { to: [A], outcome: 'accepted' });
    journal.result(seq(C), { to: [C], outcome: 'unknown' });
    seq(D);
    await journal.close();
    const state = await readJournal(path);
    expect([A, B, C, D].map((to) => state.stateOf(to))).toEqual(['accepted', 'rejected', 'unknown', 'unknown']);
    expect(state.counts).toEqual({ accepted: 1, rejected: 1, unknown: 2, inFlight: 1 });
    expect(state.lastSeq).toBe(6);
  });

  it('resumes after a torn last line: cuts it off, keeps its bytes in the resume record, and goes on numbering', async () => {
    const path = journalPath();
    const journal = JournalWriter.create(path, RUN);
    const [seq] = journal.launch([{ to: [number(1)] }]);
    journal.result(seq!, { to: [number(1)], outcome: 'accepted' });
    journal.launch([{ to: [number(2)] }]);
    await journal.close();
    appendFileSync(path, '{"type":"result","seq":2,"to":["+1555');
    const before = await readJournal(path);
    expect(before.torn!.line).toBe(5);
    expect(before.stateOf(number(2))).toBe('unknown');

    const resumed = JournalWriter.resume(before, 'skip', { clock: fixedClock });
    const [next] = resumed.launch([{ to: [number(3)] }]);
    expect(next).toBe(3);
    resumed.result(next!, { to: [number(3)], outcome: 'accepted' });
    await resumed.close();
    const all = await records(path);
    const resume = all.find((r) => r.type === 'resume');
    expect(resume).toMatchObject({ type: 'resume', line: 5, unknown: 'skip', torn: { line: 5 } });
    expect(Buffer.from((resume as { torn: { bytes: string } }).torn.bytes, 'base64').toString()).toBe('{"type":"result","seq":2,"to":["+1555');
    const after = await readJournal(path);
    expect(after.torn).toBeUndefined();
    expect([1, 2, 3].map((i) => after.stateOf(number(i)))).toEqual(['accepted', 'unknown', 'accepted']);
  });

  it('a resume record names who it left out as opted out since; one that names them otherwise is refused', async () => {
    const path = journalPath();
    const journal = JournalWriter.create(path, RUN);
    const [seq] = journal.launch([{ to: [number(1)] }]);
    journal.result(seq!, { to: [number(1)], outcome: 'rejected', error: { message: 'bad' } });
    await journal.close();
    const resumed = JournalWriter.resume(await readJournal(path), 'none', { optedOutSince: [number(1)], own: { recipients: 19, excluded: 0, optedOut: 1 } });
    await resumed.close();
    expect((await records(path)).find((r) => r.type === 'resume')).toMatchObject({ optedOutSince: [number(1)], own: { optedOut: 1 } });
    // Nobody to name: the member is left out.
    const again = JournalWriter.resume(await readJournal(path), 'none', { optedOutSince: [] });
    await again.close();
    const resumes = (await records(path)).filter((r) => r.type === 'resume');
    expect(resumes).toHaveLength(2);
    expect(resumes[1]).not.toHaveProperty('optedOutSince');
    const bad = journalPath();
    writeFileSync(bad, readFileSync(path, 'utf8'));
    appendFileSync(bad, sealRecord({ type: 'resume', at: 'x', unknown: 'none', optedOutSince: '+15550100001' }));
    await expect(records(bad)).rejects.toThrow(/:6: not a journal record: a resume record whose optedOutSince is not a list of numbers/);
  });

  it('a journal holding only a torn header launched nothing, and a new run starts it again', async () => {
    const path = journalPath();
    writeFileSync(path, '{"journal":"svc-se');
    expect((await readJournal(path)).exists).toBe(false);
    const journal = JournalWriter.create(path, RUN);
    await journal.close();
    expect((await readJournal(path)).header!.run).toEqual(RUN);
  });

  it.each([
    ['the recipients CSV', 'phone,name\n+15550100001,Ann\n', /:1: not a journal of svc send/],
    ['a text list of numbers', '+15550100001\n+15550100002', /:1: not a journal of svc send/],
    ['a format-1 journal', '{"to":["+15550100001"],"outcome":"accepted","at":"x"}\n', /a journal of an earlier svc \(format 1/],
    ['a journal of a later format', '', /a journal of format 3, which this svc cannot read/],
  ])('refuses %s', async (_name, content, message) => {
    const path = journalPath();
    if (content === '') {
      const journal = JournalWriter.create(path, RUN);
      await journal.close();
      // Re-seal the header as version 3, checksum and all, the way a later svc would.
      const { sealRecord } = await import('../../../src/send/journal/format.js');
      const header = JSON.parse(readFileSync(path, 'utf8').split('\n')[0]!) as Record<string, unknown>;
      delete header['crc'];
      writeFileSync(path, sealRecord({ ...header, version: 3 }));
    } else {
      writeFileSync(path, content);
    }
    await expect(readJournal(path)).rejects.toThrow(message);
  });

  it('refuses a result for a request never launched, and two journals joined', async () => {
    const path = journalPath();
    const journal = JournalWriter.create(path, RUN);
    journal.result(7, { to: [number(1)], outcome: 'accepted' });
    await journal.close();
    await expect(readJournal(path)).rejects.toThrow(`${path}:2: a result for request 7, which was never launched`);
    const joined = journalPath();
    writeFileSync(joined, readFileSync(path, 'utf8').split('\n')[0]! + '\n' + readFileSync(path, 'utf8').split('\n')[0]! + '\n');
    await expect(readJournal(joined)).rejects.toThrow(':2: a second journal header');
  });

  it('journals each recipient\'s message id of a request to several, from the answer\'s messages; the first only without them', async () => {
    const to = [number(1), number(2), number(3)];
    // The answer for several recipients (docs/decisions.md#messages): the first's fields, and messages[] one per recipient (any order).
    const answer = {
      messageId: 'm-1',
      status: 'queued',
      messages: [
        { messageId: 'm-3', to: number(3), status: 'queued' },
        { messageId: 'm-1', to: number(1), status: 'queued' },
        { messageId: 'm-2', to: number(2), status: 'queued' },
      ],
    };
    const record = journalRecordFor({ to, outcome: 'accepted', answer });
    expect(record).toEqual({ to, outcome: 'accepted', messageId: 'm-1', messageIds: ['m-1', 'm-2', 'm-3'], status: 'queued' });
    const path = journalPath();
    const journal = JournalWriter.create(path, RUN, { clock: fixedClock });
    const [seq] = journal.launch([{ to }]);
    journal.result(seq!, record);
    const [single] = journal.launch([{ to: [number(4)] }]);
    journal.result(single!, journalRecordFor({ to: [number(4)], outcome: 'accepted', answer: { messageId: 'm-4', status: 'queued' } }));
    await journal.close();
    const results = (await records(path)).filter((r) => r.type === 'result');
    expect(results[0]).toMatchObject({ messageId: 'm-1', messageIds: ['m-1', 'm-2', 'm-3'] });
    // One recipient: its id is the answer's messageId, nothing more is written.
    expect(results[1]).toMatchObject({ messageId: 'm-4' });
    expect(results[1]).not.toHaveProperty('messageIds');
    expect(readFileSync(path, 'utf8').split('\n')[2]).toContain('"messageId":"m-1","messageIds":["m-1","m-2","m-3"],"status":"queued"');
  });

  it('matches messages[] to recipients by number, else by position, and leaves out what the answer does not name', () => {
    const to = [number(1), number(2)];
    expect(messageIdsOf(to, { messages: [{ messageId: 'b', to: ['+1 555 010 0002'] }, { messageId: 'a', to: number(1) }] })).toEqual(['a', 'b']);
    expect(messageIdsOf(to, { messages: [{ messageId: 'a' }, { messageId: 'b' }] })).toEqual(['a', 'b']);
    expect(messageIdsOf(to, { messages: [{ messageId: 'b', to: number(2) }] })).toEqual([null, 'b']);
    expect(messageIdsOf(to, { messageId: 'a' })).toBeUndefined();
    expect(messageIdsOf(to, { messages: 'no' })).toBeUndefined();
    expect(messageIdsOf([number(1)], { messageId: 'a', messages: [{ messageId: 'a', to: number(1) }] })).toBeUndefined();
  });

  it('names what differs between two runs', () => {
    expect(runDifferences(RUN, RUN)).toEqual([]);
    expect(runDifferences(RUN, { ...RUN, from: '+15559990000', media: ['https://e.com/a.png'] })).toEqual([
      'it sent from +15551230000, this run from +15559990000',
      'its media were different',
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// Properties: whatever the crash point, corruption or signal timing, no recipient whose
// acceptance was journaled is sent again, and no recipient is silently dropped.

interface History {
  recipients: number;
  /** Sizes of the launch windows. */
  windows: number[];
  outcomes: JournalOutcome[];
  /** Which open request is answered next, and whether before the next window. */
  answerOrder: number[];
  answered: number;
}

/** A run as the engine writes it: windows of launches, answers in any order. */
const historyArbitrary: fc.Arbitrary<History> = fc
  .record({
    recipients: fc.integer({ min: 1, max: 12 }),
    windows: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 6 }),
    outcomes: fc.array(fc.constantFrom<JournalOutcome>('accepted', 'rejected', 'unknown'), { minLength: 30, maxLength: 30 }),
    answerOrder: fc.array(fc.nat(), { minLength: 30, maxLength: 30 }),
    answered: fc.integer({ min: 0, max: 30 }),
  })
  .map(({ recipients, windows, outcomes, answerOrder, answered }) => ({ recipients, windows, outcomes, answerOrder, answered }));

/** Writes a history; returns for each seq its recipient and outcome (undefined: no answer yet). */
function writeHistory(path: string, history: History) {
  const journal = JournalWriter.create(path, RUN, { fsyncEvery: 0 });
  const requests: { seq: number; to: string; outcome: JournalOutcome | undefined }[] = [];
  let next = 0;
  const open: number[] = [];
  let answers = 0;
  for (const size of history.windows) {
    const window: string[] = [];
    for (let i = 0; i < size && next < history.recipients; i++) window.push(number(next++));
    if (window.length === 0) break;
    const seqs = journal.launch(window.map((to) => ({ to: [to] })));
    seqs.forEach((seq, i) => {
      requests.push({ seq, to: window[i]!, outcome: undefined });
      open.push(seq);
    });
    // Some answers arrive before the next window, in any order.
    while (open.length > 0 && answers < history.answered && history.answerOrder[answers]! % 3 !== 0) {
      const pick = open.splice(history.answerOrder[answers]! % open.length, 1)[0]!;
      const request = requests.find((r) => r.seq === pick)!;
      request.outcome = history.outcomes[answers]!;
      journal.result(pick, { to: [request.to], outcome: request.outcome });
      answers++;
    }
  }
  return { requests, close: () => journal.close() };
}

/** Who a resumed run sends to: everyone not accepted, and the unknown ones only with `resend`. */
function resumeSends(state: JournalState, recipients: number, unknown: 'resend' | 'skip'): string[] {
  const sends: string[] = [];
  for (let i = 0; i < recipients; i++) {
    const s = state.stateOf(number(i));
    if (s === 'accepted') continue;
    if (s === 'unknown' && unknown === 'skip') continue;
    sends.push(number(i));
  }
  return sends;
}

describe('journal properties (fast-check)', () => {
  it('a crash at any byte of the last record: every journaled acceptance is kept, every launch without an answer is unknown, nobody is dropped', async () => {
    await fc.assert(
      fc.asyncProperty(historyArbitrary, async (history) => {
        const path = journalPath();
        const written = writeHistory(path, history);
        await written.close();
        const full = readFileSync(path);
        const lastStart = full.lastIndexOf(0x0a, full.length - 2) + 1;
        for (let cut = Math.max(lastStart, 1); cut <= full.length; cut++) {
          writeFileSync(path, full.subarray(0, cut));
          const kept = full.subarray(0, cut).toString('utf8');
          const state = await readJournal(path);
          if (!kept.includes('\n')) {
            // Only a torn header: nothing was launched.
            expect(state.exists).toBe(false);
            continue;
          }
          // Whole lines only: a line without its line break is the torn one.
          const whole = kept.split('\n').slice(0, -1);
          for (const request of written.requests) {
            const launched = whole.some((l) => l.startsWith(`{"type":"launch","seq":${request.seq},`));
            const answered = whole.some((l) => l.startsWith(`{"type":"result","seq":${request.seq},`));
            const s = state.stateOf(request.to);
            if (answered) expect(s).toBe(request.outcome);
            else if (launched) expect(s).toBe('unknown');
            else expect(s).toBeUndefined();
          }
          for (const choice of ['resend', 'skip'] as const) {
            const sends = new Set(resumeSends(state, history.recipients, choice));
            for (let i = 0; i < history.recipients; i++) {
              const s = state.stateOf(number(i));
              // Never again after a journaled acceptance; never dropped unless unknown and skipped by choice.
              if (s === 'accepted') expect(sends.has(number(i))).toBe(false);
              else if (s === 'unknown' && choice === 'skip') expect(sends.has(number(i))).toBe(false);
              else expect(sends.has(number(i))).toBe(true);
            }
          }
        }
      }),
      { numRuns: 12 },
    );
  }, 90_000);

  it('a damaged byte anywhere but the torn end is refused, naming its line', async () => {
    await fc.assert(
      fc.asyncProperty(historyArbitrary, fc.nat(), fc.integer({ min: 1, max: 255 }), async (history, where, flip) => {
        const path = journalPath();
        const written = writeHistory(path, history);
        await written.close();
        const bytes = readFileSync(path);
        const offset = where % bytes.length;
        fc.pre(bytes[offset] !== 0x0a && (bytes[offset]! ^ flip) !== 0x0a);
        bytes[offset] = bytes[offset]! ^ flip;
        writeFileSync(path, bytes);
        const line = bytes.subarray(0, offset).toString('latin1').split('\n').length;
        // Under the lock (a send about to resume), damage is refused wherever it is.
        const error = await readJournal(path, { lockHeld: true }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(JournalFormatError);
        expect((error as JournalFormatError).line ?? 1).toBe(line);
        // Without it (a report while a send may write), the same, but for a last line that nothing
        // sound follows: that one may be the end being written, and is taken for torn, never counted.
        const lines = bytes.toString('latin1').split('\n').length - 1;
        if (line === 1 || line < lines) {
          await expect(readJournal(path)).rejects.toThrow(error as Error);
        } else {
          const state = await readJournal(path);
          expect(state.torn?.line).toBe(line);
          expect(state.records).toBe(line - 1);
          expect(state.validBytes).toBe(bytes.lastIndexOf(0x0a, bytes.length - 2) + 1);
        }
      }),
      { numRuns: 150 },
    );
  }, 60_000);

  it('random bytes are never taken for a journal', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 300 }), async (bytes) => {
        const text = Buffer.from(bytes).toString('latin1');
        // A prefix of a journal header without a line break is a torn header (nothing launched).
        fc.pre(!'{"journal":"svc-send"'.startsWith(text) && !text.startsWith('{"journal":"svc-send"'));
        const path = journalPath();
        writeFileSync(path, bytes);
        await expect(readJournal(path)).rejects.toBeInstanceOf(JournalFormatError);
      }),
      { numRuns: 200 },
    );
  }, 60_000);

  it('a signal at any moment of a run: every request sent has its answer journaled, and resumes (each may stop when the service looks unreachable) send each other recipient once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 0, max: 60 }),
        fc.array(fc.constantFrom('accept', 'reject', 'reset'), { minLength: 40, maxLength: 40 }),
        async (recipients, concurrency, abortAfter, fates) => {
          const path = journalPath();
          const list = Array.from({ length: recipients }, (_, i) => number(i));
          const controller = new AbortController();
          const sent: string[] = [];
          const acceptedByServer = new Set<string>();
          const reachedTwice: string[] = [];
          let steps = 0;
          const journal = JournalWriter.create(path, RUN, { fsyncEvery: 0 });
          const fateOf = (to: string): string => fates[Number(to.slice(-4)) % fates.length]!;
          async function* requests(skip: (to: string) => boolean): AsyncGenerator<BulkRequest<number>[]> {
            yield list.filter((to) => !skip(to)).map((to, i) => ({ to: [to], payload: i }));
          }
          const send = async (request: BulkRequest<number>): Promise<Record<string, unknown>> => {
            const to = request.to[0]!;
            // The service may have acted on it already: with --unknown skip, that is sending twice.
            if (acceptedByServer.has(to)) reachedTwice.push(to);
            sent.push(to);
            await new Promise<void>((resolve) => setImmediate(resolve));
            if (++steps === abortAfter) controller.abort();
            const fate = fateOf(to);
            if (fate === 'reject') throw new ApiError('no', { status: 400 });
            acceptedByServer.add(to);
            if (fate === 'reset') throw new NetworkError('reset', true);
            return { messageId: to };
          };
          if (abortAfter === 0) controller.abort();
          const first = await runBulk({ requests: requests(() => false), send, concurrency, journal, signal: controller.signal, onResult: () => {} });
          await journal.close();

          let state = await readJournal(path);
          expect(state.counts.inFlight).toBe(0);
          for (const to of sent) expect(state.stateOf(to)).toBeDefined();
          for (const to of list) if (!sent.includes(to)) expect(state.stateOf(to)).toBeUndefined();
          // A stop for an unreachable service needs that many connection failures behind it.
          const stoppedFairly = (summary: BulkSummary, ran: readonly string[]): void => {
            if (summary.unreachable === undefined) return;
            expect(summary.unreachable.failures).toBeGreaterThanOrEqual(UNREACHABLE_AFTER);
            expect(ran.filter((to) => fateOf(to) === 'reset').length).toBeGreaterThanOrEqual(UNREACHABLE_AFTER);
          };
          stoppedFairly(first, sent);

          // Resumes, as the user is told to, until one runs to the end: five resets in a row (the
          // same recipients reset again) stop a resume too, and the next one carries on from there.
          const everSent = new Set(sent);
          let last = first;
          for (let resumes = 0; resumes === 0 || last.unreachable !== undefined; resumes++) {
            // Each stopped run journals its resets as unknown, which the next skips: it gets further.
            expect(resumes).toBeLessThanOrEqual(recipients);
            sent.length = 0;
            const before = state;
            const resumed = JournalWriter.resume(before, 'skip', { fsyncEvery: 0 });
            const skip = (to: string): boolean => before.stateOf(to) === 'accepted' || before.stateOf(to) === 'unknown';
            last = await runBulk({ requests: requests(skip), send, concurrency, journal: resumed, signal: new AbortController().signal, onResult: () => {} });
            await resumed.close();
            // Nobody accepted or of unknown fate is sent again, nor anyone twice in one run.
            for (const to of sent) {
              expect(before.stateOf(to)).not.toBe('accepted');
              expect(before.stateOf(to)).not.toBe('unknown');
            }
            expect(new Set(sent).size).toBe(sent.length);
            stoppedFairly(last, sent);
            state = await readJournal(path);
            expect(state.counts.inFlight).toBe(0);
            // Nothing journaled is lost: every recipient sent is recorded, what was settled stays so.
            for (const to of sent) expect(state.stateOf(to)).toBeDefined();
            for (const to of list) {
              const was = before.stateOf(to);
              if (was === 'accepted' || was === 'unknown') expect(state.stateOf(to)).toBe(was);
            }
            for (const to of sent) everSent.add(to);
          }
          // Nobody dropped: once a resume runs to the end, each recipient was sent in some run.
          for (const to of list) expect(everSent.has(to)).toBe(true);
          expect(reachedTwice).toEqual([]);
        },
      ),
      { numRuns: 60 },
    );
  }, 60_000);
});

describe('a writer killed with SIGKILL', () => {
  let bundle: string;
  beforeAll(async () => {
    bundle = join(dir, 'journal-bundle.mjs');
    await build({
      entryPoints: [new URL('../../../src/send/journal/writer.ts', import.meta.url).pathname],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: bundle,
      logLevel: 'silent',
    });
  });

  it('loses no record written before the kill, and the journal resumes cleanly', async () => {
    const path = journalPath();
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `
        const { JournalWriter } = await import(${JSON.stringify(bundle)});
        const run = ${JSON.stringify(RUN)};
        const journal = JournalWriter.create(${JSON.stringify(path)}, run, { fsyncEvery: 0 });
        for (let i = 0; ; i++) {
          const to = ['+1555' + String(i).padStart(7, '0')];
          const [seq] = journal.launch([{ to }]);
          journal.result(seq, { to, outcome: 'accepted', messageId: 'm' + i });
          // Told only after the answer was written, as the sender counts an answer only then;
          // waiting for the pipe to drain, so that the parent hears of it however loaded the machine.
          if (!process.stdout.write(i + '\\n')) await new Promise((resolve) => process.stdout.once('drain', resolve));
        }
        `,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    // The child writes for ever: it must not outlive a test that fails or times out.
    onTestFinished(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    let acknowledged = -1;
    let buffered = '';
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (text: string) => {
      buffered += text;
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      if (lines.length > 0) acknowledged = Number(lines[lines.length - 1]);
      if (acknowledged >= 2000) child.kill('SIGKILL');
    });
    const signal = await exited;
    expect(signal).toBe('SIGKILL');
    expect(acknowledged).toBeGreaterThanOrEqual(2000);

    const state = await readJournal(path);
    for (let i = 0; i <= acknowledged; i++) {
      if (state.stateOf(`+1555${String(i).padStart(7, '0')}`) !== 'accepted') throw new Error(`record ${i} was lost`);
    }
    // At most the one request launched when the kill came is unknown.
    expect(state.counts.inFlight).toBeLessThanOrEqual(1);

    const resumed = JournalWriter.resume(state, 'skip');
    const [seq] = resumed.launch([{ to: ['+19995550000'] }]);
    resumed.result(seq!, { to: ['+19995550000'], outcome: 'accepted' });
    await resumed.close();
    const after = await readJournal(path);
    expect(after.stateOf('+19995550000')).toBe('accepted');
    expect(after.counts.accepted).toBe(state.counts.accepted + 1);
  });
});
