import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pruneStore } from '../../../src/events/store/compact.js';
import { eventRecord } from '../../../src/events/records.js';
import { EventStoreReader, latestRecords } from '../../../src/events/store/reader.js';
import { EventStoreWriter } from '../../../src/events/store/writer.js';
import type { StoredRecord } from '../../../src/events/store/record.js';
import { runCli } from '../../helpers/cli.js';

// The data file is the truth: a segment edited by hand (as people are invited to read them with
// cat, grep and jq) must not hide the events after the edit, and a line that is not a record is
// named, not skipped in silence.

const dirs: string[] = [];
function tempStore(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-index-trust-'));
  dirs.push(dir);
  return join(dir, 'events');
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const T0 = Date.parse('2026-01-01T00:00:00Z');

function receipt(n: number): StoredRecord {
  const id = `d${String(n).padStart(3, '0')}`;
  return eventRecord({
    id,
    type: 'DeliveryReceipt',
    receivedAt: new Date(T0 + n * 1000),
    messageId: `m${n}`,
    status: 'delivered',
    headers: { 'x-svc-delivery': id },
    raw: JSON.stringify({ messageId: `m${n}`, status: 'delivered' }),
  });
}

/** A store of `count` receipts in one segment whose writer has exited (so a reader may rewrite its index). */
async function storeOf(count: number): Promise<{ dir: string; data: string; ids: string[] }> {
  const dir = tempStore();
  const writer = EventStoreWriter.open(dir);
  const records = Array.from({ length: count }, (_, i) => receipt(i));
  await Promise.all(records.map((record) => writer.append(record)));
  await writer.close();
  // Named as the segment of a process that no longer runs.
  const gone = spawnSync(process.execPath, ['-e', '0']).pid!;
  const name = readdirSync(dir).find((file) => file.endsWith('.ndjson'))!;
  const base = name.slice(0, -'.ndjson'.length);
  const parts = base.split('-');
  parts[2] = String(gone);
  const renamed = parts.join('-');
  renameSync(join(dir, `${base}.ndjson`), join(dir, `${renamed}.ndjson`));
  renameSync(join(dir, `${base}.idx`), join(dir, `${renamed}.idx`));
  return { dir, data: join(dir, `${renamed}.ndjson`), ids: records.map((record) => record.id) };
}

function editLines(path: string, edit: (lines: string[]) => string[]): void {
  const lines = readFileSync(path, 'utf8').split('\n').slice(0, -1);
  writeFileSync(path, edit(lines).map((line) => `${line}\n`).join(''));
}

function readerWithNotices(dir: string): { reader: EventStoreReader; notices: string[] } {
  const notices: string[] = [];
  return { reader: new EventStoreReader(dir, { notice: (message) => notices.push(message) }), notices };
}

describe('a reader that trusts the data, not the index', () => {
  it('lists every event after a line deleted with sed, says so once, and writes the index anew', async () => {
    const { dir, data, ids } = await storeOf(40);
    editLines(data, (lines) => lines.filter((_, i) => i !== 10));
    const expected = ids.filter((_, i) => i !== 10);

    const first = readerWithNotices(dir);
    expect(first.reader.query({}).map((r) => r.id)).toEqual(expected);
    expect(first.reader.query({ kinds: ['event'] }).map((r) => r.id)).toEqual(expected);
    expect(first.reader.get('d039')?.id).toBe('d039');
    expect(first.notices).toHaveLength(1);
    expect(first.notices[0]).toContain(data);
    expect(first.notices[0]).toContain('nothing is lost');

    // The index was written from the data: the next reader neither rebuilds nor warns.
    const second = readerWithNotices(dir);
    expect(second.reader.query({}).map((r) => r.id)).toEqual(expected);
    expect(latestRecords(second.reader, 3).map((r) => r.id)).toEqual(['d037', 'd038', 'd039']);
    expect(second.notices).toEqual([]);
  });

  it('names a line that is not a record (file and line) and lists every other event', async () => {
    const { dir, data, ids } = await storeOf(12);
    editLines(data, (lines) => lines.map((line, i) => (i === 4 ? 'this line was typed by hand' : line)));
    const { reader, notices } = readerWithNotices(dir);
    expect(reader.query({}).map((r) => r.id)).toEqual(ids.filter((_, i) => i !== 4));
    expect(notices.some((notice) => notice.includes(`${data}:5`) && notice.includes('not an event record'))).toBe(true);
    // Told once per reader, however many queries it answers.
    reader.query({ types: ['DeliveryReceipt'] });
    expect(notices.filter((notice) => notice.includes('not an event record'))).toHaveLength(1);
  });

  it('catches an edit that keeps the file length, which the checks at load do not read, when it reads the line', async () => {
    const { dir, data, ids } = await storeOf(100);
    // Entry 50 is not one of those checked at load (the last, then every sixth back from it).
    editLines(data, (lines) => lines.map((line, i) => (i === 50 ? line.replace('"d050"', '"x050"') : line)));
    const { reader, notices } = readerWithNotices(dir);
    const listed = reader.query({}).map((r) => r.id);
    expect(listed).toEqual(ids.map((id) => (id === 'd050' ? 'x050' : id)));
    expect(reader.get('x050')?.id).toBe('x050');
    expect(notices).toHaveLength(1);
  });

  it('keeps the records a data file still holds when its index has entries past its end (a power cut)', async () => {
    const { dir, data, ids } = await storeOf(20);
    const bytes = readFileSync(data);
    // Cut in the middle of the 16th line: 15 whole lines stay, the torn one was never acknowledged.
    let newlines = 0;
    let cut = 0;
    for (let i = 0; i < bytes.length && newlines < 15; i++) if (bytes[i] === 10) (newlines++, (cut = i + 1));
    truncateSync(data, cut + 10);
    const { reader, notices } = readerWithNotices(dir);
    expect(reader.query({}).map((r) => r.id)).toEqual(ids.slice(0, 15));
    expect(notices.some((notice) => notice.includes('not an event record'))).toBe(false);
  });

  it('prune leaves whole a segment that holds lines that are not records, and says so', async () => {
    const { dir, data } = await storeOf(5);
    editLines(data, (lines) => [...lines, 'a note someone kept here']);
    const result = await pruneStore(dir, T0 + 60_000);
    expect(result.pruned).toBe(0);
    expect(result.untouched).toEqual([data]);
    expect(readFileSync(data, 'utf8')).toContain('a note someone kept here');
  });

  it('svc events list shows every event after a hand edit and warns on stderr once', async () => {
    const { dir, data, ids } = await storeOf(30);
    editLines(data, (lines) => lines.filter((_, i) => i !== 3));
    const result = await runCli(['events', 'list', '--store', dir, '--json'], {});
    expect(result.code, result.stderr).toBe(0);
    const listed = (JSON.parse(result.stdout) as { id: string }[]).map((event) => event.id);
    expect([...listed].sort()).toEqual(ids.filter((_, i) => i !== 3).sort());
    expect(result.stderr.match(/did not match its data/g)).toHaveLength(1);
  });
});
