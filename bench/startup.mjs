// Start-up benchmark: `svc --version`, `svc --help` and `svc tenant list --json` against a loopback
// server, each alternated with a bare `node -e 0` in the same run, so that the ratios hold on a
// noisy machine. Prints medians and ratios against the targets of the foundation issue.
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

const bin = fileURLToPath(new URL('../bin/svc.js', import.meta.url));
const runs = Number(process.env.BENCH_RUNS ?? 15);

// The server runs in a worker so that spawnSync in this thread does not block its answers.
const serverCode = `
const { createServer } = require('node:http');
const { parentPort } = require('node:worker_threads');
const server = createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify([{ tenantId: '3f2504e0-4f89-11d3-9a0c-0305e82c3301', domain: 'example.com' }]));
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
parentPort.on('message', () => server.close(() => process.exit(0)));
`;
const worker = new Worker(serverCode, { eval: true });
const port = await new Promise((resolve) => worker.once('message', resolve));
void createServer;

const env = {
  ...process.env,
  SVC_BASE_URL: `http://127.0.0.1:${port}`,
  SVC_USERNAME: 'bench@example.com',
  SVC_PASSWORD: 'bench',
  SVC_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'svc-bench-')),
};

function time(args) {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { env, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return ms;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const cases = [
  { name: 'svc --version', args: [bin, '--version'], target: 1.3 },
  { name: 'svc --help', args: [bin, '--help'], target: 1.5 },
  { name: 'svc tenant list --json (loopback)', args: [bin, 'tenant', 'list', '--json'], target: 2.5 },
];

// Warm the file cache once.
time(['-e', '0']);
for (const c of cases) time(c.args);

const rows = [];
for (const c of cases) {
  const bare = [];
  const svc = [];
  for (let i = 0; i < runs; i++) {
    bare.push(time(['-e', '0']));
    svc.push(time(c.args));
  }
  const ratio = median(svc) / median(bare);
  rows.push({ case: c.name, 'node -e 0 (ms)': median(bare).toFixed(1), 'svc (ms)': median(svc).toFixed(1), ratio: ratio.toFixed(2), target: `<= ${c.target}`, ok: ratio <= c.target ? 'yes' : 'NO' });
}
worker.postMessage('stop');
console.log(`node ${process.version}, ${runs} alternating runs per case, medians`);
console.table(rows);
