import type { Output } from './format.js';
import { writeExact, type IOStreams } from './io.js';
import { markPainted, visibleLine, visibleText } from './terminal.js';
import { checkFields, selectFields } from './fields.js';
import { fitTable, GAP, type ColumnKind } from './fit.js';
import { cutToWidth, padToWidth, widthRuleFor, wrapToWidth } from './width.js';
import { shownTime } from './time.js';

// Renders data for people (aligned tables on a TTY, tab-separated rows when piped) or programs
// (--json: one document; -o ndjson: one object a line). Tables and colour load only on a TTY.

export interface Column<T> {
  header: string;
  value: (item: T) => unknown;
  /** Colour a cell by its text (statuses), on a TTY with colour on. */
  tone?: (text: string) => Tone | undefined;
  /**
   * What the column holds: only free `text` is ever cut to fit the terminal; ids, phone numbers,
   * counts, statuses and times are shown whole or, when the terminal is too narrow, left out.
   */
  kind: ColumnKind;
  /** Higher is kept longer when columns must be left out to fit (default: earlier columns higher). */
  importance?: number;
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
    kind: columns.find((c) => c.header === field.toUpperCase())?.kind ?? fieldKind(field),
  }));
}

/**
 * What a field chosen with --fields holds, by its name (the command's own column of that name
 * says so when there is one): ids, numbers and their parties, statuses and times are never cut.
 */
function fieldKind(field: string): ColumnKind {
  const name = field.split('.').pop() ?? field;
  if (/status$/i.test(name)) return 'status';
  if (/(id|number|from|to|tos|phone)$/i.test(name)) return 'id';
  if (/(at|date|time|since|until|expires)$/i.test(name)) return 'time';
  if (/(count|total|attempts?|segments|page|limit)$/i.test(name)) return 'number';
  return 'text';
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
 * An aligned table that fits the terminal (fit.ts: the least important columns are left out, then
 * free text is cut with an ellipsis; ids, numbers, statuses and times are never cut). Widths are
 * display widths of the text as shown (width.ts). Only ever on a TTY: --json and piped rows are
 * never shortened. When columns are left out, a line on stderr names them.
 */
export async function renderTable<T>(out: Output, items: readonly T[], allColumns: readonly Column<T>[]): Promise<string> {
  let columns = allColumns;
  // A time column says how long ago (or how soon) on a terminal, by the one rule of time.ts.
  const cell = (c: Column<T>, item: T): string => (c.kind === 'time' ? tableCell(shownTime(out, cellText(c.value(item)))) : tableCell(c.value(item)));
  let texts = items.map((item) => columns.map((c) => cell(c, item)));
  const headers = (): string[] => columns.map((c) => visibleLine(c.header));
  const rule = await widthRuleFor([...headers(), ...texts.flat()]);
  const natural = (): number[] => columns.map((c, i) => Math.max(rule.width(visibleLine(c.header)), ...texts.map((row) => rule.width(row[i]!))));
  // A column empty in every row says nothing to a person: it is not shown (unless --fields asked
  // for it); piped rows and --json keep every column, so that scripts see a fixed shape.
  if (out.fields === undefined || natural().reduce((a, b) => a + b, 0) + GAP * (columns.length - 1) > out.io.columns) {
    const keep = columns.map((_, i) => i === 0 || texts.some((row) => row[i] !== ''));
    columns = columns.filter((_, i) => keep[i]);
    texts = texts.map((row) => row.filter((_, i) => keep[i]));
  }
  const widths = natural();
  const fit = fitTable(
    columns.map((c, i) => ({
      natural: widths[i]!,
      header: rule.width(visibleLine(c.header)),
      kind: c.kind,
      importance: c.importance ?? columns.length - i,
    })),
    out.io.columns,
  );
  if (fit.hidden.length > 0) {
    const names = fit.hidden.map((i) => visibleLine(columns[i]!.header));
    const note = `Left out to fit the terminal: ${names.join(', ')} (--fields or --json shows ${names.length === 1 ? 'it' : 'them'})`;
    for (const part of wrapToWidth(rule, note, out.io.columns)) out.io.stderr.write(`${await paint(out, 'stderr', 'dim', part)}\n`);
  }
  const line = async (cells: readonly string[], tone: (k: number, shown: string) => Promise<string>): Promise<string> => {
    let text = '';
    for (let k = 0; k < fit.shown.length; k++) {
      const cell = cells[fit.shown[k]!]!;
      const width = fit.widths[k]!;
      const shown = cutToWidth(rule, cell, width);
      const last = k === fit.shown.length - 1;
      text += `${await tone(k, shown)}${last ? '' : ' '.repeat(Math.max(0, width - rule.width(shown)) + GAP)}`;
    }
    return text.trimEnd();
  };
  const lines = [await line(headers(), (_, shown) => paint(out, 'stdout', 'accent', shown))];
  for (const row of texts) {
    lines.push(
      await line(row, async (k, shown) => {
        const i = fit.shown[k]!;
        const tone = columns[i]!.tone?.(row[i]!);
        return tone ? paint(out, 'stdout', tone, shown) : shown;
      }),
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
  const shown = rows.map(([key, full]) => [visibleLine(key), tableCell(fieldKind(key) === 'time' ? shownTime(out, full) : full)] as const);
  const rule = await widthRuleFor(shown.flat());
  const width = Math.min(40, Math.max(0, ...shown.map(([k]) => rule.width(k))));
  for (const [key, full] of shown) {
    const room = out.io.columns - Math.max(width, rule.width(key)) - 2;
    const label = await paint(out, 'stdout', 'dim', padToWidth(rule, key, width));
    // An id, a number, a status or a time is never cut (a cut id is a wrong id): one too wide to
    // sit beside its name goes on the next line, whole. Free text longer than the terminal is
    // shortened on screen only; --json and pipes keep it whole.
    if (fieldKind(key) !== 'text' && rule.width(full) > room) {
      lines.push(await paint(out, 'stdout', 'dim', key), `  ${full}`);
      continue;
    }
    const text = cutToWidth(rule, full, Math.max(12, room));
    const tone = key.toLowerCase().endsWith('status') ? statusTone(text) : undefined;
    const value = tone ? await paint(out, 'stdout', tone, text) : text;
    lines.push(`${label}  ${value}`);
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
