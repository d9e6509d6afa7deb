// Bulk send benchmark (`npm run bench:send`): the built CLI sends to 10,000 recipients of a CSV
// file through a loopback server, and a bare undici loop posts the same requests at the same
// concurrency to the same server, in the same run, alternated so that a noisy machine hurts both
// alike. Prints: the throughput ratio to the bare loop at 10,000 and 100,000 recipients
// (target >= 0.9 at both), the CLI's peak RSS at 10,000, 100,000 and 1,000,000 recipients (target:
// 1,000,000 within 1.2x of 10,000), the time from spawn to the first request at 1,000,000 rows,
// the cost of the write-ahead journal at 10,000 (the same send without --journal), and, when the
// sandbox has --rate-limit, the rate a send achieves under --rate-limit 2000 as a
// share of it (target >= 0.95) with 0 rejected.
// Each comparison also prints the CPU time (user + system, from /usr/bin/time) of both whole
// processes and its ratio: steadier than wall time when other work loads the machine.
//
//   BENCH_ROUNDS (5), BENCH_RECIPIENTS (10000), BENCH_LARGE (100000), BENCH_HUGE (1000000; 0 skips),
//   BENCH_CONCURRENCY (8), BENCH_RATE_LIMIT (2000), BENCH_RATED (10000 recipients under the limit; 0 skips),
//   BENCH_OPTOUTS (10000: the opt-out list every CLI send checks each recipient against; none of
//   its numbers is a recipient, so that both clients send the same requests; 0 for none)
//
// The server and the bare loop each run in their own process, as the CLI does, so that no client
// shares an event loop with the server. Everything is on 127.0.0.1 and bounded in count and time.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { crc32 } from 'node:zlib';
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
  let first = 0;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      if (count === 0) first = Date.now();
      count++;
      res.writeHead(202, { 'content-type': 'application/json' });
      res.end(`{"messageId":"m-${count}","status":"queued","queuedAt":"2026-01-01T00:00:00Z"}`);
    });
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
  // One command a line: `count`, `first` (epoch ms of the first request since the last reset), `reset`.
  let pending = '';
  process.stdin.on('data', (chunk) => {
    pending += chunk;
    let newline;
    while ((newline = pending.indexOf('\n')) !== -1) {
      const command = pending.slice(0, newline).trim();
      pending = pending.slice(newline + 1);
      if (command === 'reset') {
        count = 0;
        first = 0;
      }
      process.stdout.write(`${command === 'first' ? first : count}\n`);
    }
  });
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
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 180_000);
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

/**
 * The opt-out list of the sending number beside the event store the CLI sends into: `count`
 * people in another range than the recipients', each line sealed as the CLI seals it.
 */
function writeOptOuts(eventsDir, count) {
  if (count === 0) return;
  mkdirSync(eventsDir, { recursive: true });
  const lines = [];
  for (let i = 0; i < count; i++) {
    const text = JSON.stringify({ op: 'out', number: `+1444${String(2000000 + i).padStart(7, '0')}`, from: FROM, at: '2026-01-01T00:00:00.000Z', cause: 'import', by: 'bench' });
    lines.push(`${text.slice(0, -1)},"crc":"${crc32(text).toString(16).padStart(8, '0')}"}\n`);
  }
  writeFileSync(join(eventsDir, 'optouts.ndjson'), lines.join(''));
}

/** Runs the CLI send; wall time of the whole process (start-up and the file check included), and its peak RSS. */
async function cliSend(url, file, concurrency, dir, withJournal = true) {
  const journal = join(dir, `journal-${Date.now()}-${Math.random().toString(36).slice(2)}.jsonl`);
  const args = ['send', '--from', FROM, '--to-file', file, '--body', BODY, '--async', '--concurrency', String(concurrency), ...(withJournal ? ['--journal', journal] : []), '-o', 'ndjson', '--yes'];
  // The sent messages go to an event store in the bench's directory (the cost is the same), not
  // into the user's own store, which a million-recipient run would fill with 1.1 GB of records.
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, SVC_BASE_URL: url, SVC_USERNAME: USER, SVC_PASSWORD: PASSWORD, SVC_CONFIG_DIR: dir, SVC_DATA_DIR: join(dir, 'data') };
  const useTime = existsSync('/usr/bin/time');
  // The results go to a file, as a user who keeps them would send them: read through a pipe by
  // this process, they would cost a third process CPU time on a two-core machine during the run.
  const outPath = join(dir, `out-${Date.now()}.ndjson`);
  const out = openSync(outPath, 'w');
  const stdio = ['ignore', out, 'pipe'];
  const started = performance.now();
  const result = useTime
    ? await run('/usr/bin/time', ['-f', 'PEAK_RSS_KB=%M CPU_S=%U+%S', process.execPath, bin, ...args], { env, stdio, timeoutMs: 1_800_000 })
    : await run(process.execPath, [bin, ...args], { env, stdio, timeoutMs: 1_800_000 });
  const ms = performance.now() - started;
  closeSync(out);
  if (result.code !== 0) throw new Error(`the CLI exited ${result.code}: ${result.stderr.slice(-2000)}`);
  const lines = readFileSync(outPath, 'utf8').trim().split('\n').length;
  rmSync(outPath, { force: true });
  const rss = /PEAK_RSS_KB=(\d+)/.exec(result.stderr);
  const cpu = cpuSeconds(result.stderr);
  const journalBytes = withJournal && existsSync(journal) ? statSync(journal).size : 0;
  rmSync(journal, { force: true });
  return { ok: lines, ms, peakRssKb: rss ? Number(rss[1]) : null, journalBytes, cpu };
}

/** user + system CPU seconds of a process run under /usr/bin/time (CPU_S=U+S); null without it. */
function cpuSeconds(stderr) {
  const m = /CPU_S=([\d.]+)\+([\d.]+)/.exec(stderr);
  return m ? Number(m[1]) + Number(m[2]) : null;
}

function median(values) {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
}

function mb(kb) {
  return kb === null ? 'n/a' : `${(kb / 1024).toFixed(1)} MB`;
}

/** The bare loop, timed as a whole process from spawn to exit (as the CLI is). */
async function bareSend(url, file, concurrency, expected) {
  const started = performance.now();
  const args = [self, '--bare', url, file, String(concurrency)];
  const result = existsSync('/usr/bin/time')
    ? await run('/usr/bin/time', ['-f', 'CPU_S=%U+%S', process.execPath, ...args])
    : await run(process.execPath, args);
  const wallMs = performance.now() - started;
  if (result.code !== 0) throw new Error(`the bare loop exited ${result.code}: ${result.stderr.slice(-2000)}`);
  const b = JSON.parse(result.stdout);
  if (b.ok !== expected) throw new Error(`the bare loop got ${b.ok} answers of ${expected}`);
  return { rate: (b.ok * 1000) / wallMs, loopRate: (b.ok * 1000) / b.ms, cpu: cpuSeconds(result.stderr) };
}

/** `rounds` alternations of the bare loop and the CLI on one file: median rates, ratio, CLI peak RSS. */
async function compare(url, count, concurrency, rounds, dir, journalCost = false) {
  const file = writeRecipients(dir, count);
  const cli = [];
  const bare = [];
  const noJournal = [];
  for (let round = 0; round < rounds; round++) {
    bare.push(await bareSend(url, file, concurrency, count));
    const c = await cliSend(url, file, concurrency, dir);
    if (c.ok !== count) throw new Error(`the CLI printed ${c.ok} results of ${count}`);
    cli.push({ rate: (c.ok * 1000) / c.ms, rss: c.peakRssKb, journalBytes: c.journalBytes, cpu: c.cpu });
    if (journalCost) {
      const n = await cliSend(url, file, concurrency, dir, false);
      if (n.ok !== count) throw new Error(`the CLI printed ${n.ok} results of ${count}`);
      noJournal.push({ rate: (n.ok * 1000) / n.ms });
    }
  }
  rmSync(file, { force: true });
  const cliRate = median(cli.map((c) => c.rate));
  const bareRate = median(bare.map((b) => b.rate));
  const bareLoopRate = median(bare.map((b) => b.loopRate));
  const rss = cli.every((c) => c.rss !== null) ? median(cli.map((c) => c.rss)) : null;
  const noJournalRate = noJournal.length > 0 ? median(noJournal.map((n) => n.rate)) : undefined;
  const journalBytes = median(cli.map((c) => c.journalBytes));
  // CPU time (user + system) of each whole process: steadier than wall time on a loaded machine.
  const cpuRatio = cli.every((c) => c.cpu !== null) && bare.every((b) => b.cpu !== null) ? median(bare.map((b) => b.cpu)) / median(cli.map((c) => c.cpu)) : null;
  const cpu = cpuRatio === null ? null : { bare: median(bare.map((b) => b.cpu)), cli: median(cli.map((c) => c.cpu)), ratio: cpuRatio };
  return { count, rounds, cliRate, bareRate, bareLoopRate, ratio: cliRate / bareRate, rss, noJournalRate, journalBytes, cpu };
}

function printComparison(c, concurrency) {
  console.log(`bulk send of ${c.count} recipients, concurrency ${concurrency}, ${c.rounds} round${c.rounds === 1 ? '' : 's'} (medians):`);
  console.log(`  bare undici loop  ${c.bareRate.toFixed(0)} requests/s (whole process; ${c.bareLoopRate.toFixed(0)} requests/s counting its loop alone)`);
  console.log(`  svc send          ${c.cliRate.toFixed(0)} requests/s (whole process: start-up, file check, journal, output)`);
  console.log(`  ratio             ${c.ratio.toFixed(2)} (target >= 0.90) ${c.ratio >= 0.9 ? 'OK' : 'BELOW TARGET'}; against the loop alone ${(c.cliRate / c.bareLoopRate).toFixed(2)}`);
  if (c.cpu !== null) {
    console.log(`  CPU time          bare ${c.cpu.bare.toFixed(2)} s, svc send ${c.cpu.cli.toFixed(2)} s (user + system, whole processes): ratio ${c.cpu.ratio.toFixed(2)}`);
    // Per request, start-up included: hardware instruction counters are not available on every
    // machine (a VM often has none), CPU time is.
    console.log(`  CPU a request     bare ${((c.cpu.bare * 1e6) / c.count).toFixed(1)} µs, svc send ${((c.cpu.cli * 1e6) / c.count).toFixed(1)} µs (start-up included)`);
  }
  if (c.noJournalRate !== undefined) {
    // The write-ahead journal: a launch record before each request leaves (one write per launch
    // window) and a result record after its answer, each with its CRC-32.
    console.log(`  without --journal ${c.noJournalRate.toFixed(0)} requests/s: the write-ahead journal costs ${((1 - c.cliRate / c.noJournalRate) * 100).toFixed(1)}% of throughput (${(c.journalBytes / c.count).toFixed(0)} bytes a recipient)`);
  }
}

/** Asks the loopback server one command (see serve()) and returns the number it answers. */
function askServer(server, command) {
  return new Promise((resolve) => {
    server.stdout.once('data', (c) => resolve(Number(String(c).trim().split('\n')[0])));
    server.stdin.write(`${command}\n`);
  });
}

async function main() {
  const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 8);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
  const small = Number(process.env.BENCH_RECIPIENTS ?? 10_000);
  const large = Number(process.env.BENCH_LARGE ?? 100_000);
  const largeRounds = Number(process.env.BENCH_LARGE_ROUNDS ?? 2);
  const huge = Number(process.env.BENCH_HUGE ?? 1_000_000);
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-send-'));
  const optOuts = Number(process.env.BENCH_OPTOUTS ?? 10_000);
  writeOptOuts(join(dir, 'data', 'events'), optOuts);
  const server = spawn(process.execPath, [self, '--serve'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise((resolve) => server.stdout.once('data', (c) => resolve(Number(String(c).trim()))));
  const url = `http://127.0.0.1:${port}`;
  try {
    // Warm-up of both clients (and the server's JIT), not counted.
    const warmFile = writeRecipients(dir, small);
    await run(process.execPath, [self, '--bare', url, warmFile, String(concurrency)]);
    // Both sides are timed the same way, as whole processes from spawn to exit: a user runs a
    // process, and the bare loop also has to start node, load undici and read the file. The bare
    // loop's own timing of its loop alone is printed too, as the strictest floor.
    const atSmall = await compare(url, small, concurrency, rounds, dir, true);
    printComparison(atSmall, concurrency);
    const atLarge = await compare(url, large, concurrency, largeRounds, dir);
    printComparison(atLarge, concurrency);

    let atHuge;
    if (huge > 0) {
      const hugeFile = writeRecipients(dir, huge);
      await askServer(server, 'reset');
      const spawnedAt = Date.now();
      const c = await cliSend(url, hugeFile, concurrency, dir);
      const first = await askServer(server, 'first');
      if (c.ok !== huge) throw new Error(`the CLI printed ${c.ok} results of ${huge}`);
      atHuge = { rss: c.peakRssKb, rate: (c.ok * 1000) / c.ms, firstRequestMs: first - spawnedAt };
      rmSync(hugeFile, { force: true });
    }

    console.log('peak RSS of svc send (journal on):');
    if (atSmall.rss === null) {
      console.log('  /usr/bin/time is not available: peak RSS not measured');
    } else {
      console.log(`  ${String(small).padStart(9)} recipients  ${mb(atSmall.rss)}`);
      console.log(`  ${String(large).padStart(9)} recipients  ${mb(atLarge.rss)} (${((atLarge.rss / atSmall.rss - 1) * 100).toFixed(1)}%)`);
      if (atHuge !== undefined) {
        const growth = atHuge.rss / atSmall.rss;
        console.log(`  ${String(huge).padStart(9)} recipients  ${mb(atHuge.rss)} (${atHuge.rate.toFixed(0)} requests/s); ${growth.toFixed(2)}x of ${small} (target <= 1.20) ${growth <= 1.2 ? 'OK' : 'ABOVE TARGET'}`);
      }
    }
    if (atHuge !== undefined) {
      console.log(`time to the first request at ${huge} rows: ${(atHuge.firstRequestMs / 1000).toFixed(2)} s (spawn to the server seeing it; the whole file is checked first)`);
    }
    await ratedSandbox(dir);
  } finally {
    server.stdin.end();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A send of BENCH_RATED recipients to `svc sandbox start --rate-limit N` whose from-number has
 * settings.rateLimit N too (the CLI reads it and paces itself): the achieved rate, from the first
 * to the last answer as the journal times them, as a share of N; 0 rejected expected.
 */
async function ratedSandbox(dir) {
  const limit = Number(process.env.BENCH_RATE_LIMIT ?? 2000);
  const count = Number(process.env.BENCH_RATED ?? 10000);
  // A send to nobody is refused before it starts: 0 means the step is not wanted, not measured.
  if (count === 0) {
    console.log('rate-limited sandbox: skipped (BENCH_RATED=0)');
    return;
  }
  const help = await run(process.execPath, [bin, 'sandbox', 'start', '--help']);
  if (!help.stdout.includes('--rate-limit')) {
    console.log(`rate-limited sandbox: not measured (this build's sandbox has no --rate-limit)`);
    return;
  }
  const sandbox = spawn(process.execPath, [bin, 'sandbox', 'start', '--port', '0', '--json', '--order-delay', '20', '--rate-limit', String(limit)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SVC_CONFIG_DIR: dir },
  });
  const exited = new Promise((resolve) => sandbox.on('close', resolve));
  try {
    const summary = await new Promise((resolve, reject) => {
      let text = '';
      sandbox.stdout.on('data', (chunk) => {
        text += chunk;
        try {
          resolve(JSON.parse(text));
        } catch {
          // Not all of it yet.
        }
      });
      void exited.then((code) => reject(new Error(`the sandbox exited (${code}) before printing its address`)));
    });
    const apiUrl = summary.apiUrl;
    const auth = `Basic ${Buffer.from('sandbox@example.com:sandbox').toString('base64')}`;
    const call = async (method, path, body) => {
      const res = await fetch(`${apiUrl}${path}`, {
        method,
        headers: { Authorization: auth, ...(body ? { 'Content-Type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      const text = await res.text();
      if (res.status >= 300) throw new Error(`${method} ${path}: HTTP ${res.status} ${text}`);
      return text ? JSON.parse(text) : undefined;
    };
    const from = '+15557770100';
    const tenant = await call('POST', '/tenants', { domain: 'bench.example.com' });
    const order = await call('POST', '/phone-numbers/provision', {
      action: 'Provision',
      tenantId: tenant.tenantId,
      phoneNumbers: [{ number: from, messagingFeature: { provisionType: 'SMSMMS', provisionClass: 'P2P' } }],
    });
    for (let i = 0; (await call('GET', `/phone-numbers/orders/${order.orderId}`)).status !== 'Completed'; i++) {
      if (i > 400) throw new Error('the provisioning order did not complete');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await call('PUT', `/phone-numbers/${encodeURIComponent(from)}`, { settings: { rateLimit: limit } });
    const file = writeRecipients(dir, count);
    const journal = join(dir, 'rated.jsonl');
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, SVC_BASE_URL: new URL(apiUrl).origin, SVC_USERNAME: 'sandbox@example.com', SVC_PASSWORD: 'sandbox', SVC_CONFIG_DIR: dir, SVC_DATA_DIR: join(dir, 'data') };
    const result = await run(process.execPath, [bin, 'send', '--from', from, '--to-file', file, '--body', BODY, '--async', '--concurrency', '16', '--journal', journal, '-o', 'ndjson', '--yes'], { env });
    if (!existsSync(journal)) throw new Error(`the rated send exited ${result.code} without a journal: ${result.stderr.slice(-2000)}`);
    const answers = readFileSync(journal, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.outcome === 'accepted' || entry.outcome === 'rejected' || entry.outcome === 'unknown');
    const accepted = answers.filter((e) => e.outcome === 'accepted').length;
    const rejected = answers.filter((e) => e.outcome === 'rejected').length;
    const times = answers.map((e) => Date.parse(e.at)).filter((t) => Number.isFinite(t));
    const first = Math.min(...times);
    const last = Math.max(...times);
    const seconds = (last - first) / 1000;
    const rate = seconds > 0 ? (accepted - 1) / seconds : NaN;
    // The client's bucket starts full (half a second's worth, within the service's second): after
    // the first second, the rate is the steady one.
    const later = times.filter((t) => t >= first + 1000).length;
    const steady = last - first > 1500 ? (later - 1) / ((last - first - 1000) / 1000) : NaN;
    const retries = /(\d+) throttle retr/.exec(result.stderr)?.[1] ?? '0';
    console.log(`rate-limited sandbox (--rate-limit ${limit}, the number's rateLimit ${limit}), ${count} recipients:`);
    console.log(`  achieved          ${rate.toFixed(0)} messages/s = ${(rate / limit).toFixed(2)} of the limit (target >= 0.95) ${rate / limit >= 0.95 ? 'OK' : 'BELOW TARGET'}`);
    console.log(`  after 1 s         ${Number.isFinite(steady) ? `${steady.toFixed(0)} messages/s = ${(steady / limit).toFixed(2)} of the limit (the steady rate, without the opening burst)` : 'n/a (the send took under 1.5 s)'}`);
    console.log(`  outcomes          ${accepted} accepted, ${rejected} rejected (target 0), ${retries} throttle retries, exit ${result.code}`);
  } finally {
    sandbox.kill('SIGINT');
    await exited;
  }
}
