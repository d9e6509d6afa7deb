import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { pruneStore } from '../../events/store/compact.js';
import { writeJson, writeNdjson } from '../../output/render.js';
import type { InputFor } from '../spec.js';
import type { eventsCommands } from './index.js';
import { parseTime } from './shared/store-options.js';
import { openReader } from './shared/event-queries.js';

export async function run(input: InputFor<typeof eventsCommands, 'events prune'>, ctx: Context): Promise<number> {
  const beforeText = input.string('before');
  if (beforeText === undefined) throw new UsageError('--before T is required (an ISO 8601 date-time, or a duration ago such as 30d)');
  const before = parseTime(beforeText, '--before', ctx.clock.now());
  const { dir, exists } = openReader(input, ctx);
  const result = exists ? await pruneStore(dir, before) : { pruned: 0, kept: 0, busy: 0, untouched: [] };
  const document = { before: new Date(before).toISOString(), ...result };
  if (ctx.globals.output === 'json') writeJson(ctx, document);
  else if (ctx.globals.output === 'ndjson') writeNdjson(ctx, document);
  else {
    ctx.io.stdout.write(`Pruned ${result.pruned} record${result.pruned === 1 ? '' : 's'} stored before ${document.before}; ${result.kept} kept.\n`);
    const untouched = result.untouched.length;
    if (untouched > 0) ctx.io.stderr.write(`${untouched === 1 ? 'A segment was' : `${untouched} segments were`} left whole, old records too, because ${untouched === 1 ? 'it holds' : 'they hold'} lines that are not event records (edited by hand?): ${result.untouched.join(', ')}\n`);
    if (result.busy > 0 && untouched === 0) ctx.io.stderr.write(`${result.busy} older records were left: a running listener or send still writes their file. Prune again once it stops.\n`);
  }
  return 0;
}
