import { createHash } from 'node:crypto';
import type { InputFor } from '../spec.js';
import type { numberCommands } from './index.js';
import type { Context } from '../../context.js';
import { listActiveNumbers, type PhoneNumber } from '../../api/numbers.js';
import { createListPrinter } from '../../output/render.js';
import { numberColumns } from './shared/number-view.js';

// `--all` walks pages until one is empty or short, the total is reached or the envelope says
// there is no more. Each page is printed as it arrives and dropped: ndjson and piped rows never
// hold more than one page.

function metaNumber(meta: Record<string, unknown>, ...keys: string[]): number | undefined {
  for (const key of keys) {
    const value = meta[key];
    const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : undefined;
    if (n !== undefined && Number.isFinite(n) && n >= 0) return n;
  }
  return undefined;
}

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
    const total = metaNumber(meta, 'total', 'totalCount', 'totalItems', 'totalRecords');
    const current = page ?? metaNumber(meta, 'page', 'pageNumber') ?? 1;
    const size = metaNumber(meta, 'limit', 'pageSize', 'perPage', 'size') ?? limit ?? items.length;
    const before = (current - 1) * size;
    if (ctx.io.stdoutIsTTY && total !== undefined && before + items.length < total && items.length > 0) {
      const shown = current === 1 ? `${items.length} of ${total} shown` : `${before + 1}-${before + items.length} of ${total} shown`;
      ctx.io.stderr.write(`${shown}: --all for every one, --page ${current + 1} for the next\n`);
    }
    return 0;
  }
  const firstPage = page ?? 1;
  let current = firstPage;
  let pageSize: number | undefined;
  let seen = 0;
  let previousPrint: string | undefined;
  for (;;) {
    const { items, meta } = await listActiveNumbers(api, { page: current, limit });
    if (items.length === 0) break;
    // A server that ignores `page` would hand back the same page for ever.
    const print = createHash('sha256').update(JSON.stringify(items)).digest('hex');
    if (print === previousPrint) {
      ctx.warn(`page ${current} repeats page ${current - 1}; the server seems to ignore the page parameter, so the list stops here`);
      break;
    }
    previousPrint = print;
    await printer.add(items as PhoneNumber[]);
    seen += items.length;
    // Without a page size in the envelope, the first page's length is the size: a server may
    // clamp --limit (docs/decisions.md#lists: larger is clamped), and taking --limit would end the walk
    // after one "short" page. At worst this costs one request for an empty page.
    pageSize ??= metaNumber(meta, 'limit', 'pageSize', 'perPage', 'size') ?? items.length;
    const total = metaNumber(meta, 'total', 'totalCount', 'totalItems', 'totalRecords');
    const totalPages = metaNumber(meta, 'totalPages', 'pageCount', 'pages');
    if (items.length < pageSize) break;
    if (total !== undefined && (firstPage - 1) * pageSize + seen >= total) break;
    if (totalPages !== undefined && current >= totalPages) break;
    if (meta['hasMore'] === false || meta['hasNextPage'] === false || meta['hasNext'] === false) break;
    current++;
  }
  await printer.end();
  return 0;
}
