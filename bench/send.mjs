// Bulk send benchmark (`npm run bench:send`): the built CLI sends to 10,000 recipients of a CSV
// file through a loopback server, and a bare undici loop posts the same requests at the same
// concurrency to the same server, in the same run, alternated so that a noisy machine hurts both
// alike. Prints both throughputs and their ratio (target >= 0.8), the cost of the write-ahead
// journal (the same send without --journal), then the CLI's peak RSS for
// 10,000 and 100,000 recipients (target: within 20%).
//
// The server and the bare loop each run in their own process, as the CLI does, so that no client
// shares an event loop with the server. Everything is on 127.0.0.1 and bounded in count and time.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const self = fileURLToPath(import.meta.url);
const bin = fileURLToPath(new URL('../bin/svc.js', import.meta.url));
const FROM = '+15551230000';
const BODY = 'Hello {{name}}, your order has shipped.';
const USER = 'bench@example.com';
const PASSWORD = 'bench-password';

const role = process.argv[2];
if (role === '--serve') await serve();
else if (role === '--bare') await bareLoop(process.argv[3], process.argv[4], Number(process.argv[5]));
else await main();

/** The loopback service: answers every send 202 with a queued message, and counts them. */
async function serve() {
  let count = 0;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      count++;
      res.writeHead(202, { 'content-type': 'application/json' });
      res.end(`{"messageId":"m-${count}","status":"queued","queuedAt":"2026-01-01T00:00:00Z"}`);
    });
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
  process.stdin.on('data', () => process.stdout.write(`${count}\n`));
  process.stdin.on('end', () => server.close(() => process.exit(0)));
}

/** The floor: undici's request() in a loop, `concurrency` at a time, the same bodies and headers. */
async function bareLoop(url, file, concurrency) {
  const { Agent, request } = await import('undici');
  const agent = new Agent();
  const rows = readFileSync(file, 'utf8').trim().split('\n').slice(1).map((line) => line.split(','));
  const authorization = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;
  const target = `${url}/api/v1/messages?isAsync=true`;
  let next = 0;
  let ok = 0;
  const started = performance.now();
  async function worker() {
    while (next < rows.length) {
      const [phone, name] = rows[next++];
      const body = JSON.stringify({ from: FROM, to: [phone], body: BODY.replace('{{name}}', name) });
      const answer = await request(target, {
        method: 'POST',
        dispatcher: agent,
        headers: { authorization, accept: 'application/json', 'content-type': 'application/json' },
        body,
      });
      const data = await answer.body.json();
      if (answer.statusCode < 300 && data.messageId) ok++;
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
  const ms = performance.now() - started;
  await agent.close();
  process.stdout.write(JSON.stringify({ ok, ms }));
}

function run(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function writeRecipients(dir, count) {
  const path = join(dir, `to-${count}.csv`);
  const lines = ['phone,name'];
  for (let i = 0; i < count; i++) lines.push(`+1555${String(2000000 + i).padStart(7, '0')},Person${i}`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** Runs the CLI send; wall time of the whole process (start-up and the file check included), and its peak RSS. */
async function cliSend(url, file, concurrency, dir, withJournal = true) {
  const journal = join(dir, `journal-${Date.now()}-${Math.random().toString(36).slice(2)}.jsonl`);
  const args = ['send', '--from', FROM, '--to-file', file, '--body', BODY, '--async', '--concurrency', String(concurrency), ...(withJournal ? ['--journal', journal] : []), '-o', 'ndjson'];
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, SVC_BASE_URL: url, SVC_USERNAME: USER, SVC_PASSWORD: PASSWORD, SVC_CONFIG_DIR: dir };
  const useTime = existsSync('/usr/bin/time');
  // The results go to a file, as a user who keeps them would send them: read through a pipe by
  // this process, they would cost a third process CPU time on a two-core machine during the run.
  const outPath = join(dir, `out-${Date.now()}.ndjson`);
  const out = openSync(outPath, 'w');
  const stdio = ['ignore', out, 'pipe'];
  const started = performance.now();
  const result = useTime
    ? await run('/usr/bin/time', ['-f', 'PEAK_RSS_KB=%M', process.execPath, bin, ...args], { env, stdio })
    : await run(process.execPath, [bin, ...args], { env, stdio });
  const ms = performance.now() - started;
  closeSync(out);
  if (result.code !== 0) throw new Error(`the CLI exited ${result.code}: ${result.stderr.slice(-2000)}`);
  const lines = readFileSync(outPath, 'utf8').trim().split('\n').length;
  rmSync(outPath, { force: true });
  const rss = /PEAK_RSS_KB=(\d+)/.exec(result.stderr);
  const journalBytes = withJournal && existsSync(journal) ? statSync(journal).size : 0;
  rmSync(journal, { force: true });
  return { ok: lines, ms, peakRssKb: rss ? Number(rss[1]) : null, journalBytes };
}

async function main() {
  const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 8);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
  const small = Number(process.env.BENCH_RECIPIENTS ?? 10_000);
  const large = Number(process.env.BENCH_LARGE ?? 100_000);
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-send-'));
  const server = spawn(process.execPath, [self, '--serve'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise((resolve) => server.stdout.once('data', (c) => resolve(Number(String(c).trim()))));
  const url = `http://127.0.0.1:${port}`;
  try {
    const file = writeRecipients(dir, small);
    // Warm-up of both clients (and the server's JIT), not counted.
    await run(process.execPath, [self, '--bare', url, file, String(concurrency)]);
    const cli = [];
    const noJournal = [];
    const bare = [];
    for (let round = 0; round < rounds; round++) {
      const bareStarted = performance.now();
      const b = JSON.parse((await run(process.execPath, [self, '--bare', url, file, String(concurrency)])).stdout);
      const bareWallMs = performance.now() - bareStarted;
      if (b.ok !== small) throw new Error(`the bare loop got ${b.ok} answers of ${small}`);
      bare.push({ rate: (b.ok * 1000) / bareWallMs, loopRate: (b.ok * 1000) / b.ms });
      const c = await cliSend(url, file, concurrency, dir);
      if (c.ok !== small) throw new Error(`the CLI printed ${c.ok} results of ${small}`);
      cli.push({ rate: (c.ok * 1000) / c.ms, rss: c.peakRssKb, journalBytes: c.journalBytes });
      const n = await cliSend(url, file, concurrency, dir, false);
      if (n.ok !== small) throw new Error(`the CLI printed ${n.ok} results of ${small}`);
      noJournal.push({ rate: (n.ok * 1000) / n.ms });
    }
    const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    const cliRate = median(cli.map((c) => c.rate));
    const bareRate = median(bare.map((b) => b.rate));
    const bareLoopRate = median(bare.map((b) => b.loopRate));
    const ratio = cliRate / bareRate;
    // Both sides are timed the same way, as whole processes from spawn to exit: a user runs a
    // process, and the bare loop also has to start node, load undici and read the file. The bare
    // loop's own timing of its loop alone is printed too, as the strictest floor.
    console.log(`bulk send of ${small} recipients, concurrency ${concurrency}, ${rounds} rounds (medians):`);
    console.log(`  bare undici loop  ${bareRate.toFixed(0)} requests/s (whole process; ${bareLoopRate.toFixed(0)} requests/s counting its loop alone)`);
    console.log(`  svc send          ${cliRate.toFixed(0)} requests/s (whole process: start-up, file check, journal, output)`);
    console.log(`  ratio             ${ratio.toFixed(2)} (target >= 0.80) ${ratio >= 0.8 ? 'OK' : 'BELOW TARGET'}; against the loop alone ${(cliRate / bareLoopRate).toFixed(2)}`);
    // The write-ahead journal: a launch record before each request leaves (one write per launch
    // window) and a result record after its answer, each with its CRC-32.
    const noJournalRate = median(noJournal.map((n) => n.rate));
    const journalBytes = median(cli.map((c) => c.journalBytes));
    console.log(`  without --journal ${noJournalRate.toFixed(0)} requests/s: the write-ahead journal costs ${((1 - cliRate / noJournalRate) * 100).toFixed(1)}% of throughput (${(journalBytes / small).toFixed(0)} bytes a recipient)`);

    const largeFile = writeRecipients(dir, large);
    const big = await cliSend(url, largeFile, concurrency, dir);
    if (big.ok !== large) throw new Error(`the CLI printed ${big.ok} results of ${large}`);
    const smallRss = median(cli.map((c) => c.rss ?? 0));
    console.log(`peak RSS of svc send:`);
    if (big.peakRssKb === null) {
      console.log('  /usr/bin/time is not available: peak RSS not measured');
    } else {
      const growth = big.peakRssKb / smallRss - 1;
      console.log(`  ${small} recipients   ${(smallRss / 1024).toFixed(1)} MB`);
      console.log(`  ${large} recipients  ${(big.peakRssKb / 1024).toFixed(1)} MB (${(big.ok * 1000 / big.ms).toFixed(0)} requests/s)`);
      console.log(`  growth            ${(growth * 100).toFixed(1)}% (target within 20%) ${Math.abs(growth) <= 0.2 ? 'OK' : 'ABOVE TARGET'}`);
    }
  } finally {
    server.stdin.end();
    rmSync(dir, { recursive: true, force: true });
  }
}
