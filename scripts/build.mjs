// Bundles src/ into dist/: code splitting so that each command body stays a lazily loaded chunk,
// libraries left as runtime dependencies (but for the two bundled below). dist/ is CommonJS
// (written with its own package.json saying so), loaded by bin/svc.js with require.
import { build } from 'esbuild';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
// The module through which chunks import() packages (see requireWhatIsOurs).
const IMPORT_PACKAGE = 'import-package.js';

// Two passes. esbuild compiles TypeScript and splits the program into chunks, one per set of
// entry points that share code; with a lazily loaded body per command that is about a hundred
// files, and an API command read 26 of them one after another through the ESM loader.
// Rollup then regroups esbuild's output into a few chunks along the path every command takes:
//   boot  what cli.js needs before it knows the command (`svc --version` loads cli.js and boot);
//   core  the program (commander's tree, parsing, errors, output) and all it imports: every
//         command but --version, `--help` included;
//   client  settings, the profile store and the API client, with what they import: every
//         command that talks to the service.
// Everything else (command bodies, commander, the sandbox, what loads a package) keeps esbuild's
// chunking, so a command compiles only the code on its path: `svc tenant list` reads cli.js,
// boot, core, client, commander and its own body (and the small chunks that body imports).
const groups = new Map();
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
    sourcemap: false,
    // Whitespace and comments out, names kept (a --debug stack still names its functions): less
    // for V8 to scan on every start (commander's chunk loads in 3.6 ms instead of 4.6).
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    chunkNames: 'chunks/[name]-[hash]',
    plugins: [commanderSpawnsLazily()],
    define: { __SVC_VERSION__: JSON.stringify(version) },
    logLevel: 'warning',
  });
  rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
  // Rollup pulls a manual chunk's dependencies into it: each group is closed over its static
  // imports, minus what an earlier group already holds.
  const boot = staticClosure(join(staged, 'cli.js'));
  const program = stagedChunk(staged, 'program');
  const core = new Set([program, ...staticClosure(program)].filter((id) => !boot.has(id)));
  const clientRoots = ['settings', 'store', 'http'].map((name) => stagedChunk(staged, name));
  const client = new Set(clientRoots.flatMap((id) => [id, ...staticClosure(id)]).filter((id) => !boot.has(id) && !core.has(id)));
  for (const [name, ids] of [['boot', boot], ['core', core], ['client', client]]) for (const id of ids) groups.set(id, name);
  const bundle = await rollup({
    input: join(staged, 'cli.js'),
    external: (id) => !id.startsWith('.') && !id.startsWith('/'),
    plugins: [requireWhatIsOurs()],
    // Packages are imported where they are used, never for their side effects.
    treeshake: { moduleSideEffects: (_id, external) => !external },
    onwarn: (warning, warn) => {
      if (warning.code !== 'CIRCULAR_DEPENDENCY') warn(warning);
    },
  });
  await bundle.write({
    dir: join(root, 'dist'),
    // CommonJS (dist/package.json says so): a chunk loads with one synchronous require, where the
    // ESM loader reads, links and evaluates each file in its own asynchronous steps; that was
    // about 20 ms of `svc --version` on a busy machine and a tenth of `svc tenant list` (bench/startup.mjs).
    format: 'cjs',
    // import() stays import() for the packages (chalk and ora are ES modules only); see
    // requireWhatIsOurs for our own chunks and Node's built-in modules.
    dynamicImportInCjs: true,
    exports: 'named',
    generatedCode: { preset: 'es2015', constBindings: true },
    // Each file imports what it uses and no more: `svc --version` must not load node:net.
    hoistTransitiveImports: false,
    chunkFileNames: (chunk) => `chunks/${chunk.name.replace(/-[A-Z0-9]{8}$/, '')}-[hash].js`,
    manualChunks: (id) => groups.get(id),
  });
  await bundle.close();
  writeFileSync(join(root, 'dist', 'package.json'), `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);
  writeFileSync(join(root, 'dist', 'chunks', IMPORT_PACKAGE), "'use strict';\n// import() of a package, for chunks compiled from bin/compile-cache.js's cache.\nmodule.exports = (specifier) => import(specifier);\n");
} finally {
  rmSync(staged, { recursive: true, force: true });
}

/**
 * A lazily loaded chunk of ours, or a module built into Node, is loaded with require() inside a
 * promise: the same deferred loading as import(), without starting the ESM loader (which costs
 * every process that reaches it several milliseconds). Packages keep import().
 */
function requireWhatIsOurs() {
  return {
    name: 'require-what-is-ours',
    renderDynamicImport({ targetModuleId, targetChunk, chunk }) {
      if (targetChunk || (typeof targetModuleId === 'string' && targetModuleId.startsWith('node:'))) {
        return { left: 'Promise.resolve().then(() => require(', right: '))' };
      }
      // A package's import() goes through one small module that Node compiles itself: code that
      // bin/compile-cache.js compiles from its cache (node:vm) cannot call import() on Node 20.
      const helper = chunk.fileName.startsWith('chunks/') ? `./${IMPORT_PACKAGE}` : `./chunks/${IMPORT_PACKAGE}`;
      return { left: `require(${JSON.stringify(helper)})(`, right: ')' };
    },
  };
}

/**
 * Commander requires node:child_process when it loads, for the executable subcommands we do not
 * use: 13.5M instructions of every start (callgrind, `node -e "require('child_process')"` against
 * `node -e 0`), which loads node:dgram and the rest with it. The bundled copy requires it on the
 * first spawn instead. The build fails if commander's line is no longer there to replace.
 */
function commanderSpawnsLazily() {
  const eager = "const childProcess = require('node:child_process');";
  const lazy = "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };";
  return {
    name: 'commander-spawns-lazily',
    setup(esbuild) {
      esbuild.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        if (!source.includes(eager)) throw new Error(`build: ${args.path} no longer has the line ${eager}`);
        return { contents: source.replace(eager, lazy), loader: 'js' };
      });
    },
  };
}

/** The one chunk esbuild made for a lazily imported module (`program` for `import('./program.js')`). */
function stagedChunk(dir, name) {
  const found = readdirSync(join(dir, 'chunks')).filter((file) => new RegExp(`^${name}-[A-Z0-9]{8}\\.js$`).test(file));
  if (found.length !== 1) throw new Error(`build: expected one esbuild chunk named ${name}-*.js, found ${found.length}`);
  return join(dir, 'chunks', found[0]);
}

/** The chunk files a chunk imports statically (dynamic imports load later, if ever). */
function localImports(id) {
  // `from"./x.js"` and a bare `import"./x.js"`, anywhere on a line (the output is minified).
  return [...readFileSync(id, 'utf8').matchAll(/\bfrom\s*["'](\.[^"']+)["']|(?:^|[;}\s])import\s*["'](\.[^"']+)["']/gm)].map((m) => resolve(dirname(id), m[1] ?? m[2]));
}

function staticClosure(id, seen = new Set()) {
  for (const dep of localImports(id)) if (!seen.has(dep)) staticClosure(dep, seen.add(dep));
  return seen;
}
