import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { readTextFile } from '../../input/files.js';
import { recordConsentChanges } from '../../optouts/change.js';
import { ImportError, parseOptOutImport } from '../../optouts/csv.js';
import type { ConsentChange } from '../../optouts/log.js';
import type { InputFor } from '../spec.js';
import type { optoutsCommands } from './index.js';
import { reportChanges } from './shared/opt-out-changes.js';
import { actingUser, optOutsDir, sendingNumber } from './shared/opt-out-list.js';

const PROBLEMS_SHOWN = 10;

export async function run(input: InputFor<typeof optoutsCommands, 'optouts import'>, ctx: Context): Promise<number> {
  const path = input.arg(0);
  if (path === undefined || path.trim() === '') throw new UsageError('give the FILE to import');
  const from = sendingNumber(input);
  const dir = optOutsDir(input, ctx);
  // The one rule for a user's file (exit 2 naming it and why: missing, unreadable, a directory,
  // past 64 MiB, not UTF-8), before the list is touched; a byte-order mark is dropped there.
  const content = await readTextFile(path, 'the import file');
  let rows;
  try {
    rows = parseOptOutImport(content, path);
  } catch (error) {
    if (!(error instanceof ImportError)) throw error;
    const more = error.problems.slice(1, PROBLEMS_SHOWN);
    if (error.problems.length > PROBLEMS_SHOWN) more.push(`... and ${error.problems.length - PROBLEMS_SHOWN} more problems`);
    throw new UsageError(`${error.problems[0]!}${error.problems.length > 1 ? ` (${error.problems.length} problems; nothing was imported)` : ' (nothing was imported)'}`, more);
  }
  const at = new Date(ctx.clock.now()).toISOString();
  const by = actingUser();
  const changes: ConsentChange[] = rows.map((row) => ({
    op: 'out',
    number: row.number,
    from: row.from ?? from,
    at,
    cause: 'import',
    reason: row.reason ?? `from ${path}`,
    ...(row.tenant !== undefined ? { tenant: row.tenant } : {}),
    by,
  }));
  reportChanges(ctx, dir, recordConsentChanges(dir, changes));
  return 0;
}
