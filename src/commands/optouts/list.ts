import { existsSync } from 'node:fs';
import type { Context } from '../../context.js';
import { optOutsPath } from '../../optouts/log.js';
import { writeList } from '../../output/render.js';
import type { InputFor } from '../spec.js';
import type { optoutsCommands } from './index.js';
import { ENTRY_COLUMNS, entryJson, optOutsDir, readList } from './shared/opt-out-list.js';
import { numberArg } from '../events/shared/event-queries.js';

export async function run(input: InputFor<typeof optoutsCommands, 'optouts list'>, ctx: Context): Promise<number> {
  const fromText = input.string('number');
  const from = fromText === undefined ? undefined : numberArg(fromText, '--number');
  const dir = optOutsDir(input, ctx);
  const entries = readList(dir, ctx).entries(from);
  if (ctx.globals.output === 'table' && (ctx.globals.fields === undefined || ctx.globals.fields.length === 0)) {
    if (entries.length === 0) {
      ctx.io.stderr.write(existsSync(optOutsPath(dir)) ? 'Nobody is opted out.\n' : `No opt-outs kept at ${dir} yet: svc webhook listen and svc optouts add keep them there.\n`);
      return 0;
    }
    await writeList(ctx, entries, ENTRY_COLUMNS);
    return 0;
  }
  await writeList(ctx, entries.map(entryJson), []);
  return 0;
}
