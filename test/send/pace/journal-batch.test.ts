import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { JournalWriter } from '../../../src/send/journal/writer.js';
import { readJournal } from '../../../src/send/journal/replay.js';
import type { JournalRun } from '../../../src/send/journal/format.js';

// The bulk send's journal writes the results of one event-loop turn together:
// a launch is still in the file before its request leaves, and results reach the file before
// the next launches and by the end of the turn. Throttled and pause records read back as such.

const dir = mkdtempSync(join(tmpdir(), 'svc-journal-batch-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const RUN: JournalRun = { from: '+15551230000', body: 'sha256:ab', recipients: 'sha256:cd', recipientCount: 3, media: [] };
const lines = (path: string): { type?: string; seq?: number }[] =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type?: string; seq?: number });
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('JournalWriter with batchResults', () => {
  it('writes launches at once, results at the end of the turn or ahead of the next launches', async () => {
    const path = join(dir, 'a.jsonl');
    const journal = JournalWriter.create(path, RUN, { batchResults: true, shard: { k: 2, n: 3 } });
    const [a, b] = journal.launch([{ to: ['+15557000001'] }, { to: ['+15557000002'] }]);
    expect(lines(path).map((l) => l.type)).toEqual([undefined, 'launch', 'launch']);
    journal.result(a!, { to: ['+15557000001'], outcome: 'accepted', messageId: 'm1' });
    journal.throttled(b!, { to: ['+15557000002'], outcome: 'rejected', error: { message: 'slow down', status: 429 } });
    expect(lines(path)).toHaveLength(3);
    await turn();
    expect(lines(path).map((l) => l.type)).toEqual([undefined, 'launch', 'launch', 'result', 'throttled']);
    const [c] = journal.launch([{ to: ['+15557000002'] }]);
    journal.result(c!, { to: ['+15557000002'], outcome: 'accepted' });
    journal.pause('window', { window: '09:00-20:00 (UTC)', until: new Date('2026-01-02T09:00:00Z') });
    // The pause is written at once, with the result gathered before it.
    expect(lines(path).slice(-2).map((l) => l.type)).toEqual(['result', 'pause']);
    await journal.close();
    const state = await readJournal(path);
    expect(state.header?.shard).toEqual({ k: 2, n: 3 });
    expect(state.counts).toEqual({ accepted: 2, rejected: 0, unknown: 0, inFlight: 0 });
  });

  it('a throttled launch with no later launch leaves its recipient not sent, neither rejected nor unknown', async () => {
    const path = join(dir, 'b.jsonl');
    const journal = JournalWriter.create(path, RUN, { batchResults: true });
    const [a] = journal.launch([{ to: ['+15557000003'] }]);
    journal.throttled(a!, { to: ['+15557000003'], outcome: 'rejected', error: { message: 'slow down', status: 429 } });
    await journal.close();
    const state = await readJournal(path);
    expect(state.stateOf('+15557000003')).toBeUndefined();
    expect(state.counts).toEqual({ accepted: 0, rejected: 0, unknown: 0, inFlight: 0 });
  });
});
