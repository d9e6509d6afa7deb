import { existsSync } from 'node:fs';
import type { Context } from '../../context.js';
import { optOutsPath } from '../../optouts/log.js';
import { writeList } from '../../output/render.js';
import type { InputFor } from '../spec.js';
import type { optoutsCommands } from './index.js';
import { ENTRY_COLUMNS, entryJson, optOutsDir, selectedEntries } from './shared/opt-out-list.js';

export async function run(input: InputFor<typeof optoutsCommands, 'optouts list'>, ctx: Context): Promise<number> {
  const dir = optOutsDir(input, ctx);
  const { entries, from, tenant } = selectedEntries(input, ctx);
  if (ctx.globals.output === 'table' && (ctx.globals.fields === undefined || ctx.globals.fields.length === 0)) {
    if (entries.length === 0) {
      const sends = from === undefined && tenant === undefined ? undefined : `sends${from !== undefined ? ` from ${from}` : ''}${tenant !== undefined ? ` for tenant ${tenant}` : ''}`;
      ctx.io.stderr.write(
        !existsSync(optOutsPath(dir))
          ? `No opt-outs kept at ${dir} yet: svc webhook listen and svc optouts add keep them there.\n`
          : sends !== undefined
            ? `Nobody on the list is left out of ${sends}.\n`
            : 'Nobody is opted out.\n',
      );
      return 0;
    }
    await writeList(ctx, entries, ENTRY_COLUMNS);
    return 0;
  }
  await writeList(ctx, entries.map(entryJson), []);
  return 0;
}
