import type { InputFor } from '../spec.js';
import type { mediaCommands } from './index.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { uploadMedia, type UploadShape } from '../../api/media.js';
import { writeObject } from '../../output/render.js';
import { requireE164 } from '../../input/checks.js';
import { TENANT_MISSING, tenantOrAsk } from '../tenant/shared/choose-tenant.js';
import { readMediaFile } from '../../input/media-file.js';

export async function run(input: InputFor<typeof mediaCommands, 'media upload'>, ctx: Context): Promise<number> {
  const path = input.arg(0) ?? '';
  const numberText = input.string('number');
  if (numberText === undefined) throw new UsageError('--number is needed: your provisioned number the media is for');
  const number = requireE164(numberText, '--number');
  const shape = (input.string('shape') ?? 'auto') as UploadShape;
  const file = await readMediaFile(path, 'the media file');
  // Shape B names the number by its id, so only shapes that may send A need the tenant.
  // On a terminal, a missing tenant is chosen among the account's tenants.
  const tenantId = shape === 'b' ? undefined : await tenantOrAsk(ctx, input.string('tenant'), { ...TENANT_MISSING, what: 'the tenant of the upload' });
  const api = await ctx.api();
  const uploaded = await uploadMedia(api, file, { number, tenantId }, shape, (why) => ctx.debug(`media upload: ${why}`));
  await writeObject(ctx, uploaded, { title: 'Uploaded' });
  return 0;
}
