// Event store benchmark: a store of 1,000,000 records (sent messages, receipts, replies, order
// events) is generated, then queried the ways `svc events list` and `svc thread` query it: by
// number (with the receipts of messages sent to it), by message id, by type within a time range,
// and by id. Each query is timed in-process (median of 5, the indexes read afresh each time, as a
// new command would) and end to end through the CLI (`svc events list ...`, start-up included,
// median of 3).
// The results are checked against what the generator put in, so a fast wrong answer cannot pass.
//
//   BENCH_EVENTS   records in the store (default 1000000)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const COUNT = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const TARGET_MS = 1000;

const work = mkdtempSync(join(tmpdir(), 'svc-bench-events-'));
try {
  const lib = join(work, 'lib.mjs');
  await build({
    absWorkingDir: root,
    stdin: {
      contents: "export { EventStoreReader } from './src/events/store/reader.ts'; export { writeSegment } from './src/events/store/writer.ts'; export * from './src/events/generate.ts';",
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    format: 'esm',
    platform: 'node',
    outfile: lib,
    logLevel: 'warning',
  });
  const store = await import(pathToFileURL(lib).href);
  const dir = join(work, 'data', 'events');
  const T0 = Date.parse('2026-01-01T00:00:00Z');
  const STEP = 2000; // one record every 2 s: 1,000,000 records span 23 days
  const options = { count: COUNT, start: T0, step: STEP, numbers: 20_011 };

  const number = store.remoteNumber(4321);
  const since = T0 + Math.floor(COUNT / 2) * STEP;
  const until = since + 6 * 3600 * 1000;
  const queries = [
    ['number (with linked receipts)', { number, kinds: ['event'], linkReceipts: true }, ['--number', number]],
    ['message id', { messageIds: [`msg-${Math.floor(COUNT / 7)}`] }, ['--message', `msg-${Math.floor(COUNT / 7)}`]],
    ['type + 6 h time range', { types: ['MessageReceived'], since, until }, ['--type', 'MessageReceived', '--since', new Date(since).toISOString(), '--until', new Date(until).toISOString()]],
    ['type + number + time range', { types: ['DeliveryReceipt'], number, linkReceipts: true, since: T0, until: T0 + COUNT * STEP }, ['--type', 'DeliveryReceipt', '--number', number, '--since', new Date(T0).toISOString(), '--until', new Date(T0 + COUNT * STEP).toISOString()]],
  ];

  // What the generator put in, counted as it is written, for the checks (a record's sent message
  // always comes before its receipt).
  const sentTo = new Set();
  const matches = (query, r, kinds = query.kinds) => {
    const time = Date.parse(r.at);
    if (query.since !== undefined && time < query.since) return false;
    if (query.until !== undefined && time >= query.until) return false;
    if (kinds !== undefined && !kinds.includes(r.kind)) return false;
    if (query.types !== undefined && !query.types.includes(r.type)) return false;
    if (query.messageIds !== undefined && !query.messageIds.includes(r.messageId)) return false;
    if (query.number !== undefined && !r.numbers.includes(query.number) && !sentTo.has(r.messageId)) return false;
    return true;
  };
  const expected = queries.map(() => 0);
  const expectedEvents = queries.map(() => 0);
  let started = performance.now();
  const SEGMENT = 50_000;
  for (let first = 0; first < COUNT; first += SEGMENT) {
    const records = [];
    for (let i = first; i < Math.min(COUNT, first + SEGMENT); i++) {
      const r = store.generatedRecord(i, options);
      if (r.kind === 'sent' && r.numbers.includes(number)) sentTo.add(r.messageId);
      queries.forEach(([, query], q) => {
        if (matches(query, r)) expected[q]++;
        if (matches(query, r, ['event'])) expectedEvents[q]++;
      });
      records.push(r);
    }
    store.writeSegment(dir, records);
  }
  const generatedMs = performance.now() - started;

  console.log(`bench:events  ${COUNT.toLocaleString('en-US')} records generated in ${(generatedMs / 1000).toFixed(1)} s (${dir})`);
  let worst = 0;
  for (const [q, [name, query, flags]] of queries.entries()) {
    const times = [];
    let found = 0;
    for (let round = 0; round < 5; round++) {
      started = performance.now();
      found = new store.EventStoreReader(dir).query(query).length;
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    if (found !== expected[q]) throw new Error(`${name}: ${found} records found, ${expected[q]} expected`);
    // Through the CLI, start-up included: the median of 3 runs (one run on a shared machine is noise).
    const cliTimes = [];
    let cli;
    for (let round = 0; round < 3; round++) {
      started = performance.now();
      cli = spawnSync(process.execPath, [join(root, 'bin/svc.js'), 'events', 'list', '--store', dir, '-o', 'ndjson', ...flags], { encoding: 'utf8', maxBuffer: 1 << 28 });
      cliTimes.push(performance.now() - started);
      if (cli.status !== 0) throw new Error(`svc events list failed: ${cli.stderr}`);
    }
    const cliMs = cliTimes.sort((a, b) => a - b)[1];
    const cliLines = cli.stdout === '' ? 0 : cli.stdout.trimEnd().split('\n').length;
    const cliExpected = expectedEvents[q];
    if (cliLines !== cliExpected) throw new Error(`svc events list ${flags.join(' ')}: ${cliLines} lines, ${cliExpected} expected`);
    worst = Math.max(worst, times[2], cliMs);
    console.log(
      `  ${name.padEnd(30)} ${String(found).padStart(6)} found  query ${times[2].toFixed(0).padStart(5)} ms (median of 5)  svc events list ${cliMs.toFixed(0).padStart(5)} ms (median of 3)`,
    );
  }
  started = performance.now();
  const receiptId = `dlv-${Math.floor((COUNT - 3) / 3) * 3 + 1}`;
  const shown = new store.EventStoreReader(dir).get(receiptId);
  const getMs = performance.now() - started;
  if (shown?.id !== receiptId) throw new Error(`get by id found nothing for ${receiptId}`);
  console.log(`  ${'by id (events show)'.padEnd(30)} ${'1'.padStart(6)} found  query ${getMs.toFixed(0).padStart(5)} ms`);
  console.log(`  slowest: ${worst.toFixed(0)} ms (target < ${TARGET_MS} ms) ${worst < TARGET_MS ? 'OK' : 'OVER'}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
