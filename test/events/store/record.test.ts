import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventRecord, keptHeaders, sentRecord } from '../../../src/events/records.js';
import { EventStoreReader } from '../../../src/events/store/reader.js';
import { EventStoreWriter } from '../../../src/events/store/writer.js';
import { eventLine, recordLine, type IncomingEvent, type StoredRecord } from '../../../src/events/store/record.js';

// The store's lines are built from their parts (no record object, no JSON.stringify of it on the
// listener's path); these tests hold them to the text JSON.stringify gives, which is what readers
// and every store written before expect.

function stringified(record: StoredRecord): string {
  return JSON.stringify({
    id: record.id,
    kind: record.kind,
    type: record.type,
    at: record.at,
    numbers: record.numbers,
    messageId: record.messageId,
    status: record.status,
    from: record.from,
    to: record.to,
    verified: record.verified,
    headers: record.headers,
    body: record.body,
  });
}

const AT = new Date('2026-03-04T05:06:07.089Z');
const tricky = ['plain', 'with "quotes" and \\ backslash', 'tab\there\nnewline', 'ünïcödé ✓ 😀', '\u0000\u001f\u007f', 'lone \ud800 surrogate', '\u2028\u2029', ''];

const incoming: IncomingEvent[] = [
  {
    id: 'dlv-1',
    type: 'MessageReceived',
    time: AT.getTime(),
    at: AT.toISOString(),
    from: '+14155551001',
    to: ['+15557770100'],
    messageId: 'm-1',
    headers: { 'content-type': 'application/json', 'x-svc-delivery': 'dlv-1', authorization: 'Basic c2VjcmV0', host: 'x', 'content-length': '10' },
    raw: '{"from":"+14155551001","tos":["+15557770100"],"message":"Hi \\"there\\""}',
  },
  { id: 'sha256:ab', type: 'unknown', time: AT.getTime(), at: AT.toISOString(), headers: {}, raw: '[1, 2]\n' },
  {
    id: 'dlv-3',
    type: 'DeliveryReceipt',
    time: AT.getTime(),
    at: AT.toISOString(),
    to: ['+1 (555) 777-0100', '+15550001111', '+15550002222'],
    messageId: 'm-3',
    status: 'failed',
    headers: { '1': 'integer-like name goes first', 'x-list': ['a', 'b'], cookie: 'c=1', 'x-gone': undefined, 'x-svc-delivery': 'dlv-3' },
    raw: '{"messageId":"m-3","status":"failed"}',
  },
  ...tricky.map((text, i) => ({
    id: `id-${text}`,
    type: text === '' ? 'OrderStatus' : 'unknown',
    time: AT.getTime(),
    at: AT.toISOString(),
    from: text,
    to: [text],
    messageId: text,
    status: text,
    headers: { [`x-${i}`]: text },
    raw: JSON.stringify({ text }),
  })),
  // From a listener that checks no signature, and from one that does.
  { id: 'dlv-unverified', type: 'OrderStatus', time: AT.getTime(), at: AT.toISOString(), verified: false, headers: { 'x-svc-delivery': 'dlv-unverified' }, raw: '{"orderId":7}' },
  { id: 'dlv-verified', type: 'OrderStatus', time: AT.getTime(), at: AT.toISOString(), verified: true, headers: {}, raw: '\uFEFF{"orderId":8}' },
];

function asRecord(event: IncomingEvent): StoredRecord {
  return eventRecord({
    id: event.id,
    type: event.type,
    receivedAt: new Date(event.time),
    from: event.from,
    to: event.to,
    messageId: event.messageId,
    status: event.status,
    verified: event.verified,
    headers: keptHeaders(event.headers),
    raw: event.raw,
  });
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('record lines', () => {
  it('are what JSON.stringify gives for the record, for events and sent messages alike', () => {
    const records = [
      ...incoming.map(asRecord),
      sentRecord({ messageId: 'm-9', from: '+15557770100', to: '+14155551001', body: 'Hello "you"\n', at: AT, status: 'queued' }),
      sentRecord({ messageId: 'm-10', from: '+15557770100', to: '+14155551001', body: '', at: AT.toISOString() }),
      ...tricky.map((text) => sentRecord({ messageId: text, from: text, to: text, body: text, at: AT })),
    ];
    for (const record of records) expect(recordLine(record)).toBe(stringified(record));
  });

  it("of a received event are the record's line, without building the record", () => {
    for (const event of incoming) expect(eventLine(event)).toBe(stringified(asRecord(event)));
    expect(eventLine(incoming[0]!)).not.toContain('authorization');
    expect(eventLine(incoming[0]!)).not.toContain('c2VjcmV0');
  });

  it('written by addEvent, read back and found by number, message and id like appended records', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'svc-line-')), 'events');
    dirs.push(join(dir, '..'));
    const writer = EventStoreWriter.open(dir);
    const outcomes: boolean[] = [];
    for (const event of incoming.slice(0, 3)) writer.addEvent(event, (failed) => outcomes.push(failed));
    await writer.append(asRecord({ ...incoming[0]!, id: 'dlv-appended' }));
    expect(outcomes).toEqual([false, false, false]);
    await writer.close();
    const name = readdirSync(dir).find((file) => file.endsWith('.ndjson'))!;
    const lines = readFileSync(join(dir, name), 'utf8').trimEnd().split('\n');
    expect(lines.slice(0, 3)).toEqual(incoming.slice(0, 3).map((event) => stringified(asRecord(event))));
    const reader = new EventStoreReader(dir);
    expect(reader.query({ number: '+15557770100' }).map((r) => r.id)).toEqual(['dlv-1', 'dlv-3', 'dlv-appended']);
    expect(reader.query({ messageIds: ['m-3'] }).map((r) => r.id)).toEqual(['dlv-3']);
    expect(reader.query({ types: ['unknown'] }).map((r) => r.id)).toEqual(['sha256:ab']);
    expect(reader.get('dlv-1')?.body).toBe(incoming[0]!.raw);
  });

  it('refuses an event after close, through its callback', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'svc-line-')), 'events');
    dirs.push(join(dir, '..'));
    const writer = EventStoreWriter.open(dir);
    await writer.close();
    const outcome = await new Promise<[boolean, unknown]>((resolve) => writer.addEvent(incoming[0]!, (failed, error) => resolve([failed, error])));
    expect(outcome[0]).toBe(true);
    expect(String(outcome[1])).toMatch(/closed/);
  });
});
