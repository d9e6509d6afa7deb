import type { InputFor } from '../spec.js';
import type { messageCommands } from './index.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { isGuid } from '../../domain/api/patterns.js';
import { getMessage } from '../../api/messages.js';
import { writeObject } from '../../output/render.js';

export function requireMessageId(value: string | undefined): string {
  const id = (value ?? '').trim();
  // The service's message ids are GUIDs: anything else is a typo, refused before a request.
  if (!isGuid(id)) throw new UsageError(`The message ID must be the messageId a send returned (a GUID like 3f2504e0-4f89-11d3-9a0c-0305e82c3301), not "${value ?? ''}"`);
  return id;
}

export async function run(input: InputFor<typeof messageCommands, 'message get'>, ctx: Context): Promise<number> {
  const id = requireMessageId(input.arg(0));
  const message = await getMessage(await ctx.api(), id);
  await writeObject(ctx, message, { title: `Message ${id}` });
  return 0;
}
