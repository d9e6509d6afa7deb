import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compactStore, pruneStore, recoverCompaction } from '../../../src/events/store/compact.js';
import { generatedRecord, remoteNumber, type GenerateOptions } from '../../../src/events/generate.js';
import { eventRecord, sentMessagesIn, sentRecord } from '../../../src/events/records.js';
import { EventStoreReader, latestRecords, recentIds } from '../../../src/events/store/reader.js';
import { EventStoreWriter, writeSegment } from '../../../src/events/store/writer.js';
import { StoreFollower } from '../../../src/events/store/follower.js';
import type { StoredRecord } from '../../../src/events/store/record.js';

/**
 * One turn of the event loop. vitest's worker answers its runner over an RPC that gives up after
 * 60 s, and its reply is read only when the worker's loop polls: a test that computes for a
 * minute without yielding (this one, on a loaded machine) fails the whole run with
 * "Timeout calling onTaskUpdate" although every test passed.
 */
const breathe = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const dirs: string[] = [];
function tempStore(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-store-'));
  dirs.push(dir);
  return join(dir, 'events');
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const T0 = Date.parse('2026-01-01T00:00:00Z');

function receipt(id: string, messageId: string, at: number, status = 'delivered'): StoredRecord {
  return eventRecord({
    id,
    type: 'DeliveryReceipt',
    receivedAt: new Date(at),
    messageId,
    status,
    headers: { 'x-svc-delivery': id },
    raw: JSON.stringify({ messageId, status }),
  });
}

describe('the event store', () => {
  it('keeps what a writer appended, in order, and answers by type, number, message and time', async () => {
    const dir = tempStore();
    const writer = EventStoreWriter.open(dir);
    await Promise.all([
      writer.append(sentRecord({ messageId: 'm1', from: '+15557770100', to: '+14155551001', body: 'Hi Ann', at: new Date(T0) })),
      writer.append(receipt('d1', 'm1', T0 + 1000)),
      writer.append(
        eventRecord({
          id: 'd2',
          type: 'MessageReceived',
          receivedAt: new Date(T0 + 2000),
          from: '+14155551001',
          to: ['+15557770100'],
          messageId: 'in1',
          headers: {},
          raw: '{"from":"+14155551001","tos":["+15557770100"],"message":"Thanks"}',
        }),
      ),
      writer.append(receipt('d3', 'other', T0 + 3000, 'failed')),
    ]);
    await writer.close();
    const reader = new EventStoreReader(dir);
    expect(reader.total).toBe(4);
    expect(reader.query({ kinds: ['event'] }).map((r) => r.id)).toEqual(['d1', 'd2', 'd3']);
    expect(reader.query({ types: ['deliveryreceipt'] }).map((r) => r.id)).toEqual(['d1', 'd3']);
    // The receipt of a message sent to the number counts for the number, though it names only the message.
    expect(reader.query({ number: '+1 (415) 555-1001', linkReceipts: true }).map((r) => r.id)).toEqual(['sent:m1', 'd1', 'd2']);
    expect(reader.query({ number: '+14155551001' }).map((r) => r.id)).toEqual(['sent:m1', 'd2']);
    expect(reader.query({ messageIds: ['m1'] }).map((r) => r.id)).toEqual(['sent:m1', 'd1']);
    expect(reader.query({ since: T0 + 1000, until: T0 + 3000 }).map((r) => r.id)).toEqual(['d1', 'd2']);
    expect(reader.get('d2')?.body).toBe('{"from":"+14155551001","tos":["+15557770100"],"message":"Thanks"}');
    expect(reader.get('nope')).toBeUndefined();
    // Standard tools read it: one JSON object a line.
    const segment = readdirSync(dir).find((name) => name.endsWith('.ndjson'))!;
    const lines = readFileSync(join(dir, segment), 'utf8').trimEnd().split('\n');
    expect(lines.map((line) => (JSON.parse(line) as { id: string }).id)).toEqual(['sent:m1', 'd1', 'd2', 'd3']);
  });

  it('answers queries over a generated store of 1,000,000 records exactly as a full scan does', async () => {
    // The store is written in segments of 25,000; what each query should find is worked out from
    // the generator as it goes (holding a million records to filter later would cost ~0.5 GB).
    const dir = tempStore();
    const COUNT = 1_000_000;
    const PART = 25_000;
    const options: GenerateOptions = { count: COUNT, start: T0, step: 1000, numbers: 5_003 };
    const number = remoteNumber(1234);
    const since = T0 + 60_000 * 1000;
    const until = since + 3600 * 1000;
    const failedSince = T0 + 975_000 * 1000;
    const sentTo = new Set<string>();
    const expected = { byNumber: [] as string[], byMessage: [] as string[], byTypeAndTime: [] as string[], failed: 0, latest: [] as string[] };
    for (let part = 0; part < COUNT / PART; part++) {
      const records: StoredRecord[] = [];
      for (let i = part * PART; i < (part + 1) * PART; i++) {
        const r = generatedRecord(i, options);
        records.push(r);
        const at = Date.parse(r.at);
        if (r.kind === 'sent' && r.numbers.includes(number) && r.messageId !== undefined) sentTo.add(r.messageId);
        // Events about the number: those naming it, and receipts of what was sent to it (a
        // message's sent record comes before its receipt).
        if (r.kind === 'event' && (r.numbers.includes(number) || (r.messageId !== undefined && sentTo.has(r.messageId)))) expected.byNumber.push(r.id);
        if (r.messageId === 'msg-4242') expected.byMessage.push(r.id);
        if (r.type === 'MessageReceived' && at >= since && at < until) expected.byTypeAndTime.push(r.id);
        if (r.type === 'DeliveryReceipt' && r.status === 'failed' && at >= failedSince) expected.failed++;
        if (r.kind === 'event') expected.latest = [...expected.latest, r.id].slice(-3);
      }
      writeSegment(dir, records);
      await breathe();
    }

    const reader = new EventStoreReader(dir);
    expect(reader.total).toBe(COUNT);
    const ids = (records: readonly StoredRecord[]): string[] => records.map((r) => r.id);

    const byNumber = reader.query({ number, kinds: ['event'], linkReceipts: true });
    expect(byNumber.length).toBeGreaterThan(0);
    expect(ids(byNumber)).toEqual(expected.byNumber);
    await breathe();

    const byMessage = reader.query({ messageIds: ['msg-4242'] });
    expect(ids(byMessage)).toEqual(expected.byMessage);
    expect(byMessage).toHaveLength(2);

    const byTypeAndTime = reader.query({ types: ['MessageReceived'], since, until });
    expect(byTypeAndTime.length).toBeGreaterThan(0);
    expect(ids(byTypeAndTime)).toEqual(expected.byTypeAndTime);
    await breathe();

    const failed = reader.query({ types: ['DeliveryReceipt'], since: failedSince }).filter((r) => r.status === 'failed');
    expect(expected.failed).toBeGreaterThan(0);
    expect(failed.length).toBe(expected.failed);

    expect(reader.get('dlv-999997')?.id).toBe('dlv-999997');
    expect(ids(latestRecords(reader, 3))).toEqual(expected.latest);
  }, 300_000);

  it('indexes lines past the index (a writer killed between its two writes) and skips a torn last line', async () => {
    const dir = tempStore();
    const writer = EventStoreWriter.open(dir);
    for (let i = 0; i < 5; i++) await writer.append(receipt(`d${i}`, `m${i}`, T0 + i));
    await writer.close();
    const index = readdirSync(dir).find((name) => name.endsWith('.idx'))!;
    truncateSync(join(dir, index), 40 * 2 + 7); // two entries and a torn one
    const data = join(dir, index.replace(/\.idx$/, '.ndjson'));
    appendFileSync(data, '{"id":"torn","kind":"ev');
    const reader = new EventStoreReader(dir);
    expect(reader.query({}).map((r) => r.id)).toEqual(['d0', 'd1', 'd2', 'd3', 'd4']);
    expect(reader.get('d4')?.messageId).toBe('m4');
    expect(recentIds(dir, 3)).toEqual(['d2', 'd3', 'd4']);
  });

  it("leaves a send's records out of the listener's dedupe window: they are not deliveries", async () => {
    const dir = tempStore();
    const writer = EventStoreWriter.open(dir);
    await writer.append(receipt('d0', 'm0', T0));
    for (let i = 0; i < 5; i++) await writer.append(sentRecord({ messageId: `s${i}`, from: '+15557770100', to: '+14155551001', body: 'Hi', at: new Date(T0 + 1 + i) }));
    await writer.close();
    expect(recentIds(dir, 3)).toEqual(['d0']);
  });

  it.each(['write', 'fsync'] as const)('starts a new segment past its size, and every segment is read (ack on %s)', async (ack) => {
    const dir = tempStore();
    const writer = EventStoreWriter.open(dir, { segmentRecords: 3, ack });
    // In two bursts, the second appended while the first one's sync may still run.
    const first = Array.from({ length: 4 }, (_, i) => writer.append(receipt(`d${i}`, 'm', T0 + i)));
    await new Promise<void>((resolve) => setImmediate(resolve));
    const second = Array.from({ length: 4 }, (_, i) => writer.append(receipt(`d${i + 4}`, 'm', T0 + i + 4)));
    await Promise.all([...first, ...second]);
    // Acknowledged means in the file, for either mode, before close().
    expect(new EventStoreReader(dir).total).toBe(8);
    await writer.close();
    expect(readdirSync(dir).filter((name) => name.endsWith('.ndjson'))).toHaveLength(3);
    expect(new EventStoreReader(dir).query({}).map((r) => r.id)).toEqual(['d0', 'd1', 'd2', 'd3', 'd4', 'd5', 'd6', 'd7']);
  });

  it('a writer that wrote nothing leaves no file', async () => {
    const dir = tempStore();
    await EventStoreWriter.open(dir).close();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('prunes whole old segments and rewrites one that straddles the time', async () => {
    const dir = tempStore();
    writeSegment(dir, [receipt('a', 'm', T0), receipt('b', 'm', T0 + 10)]);
    writeSegment(dir, [receipt('c', 'm', T0 + 20), receipt('d', 'm', T0 + 30)]);
    writeSegment(dir, [receipt('e', 'm', T0 + 40)]);
    const result = await pruneStore(dir, T0 + 30);
    expect(result).toEqual({ pruned: 3, kept: 2, busy: 0, untouched: [] });
    expect(new EventStoreReader(dir).query({}).map((r) => r.id)).toEqual(['d', 'e']);
  });

  it('leaves alone the segment a live writer still appends to', async () => {
    const dir = tempStore();
    const writer = EventStoreWriter.open(dir);
    await writer.append(receipt('old', 'm', T0));
    const result = await pruneStore(dir, T0 + 1000);
    expect(result).toEqual({ pruned: 0, kept: 1, busy: 1, untouched: [] });
    await writer.append(receipt('new', 'm', T0 + 2000));
    await writer.close();
    expect(new EventStoreReader(dir).query({}).map((r) => r.id)).toEqual(['old', 'new']);
  });

  it('a follower sees what any writer appends after it started', async () => {
    const dir = tempStore();
    const first = EventStoreWriter.open(dir);
    await first.append(receipt('before', 'm', T0));
    const follower = new StoreFollower(dir);
    expect(follower.poll()).toEqual([]);
    const second = EventStoreWriter.open(dir);
    await first.append(receipt('one', 'm', T0 + 1));
    await second.append(receipt('two', 'm', T0 + 2));
    expect(follower.poll().map((r) => r.id)).toEqual(['one', 'two']);
    expect(follower.poll()).toEqual([]);
    await Promise.all([first.close(), second.close()]);
  });

  it('a follower forgets the ids of events stored over 25 h before the newest (a sender retries for 24 h), and still drops a copy within that', async () => {
    const dir = tempStore();
    const follower = new StoreFollower(dir);
    const writer = EventStoreWriter.open(dir);
    const other = EventStoreWriter.open(dir);
    for (let i = 0; i < 50; i++) await writer.append(receipt(`d${i}`, 'm', T0 + i * 1000));
    expect(follower.poll()).toHaveLength(50);
    expect(follower.remembered).toBe(50);
    // A second listener stores a copy of d3 23 h later: still dropped.
    await other.append(receipt('d3', 'm', T0 + 23 * 3600_000));
    expect(follower.poll()).toEqual([]);
    // A day and more later, the early ids are forgotten: memory holds a day's ids, not all.
    await writer.append(receipt('late', 'm', T0 + 26 * 3600_000));
    expect(follower.poll().map((r) => r.id)).toEqual(['late']);
    expect(follower.remembered).toBe(1);
    await Promise.all([writer.close(), other.close()]);
  });

  it('finds every message of a send answer, for one recipient or several', () => {
    const at = new Date(T0);
    expect(sentMessagesIn({ messageId: 'm1', status: 'queued' }, '+1555', ['+1415'], 'hi', at)).toEqual([
      { messageId: 'm1', from: '+1555', to: '+1415', body: 'hi', at, status: 'queued' },
    ]);
    const several = sentMessagesIn(
      { messageId: 'm1', messages: [{ messageId: 'm1', to: '+1415', status: 'sent' }, { messageId: 'm2', to: '+1416', status: 'failed' }] },
      '+1555',
      ['+1415', '+1416'],
      'hi',
      at,
    );
    expect(several.map((m) => [m.messageId, m.to, m.status])).toEqual([
      ['m1', '+1415', 'sent'],
      ['m2', '+1416', 'failed'],
    ]);
    expect(sentMessagesIn({}, '+1555', ['+1415'], 'hi', at)).toEqual([]);
  });

  it('a lazy writer takes records without a promise each, writes them a thousand at a time, and the rest at close', async () => {
    const dir = tempStore();
    const writer = EventStoreWriter.open(dir, { lazy: true });
    const errors: unknown[] = [];
    const sent = (i: number): StoredRecord => sentRecord({ messageId: `m${i}`, from: '+15557770100', to: `+1415555${String(i).padStart(4, '0')}`, body: 'Hi', at: new Date(T0 + i) });
    for (let i = 0; i < 1000; i++) writer.add(sent(i), (error) => errors.push(error));
    // The thousandth record wrote the batch at once, before any timer.
    const data = readdirSync(dir).find((name) => name.endsWith('.ndjson'))!;
    expect(readFileSync(join(dir, data), 'utf8').split('\n').filter((line) => line !== '')).toHaveLength(1000);
    for (let i = 1000; i < 1010; i++) writer.add(sent(i), (error) => errors.push(error));
    await writer.close();
    expect(errors).toEqual([]);
    const ids = new EventStoreReader(dir).query({ kinds: ['sent'] }).map((r) => r.id);
    expect(ids).toHaveLength(1010);
    expect(new Set(ids).size).toBe(1010);
    writer.add(sent(2000), (error) => errors.push(error));
    expect(String(errors[0])).toMatch(/closed/);
  });

  it('refuses appends after close', async () => {
    const dir = tempStore();
    const writer = EventStoreWriter.open(dir);
    await writer.close();
    await expect(writer.append(receipt('x', 'm', T0))).rejects.toThrow(/closed/);
    expect(statSync(dir).isDirectory()).toBe(true);
  });
});

describe('a delivery stored twice (two listeners on one store)', () => {
  /** The same delivery as each listener stores it: the same id and body, its own time and headers. */
  function copy(id: string, at: number, listener: string, messageId = 'm1'): StoredRecord {
    return eventRecord({
      id,
      type: 'DeliveryReceipt',
      receivedAt: new Date(at),
      messageId,
      status: 'delivered',
      headers: { 'x-svc-delivery': id, 'x-listener': listener },
      raw: JSON.stringify({ messageId, status: 'delivered' }),
    });
  }

  it('is read once, as the copy stored first, by query, get, latestRecords and a follower', async () => {
    const dir = tempStore();
    const a = EventStoreWriter.open(dir);
    const b = EventStoreWriter.open(dir);
    const follower = new StoreFollower(dir);
    // The sender's first try reaches listener a, whose answer is lost; the retry reaches b.
    await a.append(copy('dlv-1', T0, 'a'));
    await a.append(copy('dlv-2', T0 + 1000, 'a'));
    await b.append(copy('dlv-3', T0 + 2000, 'b', 'm3'));
    await b.append(copy('dlv-1', T0 + 5000, 'b'));
    const reader = new EventStoreReader(dir);
    expect(reader.total).toBe(4);
    expect(reader.query({}).map((r) => r.id)).toEqual(['dlv-1', 'dlv-2', 'dlv-3']);
    expect(reader.query({ messageIds: ['m1'] }).map((r) => [r.id, r.headers?.['x-listener']])).toEqual([
      ['dlv-1', 'a'],
      ['dlv-2', 'a'],
    ]);
    // Received first before --since: the later copy does not make it show up after it.
    expect(reader.query({ since: T0 + 1 }).map((r) => r.id)).toEqual(['dlv-2', 'dlv-3']);
    expect(reader.get('dlv-1')).toMatchObject({ at: new Date(T0).toISOString(), headers: { 'x-listener': 'a' } });
    expect(latestRecords(reader, 2).map((r) => r.id)).toEqual(['dlv-2', 'dlv-3']);
    expect(follower.poll().map((r) => r.id)).toEqual(['dlv-1', 'dlv-2', 'dlv-3']);

    // Copies stored while following: one before it started, two at once, one a poll later.
    await a.append(copy('dlv-4', T0 + 6000, 'a'));
    await b.append(copy('dlv-3', T0 + 6500, 'b2', 'm3'));
    await b.append(copy('dlv-4', T0 + 7000, 'b'));
    expect(follower.poll().map((r) => r.id)).toEqual(['dlv-4']);
    await a.append(copy('dlv-4', T0 + 8000, 'a'));
    expect(follower.poll()).toEqual([]);
    await Promise.all([a.close(), b.close()]);
    const after = new EventStoreReader(dir);
    expect(after.query({ kinds: ['event'] }).map((r) => `${r.id}@${r.headers?.['x-listener']}`)).toEqual(['dlv-1@a', 'dlv-2@a', 'dlv-3@b', 'dlv-4@a']);
    expect(new StoreFollower(dir).poll()).toEqual([]);
  });

  it('is followed once when the copy stored first is older than the follower', async () => {
    const dir = tempStore();
    writeSegment(dir, [copy('dlv-1', T0, 'a')]);
    const follower = new StoreFollower(dir);
    const b = EventStoreWriter.open(dir);
    await b.append(copy('dlv-1', T0 + 5000, 'b'));
    await b.append(copy('dlv-2', T0 + 6000, 'b'));
    expect(follower.poll().map((r) => r.id)).toEqual(['dlv-2']);
    await b.close();
  });

  it('is written once by compaction and by a prune that rewrites both copies', async () => {
    const dir = tempStore();
    // Two closed segments, as two listeners that have stopped leave them (pid 0: no live writer).
    writeSegment(dir, [copy('dlv-1', T0 + 5000, 'b'), copy('dlv-3', T0 + 6000, 'b')], `seg-${String(T0).padStart(14, '0')}-0-b`);
    writeSegment(dir, [copy('dlv-0', T0 - 1000, 'a'), copy('dlv-1', T0, 'a'), copy('dlv-2', T0 + 1000, 'a')], `seg-${String(T0 + 1).padStart(14, '0')}-0-a`);
    const stored = (): string[] =>
      readdirSync(dir)
        .filter((name) => name.endsWith('.ndjson'))
        .flatMap((name) => readFileSync(join(dir, name), 'utf8').trimEnd().split('\n'))
        .map((line) => {
          const record = JSON.parse(line) as StoredRecord;
          return `${record.id}@${record.headers?.['x-listener']}`;
        })
        .sort();
    expect(compactStore(dir, { threshold: 0 })).toEqual({ merged: 2, written: 1 });
    expect(stored()).toEqual(['dlv-0@a', 'dlv-1@a', 'dlv-2@a', 'dlv-3@b']);
    expect(new EventStoreReader(dir).query({}).map((r) => r.id)).toEqual(['dlv-0', 'dlv-1', 'dlv-2', 'dlv-3']);

    const pruned = tempStore();
    writeSegment(pruned, [copy('dlv-1', T0 + 5000, 'b')], `seg-${String(T0).padStart(14, '0')}-0-b`);
    writeSegment(pruned, [copy('dlv-0', T0 - 1000, 'a'), copy('dlv-1', T0, 'a')], `seg-${String(T0 + 1).padStart(14, '0')}-0-a`);
    expect(await pruneStore(pruned, T0 - 500)).toEqual({ pruned: 1, kept: 1, busy: 0, untouched: [] });
    expect(new EventStoreReader(pruned).query({}).map((r) => `${r.id}@${r.headers?.['x-listener']}`)).toEqual(['dlv-1@a']);
    expect(new EventStoreReader(pruned).total).toBe(1);
  });
});

describe('compaction', () => {
  /** n small segments of 3 records each, as n sends would leave them (written and closed). */
  function smallSegments(dir: string, n: number): string[] {
    const ids: string[] = [];
    for (let s = 0; s < n; s++) {
      const records = [0, 1, 2].map((i) => receipt(`d${s}-${i}`, `m${s}`, T0 + s * 10 + i));
      ids.push(...records.map((r) => r.id));
      writeSegment(dir, records, `seg-${String(T0 + s).padStart(14, '0')}-0-s${s}`);
    }
    return ids;
  }
  const ids = (dir: string): string[] => new EventStoreReader(dir).query({}).map((r) => r.id);
  const files = (dir: string): string[] => readdirSync(dir).sort();

  it('merges small closed segments into one once there are more than the threshold, and reads the same', () => {
    const dir = tempStore();
    const all = smallSegments(dir, 5);
    expect(compactStore(dir, { threshold: 5 })).toEqual({ merged: 0, written: 0 });
    const follower = new StoreFollower(dir);
    expect(compactStore(dir, { threshold: 4 })).toEqual({ merged: 5, written: 1 });
    expect(files(dir).filter((name) => name.endsWith('.ndjson'))).toHaveLength(1);
    expect(ids(dir)).toEqual(all);
    expect(new EventStoreReader(dir).get('d3-1')?.messageId).toBe('m3');
    expect(new EventStoreReader(dir).query({ messageIds: ['m2'] }).map((r) => r.id)).toEqual(['d2-0', 'd2-1', 'd2-2']);
    // Nothing new was stored: a follower prints nothing.
    expect(follower.poll()).toEqual([]);
    expect(files(dir).some((name) => name.startsWith('tmp-') || name.endsWith('.replaces') || name === 'compact.lock')).toBe(false);
  });

  it('leaves the segment a live writer appends to', async () => {
    const dir = tempStore();
    smallSegments(dir, 3);
    const writer = EventStoreWriter.open(dir);
    await writer.append(receipt('live', 'm', T0 + 1000));
    expect(compactStore(dir, { threshold: 0 })).toEqual({ merged: 3, written: 1 });
    await writer.append(receipt('live-2', 'm', T0 + 1001));
    await writer.close();
    expect(ids(dir).slice(-2)).toEqual(['live', 'live-2']);
    expect(ids(dir)).toHaveLength(11);
  });

  it.each(['afterTemporary', 'afterReplaces', 'afterRename'] as const)('a crash %s loses nothing and duplicates nothing', (step) => {
    const dir = tempStore();
    const all = smallSegments(dir, 4);
    const crash = new Error(`crashed ${step}`);
    expect(() => compactStore(dir, { threshold: 0, steps: { [step]: () => { throw crash; } } })).toThrow(crash);
    // Read as the crash left it: every record once.
    expect(ids(dir)).toEqual(all);
    // The next compaction finishes or undoes it.
    recoverCompaction(dir);
    expect(ids(dir)).toEqual(all);
    compactStore(dir, { threshold: 0 });
    expect(ids(dir)).toEqual(all);
    expect(files(dir).filter((name) => name.endsWith('.ndjson'))).toHaveLength(1);
    expect(files(dir).some((name) => name.startsWith('tmp-') || name.endsWith('.replaces'))).toBe(false);
  });

  it('a prune cut short after the rename keeps each remaining record once', async () => {
    const dir = tempStore();
    const all = smallSegments(dir, 4);
    const crash = new Error('crashed');
    await expect(pruneStore(dir, T0 + 12, { afterRename: () => { throw crash; } })).rejects.toThrow(crash);
    const left = all.filter((id) => !/^d0-|^d1-[01]$/.test(id));
    expect(ids(dir)).toEqual(all.filter((id) => left.includes(id)));
    expect(await pruneStore(dir, T0 + 12)).toEqual({ pruned: 0, kept: left.length, busy: 0, untouched: [] });
    expect(ids(dir)).toEqual(all.filter((id) => left.includes(id)));
  });
});
