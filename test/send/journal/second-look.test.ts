import { appendFileSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { JournalFormatError, sealRecord, type JournalLine, type JournalRun } from '../../../src/send/journal/format.js';
import { MAX_LOOKS, readJournalRecords } from '../../../src/send/journal/parser.js';
import { readJournal } from '../../../src/send/journal/replay.js';
import { CHUNK_BYTES, JournalFile } from '../../../src/send/journal/second-look.js';

// A reader without the journal's lock meets a send that cuts off a torn last line and writes on.
// Here the file is driven by hand between two of the reader's chunk reads (where a send running
// beside it could act), so each case happens exactly, every time.

const dir = mkdtempSync(join(tmpdir(), 'svc-journal-look-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let counter = 0;
const journalPath = (): string => join(dir, `journal-${++counter}.jsonl`);

const AT = '2030-01-01T00:00:00.000Z';
const RUN: JournalRun = { from: '+15551230000', body: 'sha256:ab', recipients: 'sha256:cd', recipientCount: 100_000, media: [] };
const number = (i: number): string => `+1555${String(i).padStart(7, '0')}`;

const header = (run: JournalRun = RUN): string => sealRecord({ journal: 'svc-send', version: 2, run, created: AT, svc: 'test' });
const launch = (seq: number, to: string[] = [number(seq)]): string => sealRecord({ type: 'launch', seq, to });
const rejected = (seq: number): string => sealRecord({ type: 'result', seq, to: [number(seq)], outcome: 'rejected', at: AT });
const resume = (): string => sealRecord({ type: 'resume', at: AT, unknown: 'none' });
/** An acceptance of request `seq` long enough to be cut anywhere: the record a torn end is the start of. */
const acceptedLong = (seq: number, length: number): string =>
  sealRecord({ type: 'result', seq, to: [number(seq)], outcome: 'accepted', messageId: `m-${seq}`, status: 'x'.repeat(length), at: AT });
/** Bytes from a line's middle flipped: what damage on disk looks like. */
const damage = (line: string): string => `${line.slice(0, 20)}${line[20] === 'X' ? 'Y' : 'X'}${line.slice(21)}`;

/** A header, then launch and rejection pairs from `first`, until the text is at least `bytes` long; the next seq. */
function pairs(first: number, bytes: number, text = ''): { text: string; next: number } {
  let seq = first;
  while (text.length < bytes) text += launch(seq) + rejected(seq++);
  return { text, next: seq };
}

/**
 * A journal whose whole records end just before the reader's first chunk does, with request
 * `open` launched and unanswered, and a torn start of its acceptance after them that runs past
 * the first chunk (by `tornBytes` in all).
 */
function withTornEnd(tornBytes = 4000): { path: string; whole: string; lines: number; open: number } {
  const path = journalPath();
  const { text, next } = pairs(1, CHUNK_BYTES - tornBytes + 1000, header());
  const whole = text + launch(next);
  expect(whole.length).toBeLessThan(CHUNK_BYTES);
  expect(whole.length + tornBytes).toBeGreaterThan(CHUNK_BYTES);
  writeFileSync(path, whole + acceptedLong(next, tornBytes * 2).slice(0, tornBytes));
  return { path, whole, lines: whole.split('\n').length - 1, open: next };
}

/** What a resuming send does: cut the file back to its whole records, then append. */
function cutAndAppend(path: string, whole: string, text: string): void {
  truncateSync(path, Buffer.byteLength(whole));
  appendFileSync(path, text);
}

/** Runs `action` just before the reader's `n`-th chunk read: where a send writing meanwhile acts. */
function beforeRead(n: number, action: () => void): void {
  const next = JournalFile.prototype.next;
  let reads = 0;
  const spy = vi.spyOn(JournalFile.prototype, 'next').mockImplementation(function (this: JournalFile) {
    if (++reads === n) action();
    return next.call(this);
  });
  onTestFinished(() => spy.mockRestore());
}

/** Runs `action` just before the `n`-th opening of the journal (the reader's first, then each second look's). */
function beforeOpen(n: number, action: () => void): void {
  const open = JournalFile.open.bind(JournalFile);
  let opened = 0;
  const spy = vi.spyOn(JournalFile, 'open').mockImplementation((path, position) => {
    if (++opened === n) action();
    return open(path, position);
  });
  onTestFinished(() => spy.mockRestore());
}

interface Reading {
  records: JournalLine[];
  torn: { line: number; bytes: Buffer; offset: number } | undefined;
  end: number | undefined;
  error: unknown;
}

async function read(path: string, options: { lockHeld?: boolean } = {}): Promise<Reading> {
  const reading: Reading = { records: [], torn: undefined, end: undefined, error: undefined };
  try {
    for await (const record of readJournalRecords(path, { ...options, onTorn: (t) => (reading.torn = t), onEnd: (end) => (reading.end = end) })) reading.records.push(record);
  } catch (error) {
    reading.error = error;
  }
  return reading;
}

/** Each record as `type seq`, to compare readings. */
const shapes = (text: string): string[] =>
  text
    .split('\n')
    .slice(0, -1)
    .map((line) => {
      const record = JSON.parse(line) as { type?: string; seq?: number };
      return `${record.type ?? 'header'} ${record.seq ?? ''}`.trim();
    });
const shapesOf = (records: JournalLine[]): string[] => records.map((r) => `${r.type} ${'seq' in r ? r.seq : ''}`.trim());

describe('a reader without the lock, when a send cuts off the torn end and writes on', () => {
  it('goes on from a second look: every record once, the old torn bytes never joined to the new ones', async () => {
    const { path, whole, lines, open } = withTornEnd();
    // As a resume writes: its record, the answer to the request left open (seen in the reader's
    // joined chunk after the bad line, so applying it twice would be refused), then more requests.
    const tail = resume() + rejected(open) + pairs(open + 1, 8000).text;
    beforeRead(2, () => cutAndAppend(path, whole, tail));
    const reading = await read(path);
    expect(reading.error).toBeUndefined();
    expect(shapesOf(reading.records)).toEqual(shapes(whole + tail));
    expect(reading.torn).toBeUndefined();
    expect(reading.end).toBe(whole.length + tail.length);

    // The dry run's replay carries its state across: the open request answered once, nobody accepted.
    const again = withTornEnd();
    beforeRead(2, () => cutAndAppend(again.path, again.whole, tail));
    const state = await readJournal(again.path);
    expect(state.counts).toEqual({ accepted: 0, rejected: state.lastSeq, unknown: 0, inFlight: 0 });
    expect(state.records).toBe(lines + tail.split('\n').length - 1);
    expect(state.validBytes).toBe(whole.length + tail.length);
  });

  it('is what a reader under the lock would refuse: the joined line is damaged there', async () => {
    const { path, whole, lines, open } = withTornEnd();
    beforeRead(2, () => cutAndAppend(path, whole, resume() + rejected(open) + pairs(open + 1, 8000).text));
    const reading = await read(path, { lockHeld: true });
    expect(reading.error).toBeInstanceOf(JournalFormatError);
    expect((reading.error as JournalFormatError).line).toBe(lines + 1);
  });

  it('refuses real damage that the second look finds there, with a sound record after it', async () => {
    const { path, whole, lines, open } = withTornEnd();
    beforeRead(2, () => cutAndAppend(path, whole, damage(resume()) + rejected(open) + pairs(open + 1, 8000).text));
    const reading = await read(path);
    expect(reading.error).toBeInstanceOf(JournalFormatError);
    expect((reading.error as JournalFormatError).line).toBe(lines + 1);
    expect((reading.error as Error).message).toContain('a damaged record');
    expect(reading.records).toHaveLength(lines);
  });

  it('believes damage only when a second look sees the same bytes again', async () => {
    const { path, whole, open } = withTornEnd();
    const sound = resume() + rejected(open) + pairs(open + 1, 8000).text;
    // The first look meets damage before a sound record (as a read could, joining old and new
    // bytes while the send cuts the file back); the look that checks it finds the record sound.
    beforeRead(2, () => cutAndAppend(path, whole, damage(resume()) + rejected(open) + pairs(open + 1, 8000).text));
    beforeOpen(3, () => cutAndAppend(path, whole, sound));
    const reading = await read(path);
    expect(reading.error).toBeUndefined();
    expect(shapesOf(reading.records)).toEqual(shapes(whole + sound));
  });

  it('refuses a line that changes at every look (another program rewriting the journal), after a bounded number of looks', async () => {
    const { path, whole, lines, open } = withTornEnd();
    const after = rejected(open) + pairs(open + 1, 8000).text;
    // Each look finds the line damaged in another way, a sound record after it: no send writes so.
    let looks = 0;
    const rewrite = (): void => cutAndAppend(path, whole, `${resume().slice(0, 20)}${String(looks++).padStart(4, '0')}${resume().slice(24)}${after}`);
    beforeRead(2, rewrite);
    const openFile = JournalFile.open.bind(JournalFile);
    let opened = 0;
    const spy = vi.spyOn(JournalFile, 'open').mockImplementation((file, position) => {
      if (++opened > 1) rewrite();
      return openFile(file, position);
    });
    onTestFinished(() => spy.mockRestore());
    const reading = await read(path);
    expect(reading.error).toBeInstanceOf(JournalFormatError);
    expect((reading.error as JournalFormatError).line).toBe(lines + 1);
    expect((reading.error as Error).message).toContain(`changed at each of ${MAX_LOOKS} readings`);
    expect(opened).toBe(1 + MAX_LOOKS);
    expect(reading.records).toHaveLength(lines);
  });

  it('takes what the second look finds cut short for the torn end, not counted', async () => {
    const { path, whole, lines, open } = withTornEnd();
    const cut = acceptedLong(open, 9000).slice(0, 6000);
    // The reader joins the old torn bytes to a new record; by its second look, the file was cut
    // back again and holds only the start of a record.
    beforeRead(2, () => cutAndAppend(path, whole, resume() + pairs(open + 1, 8000).text));
    beforeOpen(2, () => cutAndAppend(path, whole, cut));
    const reading = await read(path);
    expect(reading.error).toBeUndefined();
    expect(reading.records).toHaveLength(lines);
    expect(reading.torn).toMatchObject({ line: lines + 1, offset: whole.length });
    expect(reading.torn!.bytes.toString()).toBe(cut);
  });

  it('ends at a torn end it read as one, whatever the file holds by then', async () => {
    const { path, whole, lines, open } = withTornEnd();
    // The start of a new record, and no line break: nothing to tell apart, so nothing is counted.
    beforeRead(2, () => cutAndAppend(path, whole, acceptedLong(open, 9000).slice(0, 6000)));
    const reading = await read(path);
    expect(reading.error).toBeUndefined();
    expect(reading.records).toHaveLength(lines);
    expect(reading.torn).toMatchObject({ line: lines + 1, offset: whole.length });
  });

  it('follows a torn end longer than a chunk, and a new record longer than the first look', async () => {
    const { path, whole, lines, open } = withTornEnd(3 * CHUNK_BYTES);
    // A request to 40,000 recipients: a line of about 640 KB, begun where the torn end began.
    const wide = Array.from({ length: 40_000 }, (_, i) => number(500_000 + i));
    const tail = launch(open + 1, wide) + rejected(open) + pairs(open + 2, 3000).text;
    beforeRead(3, () => cutAndAppend(path, whole, tail));
    const reading = await read(path);
    expect(reading.error).toBeUndefined();
    expect(shapesOf(reading.records)).toEqual(shapes(whole + tail));
    expect(reading.records[lines]).toMatchObject({ type: 'launch', seq: open + 1 });
    expect((reading.records[lines] as { to: string[] }).to).toHaveLength(40_000);
  });
});

describe('a reader without the lock, at rest', () => {
  it('refuses damage in the middle with its line, after yielding the records before it', async () => {
    const path = journalPath();
    const lines = [header(), launch(1), rejected(1), launch(2), rejected(2), launch(3), rejected(3)];
    lines[3] = damage(lines[3]!);
    writeFileSync(path, lines.join(''));
    const reading = await read(path);
    expect((reading.error as JournalFormatError).line).toBe(4);
    expect(reading.records).toHaveLength(3);
  });

  it('refuses damage on a line that spans two chunks, and one longer than the first look', async () => {
    for (const length of [CHUNK_BYTES / 16, 2 * CHUNK_BYTES]) {
      const path = journalPath();
      const { text, next } = pairs(1, CHUNK_BYTES - 2000, header());
      const bad = damage(acceptedLong(next, length));
      writeFileSync(path, text + launch(next) + bad + launch(next + 1));
      const reading = await read(path);
      expect((reading.error as JournalFormatError).line).toBe(text.split('\n').length + 1);
      // The same line last in the file, nothing sound after it: the end being written, never counted.
      writeFileSync(path, text + launch(next) + bad);
      const last = await read(path);
      expect(last.error).toBeUndefined();
      expect(last.torn).toMatchObject({ line: text.split('\n').length + 1, offset: text.length + launch(next).length });
      expect(last.torn!.bytes.toString()).toBe(bad.slice(0, -1));
    }
  });

  it('takes a damaged last line for torn (and one followed only by more damage or a cut line), never counted', async () => {
    const accepted = sealRecord({ type: 'result', seq: 2, to: [number(2)], outcome: 'accepted', messageId: 'm-2', at: AT });
    const before = header() + launch(1) + rejected(1) + launch(2);
    for (const after of ['', damage(rejected(1)), launch(3).slice(0, 12)]) {
      const path = journalPath();
      writeFileSync(path, before + damage(accepted) + after);
      const state = await readJournal(path);
      expect(state.counts).toEqual({ accepted: 0, rejected: 1, unknown: 1, inFlight: 1 });
      expect(state.torn).toMatchObject({ line: 5, damaged: true });
      expect(state.validBytes).toBe(before.length);
      // Under the lock the same line is damage: a send must not decide who is sent to from it.
      await expect(readJournal(path, { lockHeld: true })).rejects.toThrow(`${path}:5: a damaged record`);
    }
  });

  it('tells a line cut short from a damaged one', async () => {
    const path = journalPath();
    writeFileSync(path, header() + launch(1) + rejected(1).slice(0, 30));
    const state = await readJournal(path);
    expect(state.torn).toEqual({ line: 3, bytes: Buffer.from(rejected(1).slice(0, 30)) });
  });

  it('refuses a whole first line that is not a header, even with nothing after it', async () => {
    for (const text of [`${damage(header())}`, 'phone,name\n', `${damage(header())}${launch(1)}`]) {
      const path = journalPath();
      writeFileSync(path, text);
      await expect(readJournal(path)).rejects.toThrow(`${path}:1: not a journal of svc send`);
    }
    const torn = journalPath();
    writeFileSync(torn, header().slice(0, 40));
    expect(await readJournal(torn)).toMatchObject({ exists: false, records: 0 });
  });
});

describe('a reader without the lock, at the header', () => {
  it('reads a torn header that a new run wrote over as the new journal', async () => {
    const path = journalPath();
    const other = { ...RUN, from: '+15559990000' };
    writeFileSync(path, header(other).slice(0, 100));
    const fresh = header() + pairs(1, 5000).text;
    // A new run empties the file and writes its header and requests between the reader's two reads.
    beforeRead(2, () => writeFileSync(path, fresh));
    const reading = await read(path);
    expect(reading.error).toBeUndefined();
    expect(shapesOf(reading.records)).toEqual(shapes(fresh));
    expect(reading.records[0]).toMatchObject({ type: 'header', header: { run: RUN } });
    const locked = journalPath();
    writeFileSync(locked, header(other).slice(0, 100));
    beforeRead(2, () => writeFileSync(locked, fresh));
    expect(((await read(locked, { lockHeld: true })).error as Error).message).toContain(':1: not a journal of svc send');
  });

  it('ends with what it read of a journal that a new run started over after its header was read', async () => {
    const path = journalPath();
    const old = header({ ...RUN, from: '+15559990000' }) + resume();
    writeFileSync(path, old);
    // The old journal recorded no request, so a new run empties it and writes its own.
    beforeRead(2, () => writeFileSync(path, header() + pairs(1, 20_000).text));
    const reading = await read(path);
    expect(reading.error).toBeUndefined();
    expect(shapesOf(reading.records)).toEqual(['header', 'resume']);
    expect(reading.torn).toBeUndefined();
    expect(reading.end).toBe(old.length);
  });
});
