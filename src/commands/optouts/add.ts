import type { Context } from '../../context.js';
import type { InputFor } from '../spec.js';
import type { optoutsCommands } from './index.js';
import { recordByHand } from './shared/by-hand.js';

export function run(input: InputFor<typeof optoutsCommands, 'optouts add'>, ctx: Context): Promise<number> {
  return recordByHand('out', input, ctx);
}
