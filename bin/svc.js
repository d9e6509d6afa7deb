#!/usr/bin/env node
'use strict';
// A thin shim: everything lives in main(argv), which returns the exit code. CommonJS, as is dist/
// (bin/package.json and dist/package.json say so): nothing on a command's path starts Node's ESM
// loader, which costs each process several milliseconds (bench/startup.mjs).

// Compiled code is cached between runs: by Node itself from 22.1 on, by compile-cache.js on
// Node 20 (where merely loading node:module would load the ESM loader's code, so it is not asked).
if (Number(process.versions.node.split('.')[0]) >= 22) {
  require('node:module').enableCompileCache?.();
} else {
  const { cacheDirFor, installCompileCache } = require('./compile-cache.js');
  const cacheDir = cacheDirFor(process.env);
  if (cacheDir !== undefined) installCompileCache(require('node:path').join(__dirname, '..', 'dist', 'chunks'), cacheDir);
}

require('../dist/cli.js')
  .runProcess(process.argv.slice(2))
  .then((code) => {
    process.exitCode = code;
  });
