#!/usr/bin/env node
// A thin shim: everything lives in main(argv), which returns the exit code.
import module from 'node:module';

// Free start-up speed on Node 22.1+ (caches compiled code); absent on Node 20.
module.enableCompileCache?.();

const { runProcess } = await import('../dist/cli.js');
const code = await runProcess(process.argv.slice(2));
process.exitCode = code;
