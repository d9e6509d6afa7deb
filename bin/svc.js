#!/usr/bin/env node
'use strict';
// A thin shim: everything lives in main(argv), which returns the exit code. CommonJS, as is dist/
// (bin/package.json and dist/package.json say so): nothing on a command's path starts Node's ESM
// loader, which costs each process several milliseconds (bench/startup.mjs).

// Free start-up speed on Node 22.1+ (caches compiled code); absent on Node 20, where merely
// loading node:module loads the ESM loader's code too, so it is not asked.
if (Number(process.versions.node.split('.')[0]) >= 22) require('node:module').enableCompileCache?.();

require('../dist/cli.js')
  .runProcess(process.argv.slice(2))
  .then((code) => {
    process.exitCode = code;
  });
