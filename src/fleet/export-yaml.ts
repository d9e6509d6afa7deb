// The text of `svc export`, written directly for the plain shape an export has (mappings, lists,
// words, numbers, booleans, and `{env: NAME}` references), exactly as the `yaml` library writes
// it (indent 2, lists indented under their key, no folding, a one-key `env` mapping on one line).
// The library took seconds and 160 MB for ten thousand numbers, most of it building a node for
// every value. A document with anything this writer does not know how to write exactly as the
// library does (a string to quote with escapes or in single quotes, a number with a fraction, a
// list in a list, a key that is not a word) gives undefined, and the library writes it.

type Value = unknown;

/** Thrown inside when the document is not of the plain shape; never escapes exportYamlText. */
class NotPlainShape extends Error {}
const NOT_PLAIN_SHAPE = new NotPlainShape();

const INDENT = '  ';
/** Characters the library writes in double quotes with escapes, or that only it should judge. */
const UNUSUAL = /[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]/;
/** What the library does not write as a plain scalar (its own rule, stringifyString.js). */
const NOT_PLAIN = /^[\n\t ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-][ \t]|[\n:][ \t]|[ \t]\n|[\n\t ]#|[\n\t :]$/;
const DOCUMENT_MARKER = /^(?:%|---|\.\.\.)/;
/** Text that YAML 1.2's core schema would read as null, a boolean or a number: written in double quotes. */
const OTHER_TYPE = [
  /^(?:~|[Nn]ull|NULL)?$/,
  /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/,
  /^0o[0-7]+$/,
  /^[-+]?[0-9]+$/,
  /^0x[0-9a-fA-F]+$/,
  /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
  /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/,
  /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/,
];
const WORD_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Text the library quotes in flow collections (inside `{env: ...}`). */
const FLOW_INDICATOR = /[[\]{},]/;

function isRecord(value: Value): value is Record<string, Value> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Text as the library writes it: plain, or in double quotes when plain would read as another type. */
function text(value: string, inFlow: boolean): string {
  if (value === '' || UNUSUAL.test(value) || NOT_PLAIN.test(value) || DOCUMENT_MARKER.test(value) || (inFlow && FLOW_INDICATOR.test(value))) throw NOT_PLAIN_SHAPE;
  for (const type of OTHER_TYPE) {
    // Such text has only letters, digits, dots and signs: in double quotes it needs no escape.
    if (type.test(value)) return `"${value}"`;
  }
  return value;
}

function scalar(value: Value, inFlow: boolean): string {
  if (typeof value === 'string') return text(value, inFlow);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value === null) return 'null';
  if (typeof value === 'number' && Number.isSafeInteger(value) && !Object.is(value, -0)) return String(value);
  throw NOT_PLAIN_SHAPE;
}

function key(name: string): string {
  if (!WORD_KEY.test(name) || OTHER_TYPE.some((type) => type.test(name))) throw NOT_PLAIN_SHAPE;
  return name;
}

/** A mapping of one `env` key is written on one line, as a reference is written by hand. */
function isReference(value: Record<string, Value>): boolean {
  let count = 0;
  for (const name in value) {
    if (name !== 'env' || ++count > 1) return false;
  }
  return count === 1;
}

/** What follows `key:` or `-` on the same line (` value`), or undefined when the value takes the lines below. */
function inline(value: Value): string | undefined {
  if (Array.isArray(value)) return value.length === 0 ? ' []' : undefined;
  if (isRecord(value)) {
    if (isReference(value)) return ` {env: ${scalar(value['env'], true)}}`;
    for (const _ in value) return undefined;
    return ' {}';
  }
  return ` ${scalar(value, false)}`;
}

class Writer {
  readonly lines: string[] = [];

  /** The entries of a mapping, each on its line at `indent`; the first after `first` when given (a list item's `- `). */
  mapping(value: Record<string, Value>, indent: string, first?: string): void {
    let lead = first;
    for (const name in value) {
      const inner = value[name];
      const start = `${lead ?? indent}${key(name)}:`;
      lead = undefined;
      const rest = inline(inner);
      if (rest !== undefined) this.lines.push(start + rest);
      else {
        this.lines.push(start);
        this.block(inner, indent + INDENT);
      }
    }
  }

  /** The items of a list, each `- ` at `indent`. */
  list(value: Value[], indent: string): void {
    for (const item of value) {
      if (Array.isArray(item)) throw NOT_PLAIN_SHAPE;
      const rest = inline(item);
      if (rest !== undefined) this.lines.push(`${indent}-${rest}`);
      else this.mapping(item as Record<string, Value>, indent + INDENT, `${indent}- `);
    }
  }

  block(value: Value, indent: string): void {
    if (Array.isArray(value)) this.list(value, indent);
    else this.mapping(value as Record<string, Value>, indent);
  }
}

/** The document as YAML, or undefined when it is not of the plain shape (the `yaml` library writes it then). */
export function exportYamlText(document: Record<string, Value>): string | undefined {
  const writer = new Writer();
  try {
    writer.mapping(document, '');
  } catch (error) {
    if (error instanceof NotPlainShape) return undefined;
    throw error;
  }
  return writer.lines.length === 0 ? undefined : `${writer.lines.join('\n')}\n`;
}
