// Bundles src/ into dist/ with esbuild: ESM, code splitting so that each command body stays a
// lazily loaded chunk, libraries left as runtime dependencies.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { version, dependencies } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

// undici and commander are bundled: resolving and loading their CommonJS files one by one is most
// of the start-up cost of `svc --help` and of a command that talks to the API (bench/startup.mjs).
// The other libraries are loaded only by the commands that need them, from node_modules. All seven
// stay in `dependencies`, so that audit and licence tools see what the program runs.
const BUNDLED = new Set(['undici', 'commander']);

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: ['src/cli.ts'],
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.18',
  external: Object.keys(dependencies).filter((name) => !BUNDLED.has(name)),
  banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);" },
  sourcemap: false,
  minifyWhitespace: false,
  legalComments: 'none',
  chunkNames: 'chunks/[name]-[hash]',
  define: { __SVC_VERSION__: JSON.stringify(version) },
  logLevel: 'warning',
});
