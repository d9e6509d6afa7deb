import type { InputFor } from '../spec.js';
import type { completionCommands } from './index.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { completionScript } from './shared/completion-scripts.js';
import { SHELLS } from '../defaults.js';

export async function run(input: InputFor<typeof completionCommands, 'completion'>, ctx: Context): Promise<number> {
  const shell = SHELLS.find((s) => s === (input.arg(0) ?? '').toLowerCase());
  if (!shell) throw new UsageError(`SHELL must be one of ${SHELLS.join(', ')}, not "${input.arg(0) ?? ''}"`);
  ctx.io.stdout.write(completionScript(shell));
  return 0;
}
