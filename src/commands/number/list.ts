import type { InputFor } from '../spec.js';
import type { numberCommands } from './index.js';
import type { Context } from '../../context.js';
import { listActiveNumbers, type PhoneNumber } from '../../api/numbers.js';
import { createListPrinter } from '../../output/render.js';
import { metaNumber, totalOf, walkPages } from '../../api/pages.js';
import { numberColumns } from './shared/number-view.js';

// `--all` walks the pages (api/pages.ts: it stops on a server whose pages cannot be right). Each
// page is printed as it arrives and dropped: ndjson and piped rows never hold more than one page.

export async function run(input: InputFor<typeof numberCommands, 'number list'>, ctx: Context): Promise<number> {
  const page = input.number('page', '--page', { min: 1, integer: true });
  const limit = input.number('limit', '--limit', { min: 1, integer: true });
  const all = input.flag('all');
  const api = await ctx.api();
  const printer = createListPrinter<PhoneNumber>(ctx, numberColumns, { empty: 'No active phone numbers.' });
  if (!all) {
    const { items, meta } = await listActiveNumbers(api, { page, limit });
    await printer.add(items as PhoneNumber[]);
    await printer.end();
    // A person who sees 20 rows must not conclude there are 20 numbers.
    const total = totalOf(meta);
    const current = page ?? metaNumber(meta, 'page', 'pageNumber') ?? 1;
    const size = metaNumber(meta, 'limit', 'pageSize', 'perPage', 'size') ?? limit ?? items.length;
    const before = (current - 1) * size;
    if (ctx.io.stdoutIsTTY && total !== undefined && before + items.length < total && items.length > 0) {
      const shown = current === 1 ? `${items.length} of ${total} shown` : `${before + 1}-${before + items.length} of ${total} shown`;
      ctx.note(`${shown}: --all for every one, --page ${current + 1} for the next`);
    }
    return 0;
  }
  const pages = walkPages<PhoneNumber>({
    firstPage: page,
    limit,
    fetchPage: (current) => listActiveNumbers(api, { page: current, limit }),
    keyOf: (number) => String(number.phoneNumber ?? JSON.stringify(number)),
    noun: 'active numbers',
    warn: (message) => ctx.warn(message),
  });
  try {
    for await (const items of pages) await printer.add(items);
  } finally {
    // What was listed before a page that cannot be right stays printed.
    await printer.end();
  }
  return 0;
}
