// Start-up benchmark: `svc --version`, `svc --help` and `svc tenant list --json` against a loopback
// server, and the floor for the last one (a bare script making one GET with node:http), each
// alternated with a bare `node -e 0` in the same run, so that the ratios hold on a noisy
// machine. Prints medians and ratios against their targets. Also lists what
// the API command loaded: the dist chunks, and whether node:http2, node:tls or undici came in.
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
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

const floorScript = `require('node:http').get(process.env.SVC_BASE_URL + '/api/v1/tenants', (res) => { res.resume(); });`;
const cases = [
  { name: 'svc --version', args: [bin, '--version'], target: 1.3 },
  { name: 'svc --help', args: [bin, '--help'], target: 1.5 },
  { name: 'svc tenant list --json (loopback)', args: [bin, 'tenant', 'list', '--json'], target: 1.6 },
  { name: 'floor: one GET with node:http', args: ['-e', floorScript], target: undefined },
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
  rows.push({
    case: c.name,
    'node -e 0 (ms)': median(bare).toFixed(1),
    'this (ms)': median(svc).toFixed(1),
    ratio: ratio.toFixed(2),
    target: c.target === undefined ? '-' : `<= ${c.target}`,
    ok: c.target === undefined ? '-' : ratio <= c.target ? 'yes' : 'NO',
  });
}

// What the API command loads: a preload (-r, CommonJS, so that the probe starts nothing itself)
// prints at exit the dist files in the CommonJS cache (dist/ is CommonJS), whether Node's ESM
// loader was started, and whether HTTP/2, TLS or undici's WebAssembly parser came in.
const probe = join(env.SVC_CONFIG_DIR, 'probe.cjs');
writeFileSync(
  probe,
  `process.on('exit', () => {
     for (const file of Object.keys(require.cache)) if (file.includes('/dist/')) process.stderr.write('DIST ' + file + '\\n');
     process.stderr.write('ESM ' + process.moduleLoadList.includes('NativeModule internal/modules/esm/loader') + '\\n');
     process.stderr.write('BUILTINS ' + process.moduleLoadList.filter((m) => /NativeModule (http2|tls|_tls_wrap|https)$/.test(m)).join(', ') + '\\n');
   });`,
);
const traced = spawnSync(process.execPath, ['-r', probe, bin, 'tenant', 'list', '--json'], { env, encoding: 'utf8' });
const esmLoader = traced.stderr.split('\n').find((l) => l.startsWith('ESM ')) === 'ESM true';
const distFiles = new Set(traced.stderr.split('\n').filter((l) => l.startsWith('DIST ')));
const builtins = [
  traced.stderr.split('\n').find((l) => l.startsWith('BUILTINS '))?.slice(9) ?? '',
  [...distFiles].some((f) => /undici/.test(f)) ? 'undici (and its WebAssembly parser)' : '',
]
  .filter(Boolean)
  .join(', ');

worker.postMessage('stop');
console.log(`node ${process.version}, ${runs} alternating runs per case, medians`);
console.table(rows);
console.log(`svc tenant list --json (loopback) loaded ${distFiles.size} dist files; the ESM loader: ${esmLoader ? 'started' : 'not started'}; node:http2, node:tls, node:https or undici: ${builtins || 'none'}`);
