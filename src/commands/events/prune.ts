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
  const result = exists ? await pruneStore(dir, before) : { pruned: 0, kept: 0, busy: 0 };
  const document = { before: new Date(before).toISOString(), ...result };
  if (ctx.globals.output === 'json') writeJson(ctx, document);
  else if (ctx.globals.output === 'ndjson') writeNdjson(ctx, document);
  else {
    ctx.io.stdout.write(`Pruned ${result.pruned} record${result.pruned === 1 ? '' : 's'} stored before ${document.before}; ${result.kept} kept.\n`);
    if (result.busy > 0) ctx.io.stderr.write(`${result.busy} older records were left: a running listener or send still writes their file. Prune again once it stops.\n`);
  }
  return 0;
}
