import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { optOutsCsv } from '../../optouts/csv.js';
import type { InputFor } from '../spec.js';
import type { optoutsCommands } from './index.js';
import { selectedEntries } from './shared/opt-out-list.js';
import { writeExact } from '../../output/io.js';

export async function run(input: InputFor<typeof optoutsCommands, 'optouts export'>, ctx: Context): Promise<number> {
  const path = input.arg(0);
  const { entries } = selectedEntries(input, ctx);
  const csv = optOutsCsv(entries);
  if (path === undefined || path === '-') {
    writeExact(ctx.io.stdout, csv);
    return 0;
  }
  const { writeFile } = await import('node:fs/promises');
  try {
    // A byte-order mark, so that a spreadsheet opens the file as UTF-8.
    await writeFile(path, `\ufeff${csv}`, { mode: 0o600 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`Cannot write ${path}: ${code === 'ENOENT' ? 'its directory does not exist' : code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' ? 'permission denied' : String(code ?? error)}`);
  }
  ctx.io.stderr.write(`Wrote ${entries.length} opt-out${entries.length === 1 ? '' : 's'} to ${path}\n`);
  return 0;
}
