import { ApiError } from '../errors.js';
import type { ListPage } from './lists.js';

// Walking every page of a list (`--all`) against a server that may page wrongly. Paging ends on an
// empty or short page, on the total, on the page count or on the envelope's "no more"; and it stops,
// never loops, on a server whose pages cannot be right: a page longer than asked, more pages than
// the total allows, items already listed on an earlier page. Remembering what was listed costs one
// key an item, which the total bounds.

export function metaNumber(meta: Record<string, unknown>, ...keys: string[]): number | undefined {
  for (const key of keys) {
    const value = meta[key];
    const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : undefined;
    if (n !== undefined && Number.isFinite(n) && n >= 0) return n;
  }
  return undefined;
}

export const totalOf = (meta: Record<string, unknown>): number | undefined => metaNumber(meta, 'total', 'totalCount', 'totalItems', 'totalRecords');
const pageSizeOf = (meta: Record<string, unknown>): number | undefined => metaNumber(meta, 'limit', 'pageSize', 'perPage', 'size');

export interface WalkOptions<T> {
  /** The first page to read (1 when not given). */
  firstPage?: number | undefined;
  /** The page size asked for, when one was. */
  limit?: number | undefined;
  fetchPage(page: number): Promise<ListPage>;
  /** What identifies an item (a phone number, an id): two items with one key are one item listed twice. */
  keyOf(item: T): string;
  /** What to call the items in a message ("numbers"). */
  noun: string;
  /** Told when the walk stops early on a page that only repeats an earlier one (a server that ignores `page`). */
  warn(message: string): void;
}

/**
 * Yields each page's new items as it arrives. A page that repeats only what was listed (a server
 * that ignores `page`) ends the walk with a warning; a page that mixes new and listed items, a
 * page longer than asked, or a page past what the total allows is an ApiError (exit 1) naming the
 * page, after the pages before it were yielded.
 */
export async function* walkPages<T>(options: WalkOptions<T>): AsyncGenerator<T[]> {
  const firstPage = options.firstPage ?? 1;
  const listed = new Set<string>();
  let pageSize: number | undefined;
  let seen = 0;
  let firstTotal: number | undefined;
  for (let current = firstPage; ; current++) {
    const { items, meta } = await options.fetchPage(current);
    if (items.length === 0) return;
    // The size the envelope tells, else the first page's length: a server may clamp a larger
    // --limit without a word, and ending on the first page "short" of it would lose the rest. At
    // worst this costs one request for an empty page.
    pageSize ??= pageSizeOf(meta) ?? items.length;
    const most = Math.min(options.limit ?? Infinity, Math.max(pageSize, pageSizeOf(meta) ?? 0));
    if (items.length > most) {
      throw new ApiError(`page ${current} of the ${options.noun} holds ${items.length} items where pages hold at most ${most}; the server's paging cannot be trusted, so the list stops here`);
    }
    const total = totalOf(meta);
    firstTotal ??= total;
    // One page more than the first total implies is room for items added while walking; a server
    // whose total grows with every page would otherwise be walked for ever.
    if (firstTotal !== undefined && current - firstPage + 1 > Math.ceil(firstTotal / pageSize) + 1) {
      throw new ApiError(`page ${current} of the ${options.noun} lies past the ${firstTotal} the first page gave as the total; the server's paging cannot be trusted, so the list stops here`);
    }
    const fresh: T[] = [];
    let repeated: string | undefined;
    for (const item of items as T[]) {
      const key = options.keyOf(item);
      if (listed.has(key)) repeated ??= key;
      else {
        listed.add(key);
        fresh.push(item);
      }
    }
    if (repeated !== undefined) {
      if (fresh.length === 0) {
        options.warn(`page ${current} of the ${options.noun} repeats what earlier pages listed (the server seems to ignore the page parameter), so the list stops here`);
        return;
      }
      throw new ApiError(`page ${current} of the ${options.noun} lists ${repeated} again, which an earlier page listed; the server's paging cannot be trusted, so the list stops here`);
    }
    yield fresh;
    seen += fresh.length;
    const totalPages = metaNumber(meta, 'totalPages', 'pageCount', 'pages');
    if (items.length < pageSize) return;
    if (total !== undefined && (firstPage - 1) * pageSize + seen >= total) return;
    if (totalPages !== undefined && current >= totalPages) return;
    if (meta['hasMore'] === false || meta['hasNextPage'] === false || meta['hasNext'] === false) return;
  }
}
