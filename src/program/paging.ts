// Whether a command's output goes through the pager: decided before the command runs.

import type { MainDeps } from '../cli.js';
import type { CommandSpec } from '../commands/spec.js';
import type { GlobalOptions } from '../context.js';
import type { IOStreams } from '../output/io.js';

/** A paged command's stdout on a terminal is held, to go through the pager if it is tall. */
export async function holdOutputForPager(spec: CommandSpec, io: IOStreams, globals: GlobalOptions, deps: MainDeps): Promise<import('../output/pager.js').HeldOutput | undefined> {
  if (!spec.paged || !io.stdoutIsTTY || globals.output !== 'table' || globals.pager === false) return undefined;
  const terminal = deps.stdout as { fd?: unknown; rows?: unknown };
  if (typeof terminal.fd !== 'number' || typeof terminal.rows !== 'number' || terminal.rows <= 0) return undefined;
  const { holdForPager, pagerCommand } = await import('../output/pager.js');
  const command = pagerCommand(deps.env);
  if (command === undefined) return undefined;
  return holdForPager(deps.stdout, terminal.fd, terminal.rows, command, deps.env);
}
