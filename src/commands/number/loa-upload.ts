import { basename } from 'node:path';
import type { InputFor } from '../spec.js';
import type { numberCommands } from './index.js';
import type { Context } from '../../context.js';
import { ApiError, UsageError } from '../../errors.js';
import { uploadLoaDocument } from '../../api/numbers.js';
import { loaFileProblem, loaLinkOf, MAX_LOA_BYTES, multipartFile } from '../../numbers/loa.js';
import { writeObject } from '../../output/render.js';
import { readInputFile } from '../../input/files.js';

async function readPdf(path: string): Promise<Buffer> {
  const bytes = await readInputFile(path, 'the LOA file', {
    maxBytes: MAX_LOA_BYTES,
    // Size and name are judged before the file is read, so a huge file is refused at once.
    checkSize(size) {
      const early = loaFileProblem(path, size, Buffer.from('%PDF-'));
      if (early !== undefined) throw new UsageError(early);
    },
  });
  const problem = loaFileProblem(path, bytes.length, bytes);
  if (problem !== undefined) throw new UsageError(problem);
  return bytes;
}

export async function run(input: InputFor<typeof numberCommands, 'number loa upload'>, ctx: Context): Promise<number> {
  const path = input.arg(0) ?? '';
  const bytes = await readPdf(path);
  const form = await multipartFile('file', basename(path), 'application/pdf', bytes);
  const { data, location } = await uploadLoaDocument(await ctx.api(), form);
  const link = loaLinkOf(data) ?? location;
  if (ctx.globals.output !== 'table') {
    await writeObject(ctx, data ?? { loaUrl: link ?? null });
    return 0;
  }
  if (link === undefined) {
    throw new ApiError(`The service took the LOA but its answer holds no link: ${JSON.stringify(data ?? null).slice(0, 200)}`);
  }
  ctx.io.stdout.write(`${link}\n`);
  if (ctx.io.stderrIsTTY) ctx.io.stderr.write(`Use it with: svc number provision ... --loa-url '${link}'\n`);
  return 0;
}
