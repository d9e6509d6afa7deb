// Bundles src/ into dist/: ESM, code splitting so that each command body stays a lazily loaded
// chunk, libraries left as runtime dependencies (but for the two bundled below).
import { build } from 'esbuild';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rollup } from 'rollup';

const root = fileURLToPath(new URL('..', import.meta.url));
const { version, dependencies } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

// undici and commander are bundled: resolving and loading their CommonJS files one by one is most
// of the start-up cost of `svc --help` and of a command that talks to the API (bench/startup.mjs).
// The other libraries are loaded only by the commands that need them, from node_modules. All seven
// stay in `dependencies`, so that audit and licence tools see what the program runs.
const BUNDLED = new Set(['undici', 'commander']);

// Two passes. esbuild compiles TypeScript and splits the program into chunks, one per set of
// entry points that share code; with a lazily loaded body per command that is about a hundred
// files, and an API command read 26 of them one after another through the ESM loader (about a
// quarter of `svc tenant list`'s own start-up, issue 12). Rollup then re-chunks esbuild's output:
// every small shared chunk that reaches no package (only node: built-ins and other such chunks)
// joins one `core` chunk, so that a command loads cli.js, the program, commander, core and its own
// body. Chunks that load a package (croner, conf, ...) keep their own file, so no command loads a
// package it does not use.
const purity = new Map();
let entryDeps = new Set();
const staged = mkdtempSync(join(tmpdir(), 'svc-build-'));
try {
  await build({
    absWorkingDir: root,
    entryPoints: ['src/cli.ts'],
    outdir: staged,
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
  rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
  // What cli.js imports before it knows the command stays small and out of core (`svc --version`).
  entryDeps = staticClosure(join(staged, 'cli.js'));
  const bundle = await rollup({
    input: join(staged, 'cli.js'),
    external: (id) => !id.startsWith('.') && !id.startsWith('/'),
    // Packages are imported where they are used, never for their side effects.
    treeshake: { moduleSideEffects: (_id, external) => !external },
    onwarn: (warning, warn) => {
      if (warning.code !== 'CIRCULAR_DEPENDENCY') warn(warning);
    },
  });
  await bundle.write({
    dir: join(root, 'dist'),
    format: 'es',
    // Each file imports what it uses and no more: `svc --version` must not load node:net.
    hoistTransitiveImports: false,
    chunkFileNames: (chunk) => `chunks/${chunk.name.replace(/-[A-Z0-9]{8}$/, '')}-[hash].js`,
    // Rollup pulls a manual chunk's dependencies into it: what cli.js needs first gets its own.
    manualChunks: (id) => (entryDeps.has(id) ? 'boot' : isCoreChunk(id) ? 'core' : undefined),
  });
  await bundle.close();
} finally {
  rmSync(staged, { recursive: true, force: true });
}

/** A shared esbuild chunk (not a command body, not commander) small enough and free of packages. */
function isCoreChunk(id) {
  return /[\\/]chunks[\\/](chunk|settings|store|http)-[A-Z0-9]{8}\.js$/.test(id) && statSync(id).size < 12_000 && reachesNoPackage(id);
}

/** The chunk files a chunk imports statically (dynamic imports load later, if ever). */
function localImports(id) {
  return [...readFileSync(id, 'utf8').matchAll(/\bfrom\s*["'](\.[^"']+)["']|^import\s*["'](\.[^"']+)["']/gm)].map((m) => resolve(dirname(id), m[1] ?? m[2]));
}

function staticClosure(id, seen = new Set()) {
  for (const dep of localImports(id)) if (!seen.has(dep)) staticClosure(dep, seen.add(dep));
  return seen;
}

function reachesNoPackage(id) {
  if (purity.has(id)) return purity.get(id);
  purity.set(id, true);
  const text = readFileSync(id, 'utf8');
  let pure = !/\bfrom\s*["'](?!node:|\.)[^"']+["']|^import\s*["'](?!node:|\.)/m.test(text);
  for (const dep of localImports(id)) {
    if (!pure) break;
    pure = reachesNoPackage(dep);
  }
  purity.set(id, pure);
  return pure;
}
