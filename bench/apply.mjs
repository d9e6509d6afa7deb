// Provisioning-as-code benchmark (`npm run bench:apply`): a fleet file of 10,000 numbers against
// the sandbox (`svc sandbox start`, its own process). After one apply that provisions them all
// (timed and reported), each round runs, alternated so that a noisy machine hurts all alike:
//   - a bare undici loop making the reads `svc diff` makes (the tenant list and every page of the
//     active list, 100 a page) at the same concurrency, from spawn to exit;
//   - `svc diff -f fleet.yaml` (exit 0, in sync);
//   - `svc apply -f fleet.yaml` with nothing to change (exit 0, reads only).
// Prints the throughput of each (numbers compared per second, whole process from spawn) and its
// ratio to the bare loop (target >= 0.8), and the peak RSS of `svc diff` on the 10,000-number file
// against a 100-number file (target <= 1.5x), with /usr/bin/time when present.
//
//   BENCH_ROUNDS (3), BENCH_NUMBERS (10000), BENCH_SMALL (100), BENCH_CONCURRENCY (8),
//   BENCH_FORMAT (yaml | json: the fleet file's format)
//
// Everything is on 127.0.0.1 and bounded in count and time.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const self = fileURLToPath(import.meta.url);
const bin = fileURLToPath(new URL('../bin/svc.js', import.meta.url));
const USER = 'sandbox@example.com';
const PASSWORD = 'sandbox';
const BIG_TENANT = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
const SMALL_TENANT = '9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const NUMBERS = Number(process.env.BENCH_NUMBERS ?? 10_000);
const SMALL = Number(process.env.BENCH_SMALL ?? 100);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const FORMAT = process.env.BENCH_FORMAT === 'json' ? 'json' : 'yaml';

if (process.argv[2] === '--bare') await bareLoop(process.argv[3], Number(process.argv[4]));
else await main();

/** The floor: undici's request() in a loop, `concurrency` at a time: the tenant list, then every page. */
async function bareLoop(apiUrl, concurrency) {
  const { Agent, request } = await import('undici');
  const agent = new Agent({ connections: concurrency });
  const headers = { authorization: `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`, accept: 'application/json' };
  const started = performance.now();
  const get = async (path) => {
    const answer = await request(`${apiUrl}${path}`, { dispatcher: agent, headers });
    if (answer.statusCode !== 200) throw new Error(`${path}: ${answer.statusCode}`);
    return answer.body.json();
  };
  const [, first] = await Promise.all([get('/tenants'), get('/phone-numbers/active?page=1&limit=100')]);
  let numbers = first.items.length;
  const pages = Math.ceil(first.total / first.limit);
  let next = 2;
  async function worker() {
    while (next <= pages) {
      const page = next++;
      const { items } = await get(`/phone-numbers/active?page=${page}&limit=100`);
      numbers += items.length;
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
  const ms = performance.now() - started;
  await agent.close();
  process.stdout.write(JSON.stringify({ numbers, ms }));
}

function run(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 900_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function fleetText(tenant, first, count) {
  if (FORMAT === 'json') {
    const numbers = [];
    for (let i = 0; i < count; i++) {
      numbers.push({ number: `+1555${first + i}`, tenant, type: 'SMS', class: 'P2P', description: `Line ${i}`, settings: { rateLimit: 5, autoResponse: { enabled: true, message: 'Back soon' } } });
    }
    return JSON.stringify({ version: 1, tenants: [{ tenantId: tenant, settings: { webhookEventType: 'All' } }], numbers }, null, 2);
  }
  const lines = ['version: 1', 'tenants:', `  - tenantId: ${tenant}`, '    settings:', '      webhookEventType: All', 'numbers:'];
  for (let i = 0; i < count; i++) {
    lines.push(
      `  - number: "+1555${first + i}"`,
      `    tenant: ${tenant}`,
      '    type: SMS',
      '    class: P2P',
      `    description: Line ${i}`,
      '    settings:',
      '      rateLimit: 5',
      '      autoResponse: {enabled: true, message: "Back soon"}',
    );
  }
  return `${lines.join('\n')}\n`;
}

function cpuAndRss(stderr) {
  const m = /PEAK_RSS_KB=(\d+) CPU_S=([\d.]+)\+([\d.]+)/.exec(stderr);
  return m ? { rssKb: Number(m[1]), cpu: Number(m[2]) + Number(m[3]) } : { rssKb: null, cpu: null };
}

async function cli(args, env, expectCode = 0) {
  const useTime = existsSync('/usr/bin/time');
  const started = performance.now();
  const result = useTime
    ? await run('/usr/bin/time', ['-f', 'PEAK_RSS_KB=%M CPU_S=%U+%S', process.execPath, bin, ...args], { env })
    : await run(process.execPath, [bin, ...args], { env });
  const ms = performance.now() - started;
  if (result.code !== expectCode) throw new Error(`svc ${args.join(' ')} exited ${result.code}: ${result.stderr.slice(-2000)}`);
  return { ms, stdout: result.stdout, ...cpuAndRss(result.stderr) };
}

async function bare(apiUrl) {
  const started = performance.now();
  const args = [self, '--bare', apiUrl, String(CONCURRENCY)];
  const result = existsSync('/usr/bin/time')
    ? await run('/usr/bin/time', ['-f', 'PEAK_RSS_KB=%M CPU_S=%U+%S', process.execPath, ...args])
    : await run(process.execPath, args);
  const ms = performance.now() - started;
  if (result.code !== 0) throw new Error(`the bare loop exited ${result.code}: ${result.stderr.slice(-2000)}`);
  return { ...JSON.parse(result.stdout), ms, ...cpuAndRss(result.stderr) };
}

function median(values) {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
}

async function startSandbox(dir) {
  const child = spawn(process.execPath, [bin, 'sandbox', 'start', '--port', '0', '--order-delay', '50'], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_CONFIG_DIR: dir } });
  const url = await new Promise((resolve, reject) => {
    let text = '';
    // The banner goes to stderr (stdout is for data).
    child.stderr.on('data', (c) => {
      text += c;
      const m = /running at (http:\/\/127\.0\.0\.1:\d+)/.exec(text);
      if (m) resolve(m[1]);
    });
    child.on('close', (code) => reject(new Error(`the sandbox exited ${code}`)));
  });
  return { url, stop: () => child.kill('SIGINT') };
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-apply-'));
  const sandbox = await startSandbox(dir);
  try {
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, SVC_BASE_URL: sandbox.url, SVC_USERNAME: USER, SVC_PASSWORD: PASSWORD, SVC_CONFIG_DIR: dir, SVC_DATA_DIR: join(dir, 'data'), SVC_ORDER_POLL_MS: '100' };
    const big = join(dir, `fleet.${FORMAT}`);
    const small = join(dir, `small.${FORMAT}`);
    writeFileSync(big, fleetText(BIG_TENANT, 2_000_000, NUMBERS));
    writeFileSync(small, fleetText(SMALL_TENANT, 3_000_000, SMALL));
    const concurrency = ['--concurrency', String(CONCURRENCY)];

    const provision = await cli(['apply', '-f', big, ...concurrency], env);
    await cli(['apply', '-f', small, ...concurrency], env);
    console.log(`first apply of ${NUMBERS} numbers (${Math.ceil(NUMBERS / 100)} orders, provisioned and waited for): ${(provision.ms / 1000).toFixed(1)} s`);

    const rows = { bare: [], diff: [], apply: [], diffSmall: [] };
    for (let round = 0; round < ROUNDS; round++) {
      const b = await bare(`${sandbox.url}/api/v1`);
      if (b.numbers !== NUMBERS + SMALL) throw new Error(`the bare loop read ${b.numbers} numbers, not ${NUMBERS + SMALL}`);
      rows.bare.push(b);
      const d = await cli(['diff', '-f', big, '--exit-code', ...concurrency], env);
      if (!d.stdout.startsWith('No changes')) throw new Error(`diff found changes: ${d.stdout.slice(0, 500)}`);
      rows.diff.push(d);
      const a = await cli(['apply', '-f', big, ...concurrency], env);
      if (!a.stdout.startsWith('No changes')) throw new Error(`apply changed something: ${a.stdout.slice(0, 500)}`);
      rows.apply.push(a);
      rows.diffSmall.push(await cli(['diff', '-f', small, '--exit-code', ...concurrency], env));
    }
    const rate = (ms) => (NUMBERS * 1000) / ms;
    const bareRate = median(rows.bare.map((r) => rate(r.ms)));
    const bareCpu = rows.bare[0].cpu === null ? null : median(rows.bare.map((x) => x.cpu));
    const line = (name, list) => {
      const r = median(list.map((x) => rate(x.ms)));
      const own = list[0].cpu === null ? null : median(list.map((x) => x.cpu));
      // CPU time (user + system) is steadier than wall time on a loaded machine: its ratio too.
      const cpu = own === null ? '' : `, CPU ${own.toFixed(2)} s${bareCpu === null ? '' : ` (the loop's ${(bareCpu / own).toFixed(2)}x)`}`;
      return `${name.padEnd(26)} ${Math.round(r).toString().padStart(7)} numbers/s  ${(r / bareRate).toFixed(2)}x the bare loop${cpu}`;
    };
    console.log(`\n${NUMBERS} numbers in one ${FORMAT.toUpperCase()} file, concurrency ${CONCURRENCY}, median of ${ROUNDS} rounds (whole processes, from spawn):`);
    console.log(`${'bare undici loop'.padEnd(26)} ${Math.round(bareRate).toString().padStart(7)} numbers/s  (the same ${Math.ceil((NUMBERS + SMALL) / 100) + 1} reads${bareCpu === null ? '' : `, CPU ${bareCpu.toFixed(2)} s`})`);
    console.log(`${line('svc diff', rows.diff)}   (target >= 0.8x)`);
    console.log(`${line('svc apply (no change)', rows.apply)}   (target >= 0.8x)`);
    const rssBig = median(rows.diff.map((r) => r.rssKb ?? 0));
    const rssSmall = median(rows.diffSmall.map((r) => r.rssKb ?? 0));
    if (rssBig > 0 && rssSmall > 0) {
      console.log(`peak RSS of svc diff: ${(rssBig / 1024).toFixed(1)} MB at ${NUMBERS} numbers, ${(rssSmall / 1024).toFixed(1)} MB at ${SMALL}: ${(rssBig / rssSmall).toFixed(2)}x (target <= 1.5x)`);
    } else {
      console.log('peak RSS: /usr/bin/time is not installed, not measured');
    }
  } finally {
    sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
