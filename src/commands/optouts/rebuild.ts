import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Context } from '../../context.js';
import { rebuildOptOuts } from '../../optouts/rebuild.js';
import { readConsentSettings } from '../../optouts/settings.js';
import type { ConsentSettings } from '../../optouts/keywords.js';
import { writeJson, writeNdjson } from '../../output/render.js';
import type { InputFor } from '../spec.js';
import type { optoutsCommands } from './index.js';
import { optOutsDir } from './shared/opt-out-list.js';
import { reportChanges } from './shared/opt-out-changes.js';

export async function run(input: InputFor<typeof optoutsCommands, 'optouts rebuild'>, ctx: Context): Promise<number> {
  const dir = optOutsDir(input, ctx);
  if (!existsSync(dir)) {
    ctx.io.stderr.write(`No event store at ${dir}: nothing to rebuild from.\n`);
    if (ctx.globals.output === 'json') writeJson(ctx, { messages: 0, changed: [], unchanged: [] });
    else if (ctx.globals.output === 'ndjson') writeNdjson(ctx, { messages: 0, changed: [], unchanged: [] });
    return 0;
  }
  // The numbers' own opt-out words, when the profile reaches the service; the standard words otherwise.
  let settingsOf: ((number: string) => Promise<ConsentSettings | undefined>) | undefined;
  if (input.flag('numberSettings')) {
    const api = await ctx.api();
    settingsOf = (number) => readConsentSettings(api, number);
  }
  const rebuilt = await rebuildOptOuts(dir, { by: `svc optouts rebuild on ${hostname()}`, ...(settingsOf !== undefined ? { settingsOf } : {}) });
  if (ctx.globals.output === 'table') ctx.io.stderr.write(`Read ${rebuilt.messages} stored inbound message${rebuilt.messages === 1 ? '' : 's'}.\n`);
  if (ctx.globals.output === 'table' && rebuilt.made.length === 0) {
    ctx.io.stdout.write('The opt-out list already holds every change the stored messages ask for.\n');
    return 0;
  }
  reportChanges(ctx, dir, rebuilt);
  return 0;
}
