import type { InputFor } from '../spec.js';
import type { messageCommands } from './index.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { getMessage } from '../../api/messages.js';
import { writeObject } from '../../output/render.js';

export function requireMessageId(value: string | undefined): string {
  const id = (value ?? '').trim();
  if (id === '' || /[\s/?#]/.test(id)) throw new UsageError(`The message ID must be the messageId a send returned, not "${value ?? ''}"`);
  return id;
}

export async function run(input: InputFor<typeof messageCommands, 'message get'>, ctx: Context): Promise<number> {
  const id = requireMessageId(input.arg(0));
  const message = await getMessage(await ctx.api(), id);
  await writeObject(ctx, message, { title: `Message ${id}` });
  return 0;
}
