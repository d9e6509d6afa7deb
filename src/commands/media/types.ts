import type { InputFor } from '../spec.js';
import type { mediaCommands } from './index.js';
import type { Context } from '../../context.js';
import { MAX_MEDIA_BYTES, MAX_MEDIA_PER_MESSAGE, MAX_MEDIA_TOTAL_BYTES, MEDIA_FORMATS } from '../../domain/media-formats.js';
import { writeList } from '../../output/render.js';
import { describeSize } from '../../output/size.js';

export interface MediaTypeRow {
  kind: string;
  extensions: string[];
  contentType: string;
  maxBytes: number;
  maxTotalBytes: number;
  maxPerMessage: number;
}

export async function run(_input: InputFor<typeof mediaCommands, 'media types'>, ctx: Context): Promise<number> {
  const rows: MediaTypeRow[] = MEDIA_FORMATS.map((format) => ({
    kind: format.kind,
    extensions: [...format.extensions],
    contentType: format.contentType,
    maxBytes: MAX_MEDIA_BYTES,
    maxTotalBytes: MAX_MEDIA_TOTAL_BYTES,
    maxPerMessage: MAX_MEDIA_PER_MESSAGE,
  }));
  await writeList(ctx, rows, [
    { header: 'KIND', value: (r) => r.kind, kind: 'status', importance: 4 },
    { header: 'EXTENSIONS', value: (r) => r.extensions.join(' '), kind: 'text', importance: 2 },
    { header: 'MIME TYPE', value: (r) => r.contentType, kind: 'text', importance: 1 },
    { header: 'MAX SIZE', value: (r) => describeSize(r.maxBytes), kind: 'number', importance: 3 },
  ]);
  if (ctx.globals.output === 'table' && ctx.io.stdoutIsTTY) {
    ctx.io.stdout.write(
      `\nAt most ${MAX_MEDIA_PER_MESSAGE} media per message, each at most ${describeSize(MAX_MEDIA_BYTES)} and ${describeSize(MAX_MEDIA_TOTAL_BYTES)} together.\n` +
        'Some carriers accept less for MMS (1 to 2 MB). Any public https:// link may be sent with --media instead.\n',
    );
  }
  return 0;
}
