import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { generatedRecord, remoteNumber, type GenerateOptions } from '../../src/events/generate.js';
import { eventRecord, sentMessagesIn, sentRecord } from '../../src/events/records.js';
import {
  EventStoreReader,
  EventStoreWriter,
  latestRecords,
  pruneStore,
  recentIds,
  StoreFollower,
  writeSegment,
  type StoredRecord,
} from '../../src/events/store.js';

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

  it('answers queries over a generated store of 100,000 records exactly as a full scan does (1,000,000 in bench/events.mjs)', () => {
    const dir = tempStore();
    const options: GenerateOptions = { count: 100_000, start: T0, step: 1000, numbers: 5_003 };
    const all: StoredRecord[] = [];
    for (let part = 0; part < 4; part++) {
      const records: StoredRecord[] = [];
      for (let i = part * 25_000; i < (part + 1) * 25_000; i++) records.push(generatedRecord(i, options));
      writeSegment(dir, records);
      all.push(...records);
    }
    const reader = new EventStoreReader(dir);
    expect(reader.total).toBe(100_000);
    const ids = (records: readonly StoredRecord[]): string[] => records.map((r) => r.id);

    const number = remoteNumber(1234);
    const byNumber = reader.query({ number, kinds: ['event'], linkReceipts: true });
    const sentTo = new Set(all.filter((r) => r.kind === 'sent' && r.numbers.includes(number)).map((r) => r.messageId));
    const expectedByNumber = all.filter((r) => r.kind === 'event' && (r.numbers.includes(number) || (r.messageId !== undefined && sentTo.has(r.messageId))));
    expect(byNumber.length).toBeGreaterThan(0);
    expect(ids(byNumber)).toEqual(ids(expectedByNumber));

    const byMessage = reader.query({ messageIds: ['msg-4242'] });
    expect(ids(byMessage)).toEqual(ids(all.filter((r) => r.messageId === 'msg-4242')));
    expect(byMessage).toHaveLength(2);

    const since = T0 + 60_000 * 1000;
    const until = since + 3600 * 1000;
    const byTypeAndTime = reader.query({ types: ['MessageReceived'], since, until });
    expect(ids(byTypeAndTime)).toEqual(ids(all.filter((r) => r.type === 'MessageReceived' && Date.parse(r.at) >= since && Date.parse(r.at) < until)));
    expect(byTypeAndTime.length).toBeGreaterThan(0);

    const failed = reader.query({ types: ['DeliveryReceipt'], since: T0 + 75_000 * 1000 }).filter((r) => r.status === 'failed');
    expect(failed.length).toBe(all.filter((r) => r.type === 'DeliveryReceipt' && r.status === 'failed' && Date.parse(r.at) >= T0 + 75_000 * 1000).length);

    expect(reader.get('dlv-99997')?.id).toBe('dlv-99997');
    expect(ids(latestRecords(reader, 3))).toEqual(ids(all.filter((r) => r.kind === 'event').slice(-3)));
  }, 120_000);

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

  it('starts a new segment past its size, and every segment is read', async () => {
    const dir = tempStore();
    const writer = EventStoreWriter.open(dir, { segmentRecords: 3 });
    await Promise.all(Array.from({ length: 8 }, (_, i) => writer.append(receipt(`d${i}`, 'm', T0 + i))));
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
    expect(result).toEqual({ pruned: 3, kept: 2, busy: 0 });
    expect(new EventStoreReader(dir).query({}).map((r) => r.id)).toEqual(['d', 'e']);
  });

  it('leaves alone the segment a live writer still appends to', async () => {
    const dir = tempStore();
    const writer = EventStoreWriter.open(dir);
    await writer.append(receipt('old', 'm', T0));
    const result = await pruneStore(dir, T0 + 1000);
    expect(result).toEqual({ pruned: 0, kept: 1, busy: 1 });
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

  it('a writer that is not durable takes records without a promise each, writes them a thousand at a time, and the rest at close', async () => {
    const dir = tempStore();
    const writer = EventStoreWriter.open(dir, { durable: false });
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
