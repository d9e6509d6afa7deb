'use strict';
// A compile cache for dist/ on Node 20, which lacks module.enableCompileCache (Node 22.1+ has
// it, and bin/svc.js uses that there). Parsing and compiling our own chunks is about a third of
// the instructions `svc tenant list` runs beyond a bare `node -e 0` (valgrind --tool=callgrind);
// V8's code cache skips both. Each chunk of dist/chunks whose name carries its content hash
// (rollup names them so: core-9r3izBcJ.js) is compiled with node:vm from the cache when there is
// one; when there is none, or V8 rejected it (another Node, other V8 flags), the chunk is
// compiled from its source and its cache is written when the process exits, with what the run
// compiled. A file is written whole (to a temporary name, then renamed) or not at all; a cache
// that cannot be read or written costs nothing but the speed. The chunks import() packages
// through dist/chunks/import-package.js, which Node compiles itself: code compiled with node:vm
// cannot call import() on Node 20 without an experimental flag.

const { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } = require('node:fs');
const { basename, dirname, join } = require('node:path');

const HASHED_CHUNK = /-[A-Za-z0-9_-]{8}\.js$/;
/** Compiled by Node, always: it calls import(), which code from node:vm cannot (see above). */
const IMPORT_PACKAGE = 'import-package.js';

/**
 * Where the cache lives: $SVC_COMPILE_CACHE, else the user's cache directory, one folder per
 * Node release and architecture. Undefined when caching is off (NODE_DISABLE_COMPILE_CACHE, as
 * Node's own cache honours it, or SVC_COMPILE_CACHE=0) or there is no home to put it in.
 */
function cacheDirFor(env) {
  if (env.NODE_DISABLE_COMPILE_CACHE || env.SVC_COMPILE_CACHE === '0') return undefined;
  const base = env.SVC_COMPILE_CACHE || (env.XDG_CACHE_HOME ? join(env.XDG_CACHE_HOME, 'svc') : env.HOME ? join(env.HOME, '.cache', 'svc') : undefined);
  return base === undefined ? undefined : join(base, `v8-${process.version}-${process.arch}`);
}

/** Compiles the hashed chunks under `chunksDir` through the cache in `cacheDir` from now on. */
function installCompileCache(chunksDir, cacheDir) {
  const Module = module.constructor;
  const compile = Module.prototype._compile;
  const vm = require('node:vm');
  const toWrite = [];
  Module.prototype._compile = function compileFromCache(content, filename) {
    if (dirname(filename) !== chunksDir || !HASHED_CHUNK.test(filename) || basename(filename) === IMPORT_PACKAGE) return compile.call(this, content, filename);
    const file = join(cacheDir, `${basename(filename)}.v8`);
    let cachedData;
    try {
      cachedData = readFileSync(file);
    } catch {
      cachedData = undefined;
    }
    const script = new vm.Script(Module.wrap(content), { filename, cachedData });
    if (cachedData === undefined || script.cachedDataRejected) toWrite.push({ file, script });
    const wrapper = script.runInThisContext({ displayErrors: true });
    const mod = this;
    const requireHere = (id) => mod.require(id);
    requireHere.resolve = (request, options) => Module._resolveFilename(request, mod, false, options);
    requireHere.cache = Module._cache;
    requireHere.main = require.main;
    return wrapper.call(mod.exports, mod.exports, requireHere, mod, filename, dirname(filename));
  };
  process.once('exit', () => {
    if (toWrite.length === 0) return;
    try {
      mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
    } catch {
      return; // a read-only home: the next run compiles from source again
    }
    for (const { file, script } of toWrite) {
      const temporary = `${file}.${process.pid}.tmp`;
      try {
        writeFileSync(temporary, script.createCachedData(), { mode: 0o600 });
        renameSync(temporary, file);
      } catch {
        rmSync(temporary, { force: true });
      }
    }
    // Something was written: a new build, or a new Node. The caches of chunks that this build no
    // longer has go, so that upgrades do not pile them up.
    try {
      for (const name of readdirSync(cacheDir)) {
        if (name.endsWith('.js.v8') && !existsSync(join(chunksDir, name.slice(0, -3)))) rmSync(join(cacheDir, name), { force: true });
      }
    } catch {
      // Listing or removing failed: the files stay, unused.
    }
  });
}

module.exports = { cacheDirFor, installCompileCache };
