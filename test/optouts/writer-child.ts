// A writer for the concurrency test: adds COUNT opt-outs one at a time, each durable before it is
// acknowledged on stdout (one line, the index). Bundled by the test with esbuild and run by node.
import { appendOptOutChanges } from '../../src/optouts/log.js';

const [dir, prefix, countText] = process.argv.slice(2) as [string, string, string];
const count = Number(countText);
for (let i = 0; i < count; i++) {
  appendOptOutChanges(dir, [
    { op: 'out', number: `${prefix}${String(i).padStart(4, '0')}`, from: '+15555550100', at: new Date().toISOString(), cause: 'hand', reason: 'x'.repeat(i % 300), by: `writer ${prefix}` },
  ]);
  process.stdout.write(`${i}\n`);
}
