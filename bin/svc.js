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

let cli;
try {
  cli = require('../dist/cli.js');
} catch (error) {
  // A checkout that was never built (or a build that was removed): say what to do, not a stack.
  if (error && error.code === 'MODULE_NOT_FOUND' && String(error.message).includes('dist')) {
    const dist = require('node:path').join(__dirname, '..', 'dist');
    process.stderr.write(`error: svc is not built: ${dist} is missing or incomplete. Run \`npm run build\` in ${require('node:path').join(__dirname, '..')} (or reinstall svc).\n`);
    process.exitCode = 1;
  } else {
    throw error;
  }
}
if (cli !== undefined) {
  cli.runProcess(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
