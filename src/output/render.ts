import type { Context } from '../context.js';

// Renders data for people (aligned tables on a TTY, tab-separated rows when piped) or programs
// (--json: one document; -o ndjson: one object a line). Tables and colour load only on a TTY.

export interface Column<T> {
  header: string;
  value: (item: T) => unknown;
  /** Colour a cell by its text (statuses), on a TTY with colour on. */
  tone?: (text: string) => Tone | undefined;
}

export type Tone = 'good' | 'bad' | 'warn' | 'dim' | 'accent';

export function cellText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (Array.isArray(value)) return value.map(cellText).join(', ');
  return JSON.stringify(value);
}

/** Tab-separated rows must stay one line a record. */
function plainCell(value: unknown): string {
  return cellText(value).replace(/[\t\r\n]+/g, ' ');
}

export function writeJson(ctx: Context, value: unknown): void {
  ctx.io.stdout.write(`${JSON.stringify(value ?? null, null, 2)}\n`);
}

export function writeNdjson(ctx: Context, value: unknown): void {
  ctx.io.stdout.write(`${JSON.stringify(value ?? null)}\n`);
}

/** Status words are coloured by what they mean. */
export function statusTone(text: string): Tone | undefined {
  const word = text.toLowerCase();
  if (/^(active|completed|delivered|healthy|sent|accepted|valid|ok)$/.test(word)) return 'good';
  if (/^(failed|error|rejected|cancell?ed|unhealthy|invalid|undelivered)$/.test(word)) return 'bad';
  if (/^(pending|processing|queued|sending|degraded|released|unknown)$/.test(word)) return 'warn';
  return undefined;
}

export async function paint(ctx: Context, stream: 'stdout' | 'stderr', tone: Tone, text: string): Promise<string> {
  const enabled = stream === 'stdout' ? ctx.io.colorStdout : ctx.io.colorStderr;
  if (!enabled) return text;
  const { Chalk } = await import('chalk');
  const chalk = new Chalk({ level: 1 });
  switch (tone) {
    case 'good':
      return chalk.green(text);
    case 'bad':
      return chalk.red(text);
    case 'warn':
      return chalk.yellow(text);
    case 'dim':
      return chalk.dim(text);
    case 'accent':
      return chalk.cyan(text);
  }
}

/** A list: a JSON array, an object a line, a table, or tab-separated rows. */
export async function writeList<T>(ctx: Context, items: readonly T[], columns: readonly Column<T>[]): Promise<void> {
  const printer = createListPrinter(ctx, columns);
  await printer.add(items);
  await printer.end();
}

export interface ListPrinter<T> {
  add(items: readonly T[]): Promise<void>;
  end(): Promise<void>;
}

/**
 * A list printed as its pages arrive. JSON is streamed as one array; ndjson and piped rows are
 * written at once and never held; only a TTY table waits for all rows (it needs their widths).
 */
export function createListPrinter<T>(ctx: Context, columns: readonly Column<T>[], options: { empty?: string } = {}): ListPrinter<T> {
  const format = ctx.globals.output;
  let count = 0;
  const held: T[] = [];
  return {
    async add(items) {
      for (const item of items) {
        if (format === 'json') {
          const text = JSON.stringify(item, null, 2).replace(/\n/g, '\n  ');
          ctx.io.stdout.write(`${count === 0 ? '[\n  ' : ',\n  '}${text}`);
        } else if (format === 'ndjson') {
          writeNdjson(ctx, item);
        } else if (ctx.io.stdoutIsTTY) {
          held.push(item);
        } else {
          ctx.io.stdout.write(`${columns.map((c) => plainCell(c.value(item))).join('\t')}\n`);
        }
        count++;
      }
    },
    async end() {
      if (format === 'json') {
        ctx.io.stdout.write(count === 0 ? '[]\n' : '\n]\n');
        return;
      }
      if (format !== 'table' || !ctx.io.stdoutIsTTY) return;
      if (held.length === 0) {
        ctx.io.stderr.write(`${options.empty ?? 'Nothing to show.'}\n`);
        return;
      }
      ctx.io.stdout.write(`${await renderTable(ctx, held, columns)}\n`);
    },
  };
}

export async function renderTable<T>(ctx: Context, items: readonly T[], columns: readonly Column<T>[]): Promise<string> {
  const { default: Table } = await import('cli-table3');
  const head = await Promise.all(columns.map((c) => paint(ctx, 'stdout', 'accent', c.header)));
  const table = new Table({
    head,
    style: { head: [], border: [], compact: true, 'padding-left': 0, 'padding-right': 2 },
    chars: {
      top: '', 'top-mid': '', 'top-left': '', 'top-right': '',
      bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
      left: '', 'left-mid': '', mid: '', 'mid-mid': '',
      right: '', 'right-mid': '', middle: '',
    },
  });
  for (const item of items) {
    const row = await Promise.all(
      columns.map(async (c) => {
        const text = cellText(c.value(item));
        const tone = c.tone?.(text);
        return tone ? paint(ctx, 'stdout', tone, text) : text;
      }),
    );
    table.push(row);
  }
  return table
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n');
}

/** One object: JSON as is, or a readable key/value view with nested objects flattened by path. */
export async function writeObject(ctx: Context, value: unknown, options: { title?: string } = {}): Promise<void> {
  const format = ctx.globals.output;
  if (format === 'json') return writeJson(ctx, value);
  if (format === 'ndjson') return writeNdjson(ctx, value);
  const rows = flattenForView(value);
  if (!ctx.io.stdoutIsTTY) {
    for (const [key, text] of rows) ctx.io.stdout.write(`${key}\t${text.replace(/[\t\r\n]+/g, ' ')}\n`);
    return;
  }
  const lines: string[] = [];
  if (options.title) lines.push(await paint(ctx, 'stdout', 'accent', options.title));
  const width = Math.min(40, Math.max(0, ...rows.map(([k]) => k.length)));
  for (const [key, text] of rows) {
    const tone = key.toLowerCase().endsWith('status') ? statusTone(text) : undefined;
    const shown = tone ? await paint(ctx, 'stdout', tone, text) : text;
    lines.push(`${await paint(ctx, 'stdout', 'dim', key.padEnd(width))}  ${shown}`);
  }
  ctx.io.stdout.write(`${lines.join('\n')}\n`);
}

/** `{a: {b: 1}, c: [1, 2]}` becomes `[['a.b', '1'], ['c', '1, 2']]`; arrays of objects by index. */
export function flattenForView(value: unknown, prefix = ''): [string, string][] {
  if (typeof value !== 'object' || value === null) return [[prefix || 'value', cellText(value)]];
  const rows: [string, string][] = [];
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  if (entries.length === 0) return prefix ? [[prefix, Array.isArray(value) ? '' : '{}']] : [];
  for (const [key, inner] of entries) {
    const path = prefix ? `${prefix}${Array.isArray(value) ? `[${key}]` : `.${key}`}` : key;
    const isScalarArray = Array.isArray(inner) && inner.every((v) => typeof v !== 'object' || v === null);
    if (typeof inner === 'object' && inner !== null && !isScalarArray) rows.push(...flattenForView(inner, path));
    else rows.push([path, cellText(inner)]);
  }
  return rows;
}
