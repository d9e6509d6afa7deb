// Sandbox benchmark: POST /messages on loopback at 50 concurrent keep-alive connections.
//
// The sandbox runs as users run it, `svc sandbox start --port 0` in its own process, and the load
// comes from another process (this script re-run with --load), so that neither the client's work
// nor its garbage collection is charged to the server or the other way round. On a 2-core machine
// each gets a core. The load is bounded by a request count and a time limit, loopback only.
//
//   BENCH_REQUESTS   measured requests (default 100000)
//   BENCH_SECONDS    time limit of the measured phase (default 30)
//   BENCH_WARMUP     warm-up requests, not measured (default 5000)
//   BENCH_ASYNC=1    send with ?isAsync=true (202) instead of the default synchronous send (200)
import { fork, spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';

const CONCURRENCY = 50;
const TARGET_RPS = 5000;
const AUTH = `Basic ${Buffer.from('sandbox@example.com:sandbox').toString('base64')}`;
const FROM = '+15557770100';

if (process.argv[2] === '--load') {
  await runLoad(JSON.parse(process.argv[3]));
} else {
  await runBenchmark();
}

async function runBenchmark() {
  const bin = fileURLToPath(new URL('../bin/svc.js', import.meta.url));
  const sandbox = spawn(process.execPath, [bin, 'sandbox', 'start', '--port', '0', '--json', '--order-delay', '20'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
  });
  let stderr = '';
  sandbox.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => sandbox.on('close', (code) => resolve(code)));
  try {
    const summary = await readSummary(sandbox, exited);
    const apiUrl = summary.apiUrl;
    await setUp(apiUrl);
    const options = {
      origin: new URL(apiUrl).origin,
      path: `/api/v1/messages${process.env.BENCH_ASYNC === '1' ? '?isAsync=true' : ''}`,
      requests: Number(process.env.BENCH_REQUESTS ?? 100_000),
      seconds: Number(process.env.BENCH_SECONDS ?? 30),
      warmup: Number(process.env.BENCH_WARMUP ?? 5_000),
    };
    const result = await new Promise((resolve, reject) => {
      const child = fork(fileURLToPath(import.meta.url), ['--load', JSON.stringify(options)], { stdio: 'inherit' });
      child.once('message', resolve);
      child.once('error', reject);
      child.once('exit', (code) => {
        if (code !== 0) reject(new Error(`the load process exited with ${code}`));
      });
    });
    // The server's own count, so that a fast figure cannot come from answers that stored nothing.
    const health = await call(apiUrl, 'GET', '/health');
    const stored = health.entries.find((e) => e.name === 'store')?.data?.messages;
    report(result, options, stored);
  } catch (error) {
    console.error(`bench:sandbox failed: ${error instanceof Error ? error.message : String(error)}`);
    if (stderr) console.error(stderr);
    process.exitCode = 1;
  } finally {
    sandbox.kill('SIGINT');
    await exited;
  }
}

/** The --json summary `sandbox start` prints once it listens. */
async function readSummary(child, exited) {
  let text = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      text += chunk;
      try {
        resolve(JSON.parse(text));
      } catch {
        // Not all of it yet.
      }
    });
    void exited.then((code) => reject(new Error(`the sandbox exited (${code}) before printing its address`)));
  });
}

async function call(apiUrl, method, path, body) {
  const res = await fetch(`${apiUrl}${path}`, {
    method,
    headers: { Authorization: AUTH, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: HTTP ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** A tenant without webhooks (so that no delivery traffic competes) and one active number. */
async function setUp(apiUrl) {
  const tenant = await call(apiUrl, 'POST', '/tenants', { domain: 'bench.example.com' });
  const order = await call(apiUrl, 'POST', '/phone-numbers/provision', {
    action: 'Provision',
    tenantId: tenant.tenantId,
    phoneNumbers: [{ number: FROM, messagingFeature: { provisionType: 'SMSMMS', provisionClass: 'P2P' } }],
  });
  for (let i = 0; i < 200; i++) {
    const now = await call(apiUrl, 'GET', `/phone-numbers/orders/${order.orderId}`);
    if (now.status === 'Completed') return;
    if (now.status === 'Failed') throw new Error('provisioning the bench number failed');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('the provisioning order did not complete');
}

async function runLoad(options) {
  const { Pool } = await import('undici');
  const pool = new Pool(options.origin, { connections: CONCURRENCY, pipelining: 1, keepAliveTimeout: 60_000 });
  const headers = { authorization: AUTH, 'content-type': 'application/json' };
  let sequence = 0;
  const bodyFor = () => {
    sequence += 1;
    const recipient = `+1555888${String(sequence % 10_000).padStart(4, '0')}`;
    return JSON.stringify({ from: FROM, to: [recipient], body: `Bench message ${sequence}: your code is ${sequence % 1_000_000}` });
  };

  /** Runs `count` requests over CONCURRENCY loops (or until `deadline`); latencies in ms. */
  async function phase(count, deadline) {
    const latencies = new Float64Array(count);
    let issued = 0;
    let done = 0;
    const failures = new Map();
    const loop = async () => {
      while (issued < count && performance.now() < deadline) {
        issued += 1;
        const started = performance.now();
        const { statusCode, body } = await pool.request({ method: 'POST', path: options.path, headers, body: bodyFor() });
        await body.dump();
        latencies[done] = performance.now() - started;
        done += 1;
        if (statusCode !== 200 && statusCode !== 202) failures.set(statusCode, (failures.get(statusCode) ?? 0) + 1);
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, loop));
    const elapsedMs = performance.now() - started;
    return { latencies: latencies.subarray(0, done).sort(), done, elapsedMs, failures: Object.fromEntries(failures) };
  }

  await phase(options.warmup, performance.now() + 30_000);
  const measured = await phase(options.requests, performance.now() + options.seconds * 1000);
  await pool.close();
  const at = (q) => measured.latencies[Math.min(measured.done - 1, Math.floor(q * measured.done))] ?? NaN;
  process.send({
    requests: measured.done,
    elapsedMs: measured.elapsedMs,
    rps: measured.done / (measured.elapsedMs / 1000),
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    max: measured.latencies[measured.done - 1] ?? NaN,
    failures: measured.failures,
  });
  process.disconnect();
}

function report(r, options, stored) {
  const ms = (v) => `${v.toFixed(2)} ms`;
  const mode = options.path.includes('isAsync') ? 'async (202)' : 'sync (200)';
  console.log(`POST /messages, ${mode}, ${CONCURRENCY} keep-alive connections, loopback; sandbox and load in separate processes (${cpus().length} CPUs)`);
  console.log(`  requests   ${r.requests} in ${(r.elapsedMs / 1000).toFixed(2)} s (after ${options.warmup} warm-up)`);
  console.log(`  rate       ${Math.round(r.rps)} req/s  (target >= ${TARGET_RPS}: ${r.rps >= TARGET_RPS ? 'met' : 'NOT met'})`);
  console.log(`  latency    p50 ${ms(r.p50)}  p90 ${ms(r.p90)}  p99 ${ms(r.p99)}  max ${ms(r.max)}`);
  console.log(`  stored     ${stored} messages in the sandbox (warm-up included)`);
  const failed = Object.entries(r.failures);
  if (failed.length > 0) {
    console.log(`  failures   ${failed.map(([status, n]) => `${n} x HTTP ${status}`).join(', ')}`);
    process.exitCode = 1;
  }
}
