// CSV reading on the bulk-send path (`npm run bench:csv`), over one 100,000-row file read in
// 64 KiB chunks, alternated, medians of five:
//   recipients  src/send/recipients.ts's checkRecipientsFile (the shared reader below, with E.164 and duplicates)
//   shared      the shared reader src/input/csv.ts, with the same per-row work (E.164, a Set)
//   csv-parse   csv-parse (a dev dependency, kept for this comparison) fed the same chunks
//               synchronously through its Parser's chunk API, with the same per-row work
// It decided that the shared reader is our own scanner rather than csv-parse.
import { build } from 'esbuild';
import { mkdtempSync, rmSync, writeFileSync, createReadStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-csv-'));
// The bundle of the two readers sits where its libraries resolve from node_modules.
const bundle = join(root, 'node_modules', '.cache', 'svc-bench-csv.mjs');
try {
  await build({
    absWorkingDir: root,
    stdin: {
      contents:
        "export { checkRecipientsFile } from './src/send/recipients.ts'; export { createCsvReader } from './src/input/csv.ts'; export { isE164 } from './src/domain/api/patterns.ts'; export { Parser } from 'csv-parse';",
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    format: 'esm',
    platform: 'node',
    outfile: bundle,
    packages: 'external',
    logLevel: 'warning',
  });
  const { checkRecipientsFile, createCsvReader, isE164, Parser } = await import(pathToFileURL(bundle).href);
  const rows = 100_000;
  const lines = ['phone,name,order'];
  for (let i = 0; i < rows; i++) lines.push(`+1555${String(i).padStart(7, '0')},"Smith, Ann ${i}",A-${i}`);
  const file = join(dir, 'recipients.csv');
  writeFileSync(file, `${lines.join('\n')}\n`);

  const recipients = async () => {
    const result = await checkRecipientsFile(file, { maxReported: 10 });
    if (result.recipients !== rows) throw new Error(`recipients: ${result.recipients} rows`);
  };
  /** The per-row work of a send's check, given a function that feeds it records. */
  const withRowWork = async (what, read) => {
    let count = 0;
    let header = true;
    const seen = new Set();
    await read((fields) => {
      if (header) {
        header = false;
        return;
      }
      const to = fields[0];
      if (isE164(to) && !seen.has(to)) {
        seen.add(to);
        count++;
      }
    });
    if (count !== rows) throw new Error(`${what}: ${count} rows`);
  };
  const shared = () =>
    withRowWork('shared', async (row) => {
      const reader = createCsvReader(({ fields }) => row(fields));
      for await (const chunk of createReadStream(file, { encoding: 'utf8', highWaterMark: 64 * 1024 })) reader.push(chunk);
      reader.end();
    });
  const csvParse = () =>
    withRowWork('csv-parse', async (row) => {
      const options = { bom: true, trim: true, relax_column_count: true, skip_empty_lines: true, skip_records_with_empty_values: true, info: true };
      const parser = new Parser(options).api;
      const push = ({ record }) => row(record);
      for await (const chunk of createReadStream(file, { highWaterMark: 64 * 1024 })) parser.parse(chunk, false, push, () => {});
      parser.parse(undefined, true, push, () => {});
    });
  const time = async (fn) => {
    const start = process.hrtime.bigint();
    await fn();
    return Number(process.hrtime.bigint() - start) / 1e6;
  };
  const runs = { recipients, shared, 'csv-parse': csvParse };
  const times = {};
  for (const [name, run] of Object.entries(runs)) {
    await run();
    times[name] = [];
  }
  for (let i = 0; i < 5; i++) for (const [name, run] of Object.entries(runs)) times[name].push(await time(run));
  const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
  const base = median(times.recipients);
  for (const name of Object.keys(runs)) {
    const ms = median(times[name]);
    console.log(`${name.padEnd(11)} ${String(Math.round(ms)).padStart(6)} ms  ${(ms / base).toFixed(2)}x recipients  (${rows} rows)`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
  rmSync(bundle, { force: true });
}
