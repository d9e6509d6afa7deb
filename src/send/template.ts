// Message bodies with `{{column}}` placeholders, filled from the columns of a recipients file.
//
// A body is compiled once against the file's header, which is when an unknown placeholder is
// reported (before anything is sent); rendering is then a walk over prepared parts, cheap enough
// to run per recipient. Column names match case-insensitively and whitespace inside the braces
// is ignored: `{{ First Name }}` fills from a column "first name". Text that is not a complete
// `{{name}}` (a lone `{`, an unclosed `{{`) is literal.

/** `{{`, then a name without braces or line breaks, then `}}`. */
const PLACEHOLDER = /\{\{([^{}\r\n]*)\}\}/g;

export interface TemplatePlaceholder {
  /** The name as written between the braces, trimmed. */
  name: string;
  /** The placeholder as written, braces included. */
  raw: string;
  /** UTF-16 offset of the opening `{{` in the source. */
  offset: number;
}

export interface CompiledTemplate {
  readonly source: string;
  /** Header names used, as the file spells them, distinct, in order of first use. */
  readonly columns: readonly string[];
  /** True when there is no placeholder: every recipient gets `source` as it is. */
  readonly isStatic: boolean;
  /** The body for one recipient; a column missing from `fields` renders as empty text. */
  render(fields: Readonly<Record<string, string>>): string;
}

/** Placeholders that name no column, or have no name: checked before any request is sent. */
export class TemplateError extends Error {
  readonly placeholders: string[];
  readonly available: string[];

  constructor(message: string, placeholders: string[], available: string[]) {
    super(message);
    this.name = 'TemplateError';
    this.placeholders = placeholders;
    this.available = available;
  }
}

/** Every `{{name}}` in the text, in order. */
export function findPlaceholders(source: string): TemplatePlaceholder[] {
  const found: TemplatePlaceholder[] = [];
  for (const match of source.matchAll(PLACEHOLDER)) {
    found.push({ name: match[1]!.trim(), raw: match[0], offset: match.index });
  }
  return found;
}

/**
 * Compiles `source` against the columns of the recipients file (empty for a text file or plain
 * `--to`). Throws TemplateError naming every unknown placeholder and the available columns.
 */
export function compileTemplate(source: string, columns: readonly string[]): CompiledTemplate {
  const byLowerCase = new Map<string, string>();
  for (const column of columns) {
    const lower = column.trim().toLowerCase();
    if (!byLowerCase.has(lower)) byLowerCase.set(lower, column);
  }

  // Literal text at even indexes, column names at odd ones: literal, column, literal, ... literal.
  const parts: string[] = [];
  const used: string[] = [];
  const unknown: string[] = [];
  let copiedUpTo = 0;
  for (const { name, raw, offset } of findPlaceholders(source)) {
    const column = byLowerCase.get(name.toLowerCase());
    if (column === undefined || name === '') {
      if (!unknown.includes(name)) unknown.push(name);
      continue;
    }
    if (!used.includes(column)) used.push(column);
    parts.push(source.slice(copiedUpTo, offset), column);
    copiedUpTo = offset + raw.length;
  }
  parts.push(source.slice(copiedUpTo));

  if (unknown.length > 0) {
    throw new TemplateError(describeUnknown(unknown, columns), unknown, [...columns]);
  }

  if (parts.length === 1) {
    return { source, columns: [], isStatic: true, render: () => source };
  }
  return {
    source,
    columns: used,
    isStatic: false,
    render(fields) {
      let out = parts[0]!;
      for (let i = 1; i < parts.length; i += 2) {
        out += (fields[parts[i]!] ?? '') + parts[i + 1]!;
      }
      return out;
    },
  };
}

function describeUnknown(unknown: string[], columns: readonly string[]): string {
  const names = unknown.map((name) => (name === '' ? '{{}} (a placeholder needs a column name)' : `{{${name}}}`));
  const subject = names.length === 1 ? `unknown placeholder ${names[0]}` : `unknown placeholders ${names.join(', ')}`;
  if (columns.length === 0) {
    return `${subject} in the body: placeholders are filled from the columns of a CSV --to-file, and there are none`;
  }
  return `${subject} in the body; the columns are: ${columns.join(', ')}`;
}
