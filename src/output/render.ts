import type { Output } from './format.js';
import { writeExact, type IOStreams } from './io.js';
import { markPainted, visibleLine, visibleText } from './terminal.js';
import { checkFields, selectFields } from './fields.js';
import { fitColumns, truncateCell } from './fit.js';

// Renders data for people (aligned tables on a TTY, tab-separated rows when piped) or programs
// (--json: one document; -o ndjson: one object a line). Tables and colour load only on a TTY.

export interface Column<T> {
  header: string;
  value: (item: T) => unknown;
  /** Colour a cell by its text (statuses), on a TTY with colour on. */
  tone?: (text: string) => Tone | undefined;
  /** Never shortened to fit the terminal: a value people copy into another command (an id). */
  whole?: boolean;
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

/** What --fields keeps of a document (all of it without --fields); an unknown field is exit 2. */
export function projectFields(out: Output, value: unknown): unknown {
  const fields = out.fields;
  if (!fields || fields.length === 0) return value;
  checkFields(Array.isArray(value) ? value : [value], fields);
  return selectFields(value, fields);
}

export function writeJson(out: Output, value: unknown): void {
  writeExact(out.io.stdout, `${JSON.stringify(projectFields(out, value) ?? null, null, 2)}\n`);
}

export function writeNdjson(out: Output, value: unknown): void {
  writeExact(out.io.stdout, `${JSON.stringify(projectFields(out, value) ?? null)}\n`);
}

/** With --fields, a table's columns are the fields, in the order given. */
function fieldColumns<T>(out: Output, columns: readonly Column<T>[]): readonly Column<T>[] {
  const fields = out.fields;
  if (!fields || fields.length === 0) return columns;
  return fields.map((field) => ({
    header: field.toUpperCase(),
    value: (item: T) => {
      const selected = selectFields(item, [field]);
      let current: unknown = selected;
      for (const key of field.split('.')) current = typeof current === 'object' && current !== null ? (current as Record<string, unknown>)[key] : undefined;
      return current;
    },
    tone: /status$/i.test(field) ? statusTone : undefined,
    whole: columns.some((c) => c.whole === true && c.header === field.toUpperCase()),
  }));
}

/** Status words are coloured by what they mean. */
export function statusTone(text: string): Tone | undefined {
  const word = text.toLowerCase();
  if (/^(active|completed|delivered|healthy|sent|accepted|valid|ok)$/.test(word)) return 'good';
  if (/^(failed|error|rejected|cancell?ed|unhealthy|invalid|undelivered)$/.test(word)) return 'bad';
  if (/^(pending|processing|queued|sending|degraded|released|unknown)$/.test(word)) return 'warn';
  return undefined;
}

/**
 * The text in the tone's colour when the stream has colour on. The text's own control characters
 * are made visible first, so that every escape sequence in the result is chalk's, and those are
 * marked as svc's own for the output boundary (terminal.ts).
 */
export async function paint(target: { readonly io: IOStreams }, stream: 'stdout' | 'stderr', tone: Tone, text: string): Promise<string> {
  const enabled = stream === 'stdout' ? target.io.colorStdout : target.io.colorStderr;
  if (!enabled) return text;
  const { Chalk } = await import('chalk');
  const chalk = new Chalk({ level: 1 });
  const safe = visibleText(text);
  switch (tone) {
    case 'good':
      return markPainted(chalk.green(safe));
    case 'bad':
      return markPainted(chalk.red(safe));
    case 'warn':
      return markPainted(chalk.yellow(safe));
    case 'dim':
      return markPainted(chalk.dim(safe));
    case 'accent':
      return markPainted(chalk.cyan(safe));
  }
}

/** A list: a JSON array, an object a line, a table, or tab-separated rows. */
export async function writeList<T>(out: Output, items: readonly T[], columns: readonly Column<T>[]): Promise<void> {
  const printer = createListPrinter(out, columns);
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
export function createListPrinter<T>(out: Output, givenColumns: readonly Column<T>[], options: { empty?: string } = {}): ListPrinter<T> {
  const format = out.format;
  const fields = out.fields;
  const columns = fieldColumns(out, givenColumns);
  let count = 0;
  let checked = false;
  const held: T[] = [];
  return {
    async add(items) {
      // The first page that has items says which fields exist.
      if (!checked && fields && fields.length > 0 && items.length > 0) {
        checkFields(items, fields);
        checked = true;
      }
      for (const raw of items) {
        const item = format !== 'table' && fields && fields.length > 0 ? (selectFields(raw, fields) as T) : raw;
        if (format === 'json') {
          const text = JSON.stringify(item, null, 2).replace(/\n/g, '\n  ');
          writeExact(out.io.stdout, `${count === 0 ? '[\n  ' : ',\n  '}${text}`);
        } else if (format === 'ndjson') {
          writeExact(out.io.stdout, `${JSON.stringify(item ?? null)}\n`);
        } else if (out.io.stdoutIsTTY) {
          held.push(item);
        } else {
          out.io.stdout.write(`${columns.map((c) => plainCell(c.value(item))).join('\t')}\n`);
        }
        count++;
      }
    },
    async end() {
      if (format === 'json') {
        writeExact(out.io.stdout, count === 0 ? '[]\n' : '\n]\n');
        return;
      }
      if (format !== 'table' || !out.io.stdoutIsTTY) return;
      if (held.length === 0) {
        out.io.stderr.write(`${options.empty ?? 'Nothing to show.'}\n`);
        return;
      }
      out.io.stdout.write(`${await renderTable(out, held, columns)}\n`);
    },
  };
}

/** A cell as a table shows it: one line (line breaks and tabs as spaces), control characters visible. */
function tableCell(value: unknown): string {
  return visibleLine(cellText(value).replace(/(?:\r?\n|\t)+/g, ' '));
}

/**
 * An aligned table that fits the terminal: when the natural widths are too wide, the widest
 * columns give way and their long cells (GUIDs, URLs) end in an ellipsis. Only ever on a TTY:
 * --json and piped rows are never shortened.
 */
export async function renderTable<T>(out: Output, items: readonly T[], allColumns: readonly Column<T>[]): Promise<string> {
  let columns = allColumns;
  // Cells are measured and cut as they are shown: their control characters made visible first,
  // so that a cut never falls inside an escape sequence.
  let texts = items.map((item) => columns.map((c) => tableCell(c.value(item))));
  const naturalWidth = columns.reduce((sum, c, i) => sum + Math.max(c.header.length, ...texts.map((row) => [...row[i]!].length)) + 2, -2);
  if (naturalWidth > out.io.columns) {
    // Too wide: columns that are empty in every row go first, before any cell is shortened.
    const keep = columns.map((_, i) => i === 0 || texts.some((row) => row[i] !== ''));
    columns = columns.filter((_, i) => keep[i]);
    texts = texts.map((row) => row.filter((_, i) => keep[i]));
  }
  const widths = fitColumns(
    columns.map((c, i) => Math.max(c.header.length, ...texts.map((row) => [...row[i]!].length))),
    columns.map((c) => c.header.length),
    out.io.columns,
    columns.map((c) => c.whole === true),
  );
  const lines: string[] = [];
  const line = async (cells: string[], tones: ((text: string) => Promise<string>)[]): Promise<string> => {
    const parts: string[] = [];
    for (let i = 0; i < cells.length; i++) {
      const shown = truncateCell(cells[i]!, widths[i]!);
      const pad = ' '.repeat(Math.max(0, widths[i]! - [...shown].length));
      parts.push(`${await tones[i]!(shown)}${i === cells.length - 1 ? '' : `${pad}  `}`);
    }
    return parts.join('').trimEnd();
  };
  lines.push(await line(columns.map((c) => c.header), columns.map(() => (text: string) => paint(out, 'stdout', 'accent', text))));
  for (const row of texts) {
    lines.push(
      await line(
        row,
        columns.map((c, i) => async (text: string) => {
          const tone = c.tone?.(row[i]!);
          return tone ? paint(out, 'stdout', tone, text) : text;
        }),
      ),
    );
  }
  return lines.join('\n');
}

/** One object: JSON as is, or a readable key/value view with nested objects flattened by path. */
export async function writeObject(out: Output, value: unknown, options: { title?: string; fieldsChecked?: boolean } = {}): Promise<void> {
  const format = out.format;
  // fieldsChecked: the caller checked --fields before acting and passes the selection itself.
  if (options.fieldsChecked && format !== 'table') {
    writeExact(out.io.stdout, format === 'json' ? `${JSON.stringify(value ?? null, null, 2)}\n` : `${JSON.stringify(value ?? null)}\n`);
    return;
  }
  if (format === 'json') return writeJson(out, value);
  if (format === 'ndjson') return writeNdjson(out, value);
  const rows = flattenForView(options.fieldsChecked ? value : projectFields(out, value));
  if (!out.io.stdoutIsTTY) {
    for (const [key, text] of rows) out.io.stdout.write(`${key}\t${text.replace(/[\t\r\n]+/g, ' ')}\n`);
    return;
  }
  const lines: string[] = [];
  if (options.title) lines.push(await paint(out, 'stdout', 'accent', options.title));
  const width = Math.min(40, Math.max(0, ...rows.map(([k]) => k.length)));
  for (const [rawKey, full] of rows) {
    const key = visibleLine(rawKey);
    // A value longer than the terminal is shortened on screen only; --json and pipes keep it whole.
    const text = truncateCell(tableCell(full), Math.max(12, out.io.columns - Math.max(width, key.length) - 2));
    const tone = key.toLowerCase().endsWith('status') ? statusTone(text) : undefined;
    const shown = tone ? await paint(out, 'stdout', tone, text) : text;
    lines.push(`${await paint(out, 'stdout', 'dim', key.padEnd(width))}  ${shown}`);
  }
  out.io.stdout.write(`${lines.join('\n')}\n`);
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
