// A reader for the plain block YAML a fleet file is written in (as `svc export` writes it, and as
// people write it by hand): indented mappings and `- ` lists, one value a line, plain or quoted
// scalars, one-line `{...}`/`[...]` collections, comments. On a file of ten thousand numbers it
// takes a fraction of what a full YAML parser does (the largest part of a no-change `svc diff`).
// Anything outside that plain style (anchors, tags, block or multi-line scalars, several
// documents, keys that are not simple words, a key given twice, anything odd) gives undefined,
// and the full reader (js-yaml, then `yaml` for positions) reads the file instead. Values are
// those of YAML 1.2's core schema, as js-yaml gives them: the tests hold the two to the same
// output.

interface Line {
  /** Spaces before the content. */
  indent: number;
  content: string;
}

/** Thrown inside to leave for the full reader; never escapes readPlainYaml. */
class NotPlain extends Error {}
const NOT_PLAIN = new NotPlain();

// Characters YAML does not allow in a stream, or that only the full reader handles well.
const UNUSUAL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\t\r\ufeff\ufffe\uffff\u2028\u2029\ud800-\udfff]/;
// A superset of what YAML 1.2's core schema reads as a number.
const NUMBER_LIKE = /^[-+]?(?:0[box]?[0-9a-fA-F_]*|[0-9][0-9_]*(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?|\.[0-9_]+(?:[eE][-+]?[0-9]+)?|\.(?:inf|Inf|INF|nan|NaN|NAN))$/;
const WORD_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;
// Numbers in their plainest forms (no leading zeros, 15 digits at most): others are the full reader's.
const INTEGER = /^[-+]?(?:0|[1-9][0-9]{0,14})$/;
const DECIMAL = /^[-+]?(?:0|[1-9][0-9]{0,14})\.[0-9]{1,15}$/;
// First characters that make a plain scalar something other than text (or not plain at all).
const SPECIAL_START = new Set(['&', '*', '!', '|', '>', '%', '@', '`', '?', '-', '{', '[', ']', '}', ',', '#', '"', "'"]);

/** The value of `text`, or undefined when it is not plain block YAML (the full reader decides). */
export function readPlainYaml(text: string): unknown {
  const body = text.endsWith('\r\n') || text.includes('\r\n') ? text.replace(/\r\n/g, '\n') : text;
  if (UNUSUAL.test(body)) return undefined;
  try {
    const lines = contentLines(body);
    if (lines.length === 0) return undefined;
    const reader = new BlockReader(lines);
    const value = reader.block(lines[0]!.indent);
    if (reader.at < lines.length) return undefined;
    return value;
  } catch (error) {
    if (error instanceof NotPlain) return undefined;
    throw error;
  }
}

/** The lines that hold something, comments and blank lines left out. */
function contentLines(text: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  let first = true;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    let indent = 0;
    while (text.charCodeAt(start + indent) === 0x20) indent++;
    const from = start + indent;
    if (from < end && text.charCodeAt(from) !== 0x23) {
      const content = text.slice(from, end).trimEnd();
      // A document marker or directive: only a single leading `---` is plain.
      if (indent === 0 && (content.startsWith('---') || content.startsWith('...') || content.startsWith('%'))) {
        if (!(first && content === '---')) throw NOT_PLAIN;
      } else {
        lines.push({ indent, content });
      }
      first = false;
    }
    start = end + 1;
  }
  return lines;
}

function isSeqItem(content: string): boolean {
  return content === '-' || content.startsWith('- ');
}

/** Where `key:` ends in a mapping line (the colon), or -1 when the line is not `word: ...`. */
function keyEnd(content: string): number {
  const colon = content.indexOf(':');
  if (colon <= 0) return -1;
  if (colon + 1 < content.length && content.charCodeAt(colon + 1) !== 0x20) return -1;
  return colon;
}

/** The few keys of a fleet file come back on every entry: each is checked once. */
const wordKeys = new Map<string, boolean>();
function isWordKey(key: string): boolean {
  let known = wordKeys.get(key);
  if (known === undefined) {
    known = WORD_KEY.test(key);
    if (wordKeys.size < 1000) wordKeys.set(key, known);
  }
  return known;
}

function setKey(map: Record<string, unknown>, key: string, value: unknown): void {
  // A key given twice, or one that would reach the object's prototype: the full reader's to judge.
  if (key === '__proto__' || Object.prototype.hasOwnProperty.call(map, key)) throw NOT_PLAIN;
  map[key] = value;
}

class BlockReader {
  at = 0;

  constructor(private readonly lines: Line[]) {}

  /** The collection whose first line is the current one, at `indent`. */
  block(indent: number): unknown {
    const line = this.lines[this.at]!;
    if (line.indent !== indent) throw NOT_PLAIN;
    return isSeqItem(line.content) ? this.sequence(indent) : this.mapping(indent);
  }

  /** What follows `key:` or `-` with nothing after it on the line. */
  private nested(parentIndent: number, allowSameIndentSeq: boolean): unknown {
    const next = this.lines[this.at];
    if (next === undefined) return null;
    if (next.indent > parentIndent) return this.block(next.indent);
    if (allowSameIndentSeq && next.indent === parentIndent && isSeqItem(next.content)) return this.sequence(parentIndent);
    return null;
  }

  private mapping(indent: number): Record<string, unknown> {
    const map: Record<string, unknown> = {};
    while (this.at < this.lines.length) {
      const line = this.lines[this.at]!;
      if (line.indent < indent) break;
      if (line.indent > indent || isSeqItem(line.content)) throw NOT_PLAIN;
      const colon = keyEnd(line.content);
      if (colon === -1) throw NOT_PLAIN;
      const key = line.content.slice(0, colon);
      if (!isWordKey(key)) throw NOT_PLAIN;
      const rest = line.content.slice(colon + 1).trimStart();
      this.at++;
      setKey(map, key, rest === '' || rest.startsWith('#') ? this.nested(indent, true) : this.inlineValue(rest, indent));
    }
    return map;
  }

  private sequence(indent: number): unknown[] {
    const list: unknown[] = [];
    while (this.at < this.lines.length) {
      const line = this.lines[this.at]!;
      // A line at the same indent that is no item ends a list written under its key's indent.
      if (line.indent < indent || (line.indent === indent && !isSeqItem(line.content))) break;
      if (line.indent > indent) throw NOT_PLAIN;
      let offset = 1;
      while (line.content.charCodeAt(offset) === 0x20) offset++;
      const rest = line.content.slice(offset);
      if (rest === '' || rest.startsWith('#')) {
        this.at++;
        list.push(this.nested(indent, false));
      } else if (isSeqItem(rest) || (!FLOW_OR_QUOTE.has(rest[0]!) && keyEnd(rest) !== -1)) {
        // `- key: value` or `- - item`: the rest of the line opens a collection at its column.
        this.lines[this.at] = { indent: indent + offset, content: rest };
        list.push(this.block(indent + offset));
      } else {
        this.at++;
        list.push(this.inlineValue(rest, indent));
      }
    }
    return list;
  }

  /** A value written on its line after `key: ` or `- `; nothing may continue it below. */
  private inlineValue(text: string, indent: number): unknown {
    const scanner = new InlineScanner(text);
    const value = scanner.value(false);
    scanner.end();
    const next = this.lines[this.at];
    if (next !== undefined && next.indent > indent) throw NOT_PLAIN;
    return value;
  }
}

/** One line's value: a quoted or plain scalar, or a flow collection closed on the same line. */
class InlineScanner {
  private at = 0;

  constructor(private readonly text: string) {}

  private skipSpaces(): void {
    while (this.text.charCodeAt(this.at) === 0x20) this.at++;
  }

  /** Only a comment may follow the value. */
  end(): void {
    const before = this.at;
    this.skipSpaces();
    if (this.at === this.text.length) return;
    if (this.text.charCodeAt(this.at) !== 0x23 || this.at === before) throw NOT_PLAIN;
  }

  value(inFlow: boolean): unknown {
    this.skipSpaces();
    const c = this.text[this.at];
    if (c === '"') return this.doubleQuoted();
    if (c === "'") return this.singleQuoted();
    if (c === '{') return this.flowMapping();
    if (c === '[') return this.flowSequence();
    return this.plain(inFlow);
  }

  private plain(inFlow: boolean): unknown {
    const start = this.at;
    const text = this.text;
    if (start >= text.length || SPECIAL_START.has(text[start]!)) throw NOT_PLAIN;
    let end = start;
    while (end < text.length) {
      const c = text.charCodeAt(end);
      if (c === 0x23 && text.charCodeAt(end - 1) === 0x20) break; // ' #' begins a comment
      if (c === 0x3a && (end + 1 === text.length || text.charCodeAt(end + 1) === 0x20 || (inFlow && ',]}'.includes(text[end + 1]!)))) {
        if (!inFlow) throw NOT_PLAIN; // `a: b: c`
        break;
      }
      if (inFlow && (c === 0x2c || c === 0x5d || c === 0x7d || c === 0x5b || c === 0x7b)) break;
      end++;
    }
    const raw = text.slice(start, end).trimEnd();
    this.at = start + raw.length;
    return resolvePlain(raw);
  }

  private doubleQuoted(): string {
    const text = this.text;
    let out = '';
    let i = this.at + 1;
    let from = i;
    for (;;) {
      if (i >= text.length) throw NOT_PLAIN; // runs on to another line
      const c = text.charCodeAt(i);
      if (c === 0x22) break;
      if (c !== 0x5c) {
        i++;
        continue;
      }
      out += text.slice(from, i);
      const e = text[i + 1];
      const simple = e === undefined ? undefined : ESCAPES[e];
      if (simple !== undefined) {
        out += simple;
        i += 2;
      } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
        out += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16));
        i += 6;
      } else {
        throw NOT_PLAIN;
      }
      from = i;
    }
    out += text.slice(from, i);
    this.at = i + 1;
    return out;
  }

  private singleQuoted(): string {
    const text = this.text;
    let out = '';
    let i = this.at + 1;
    for (;;) {
      const close = text.indexOf("'", i);
      if (close === -1) throw NOT_PLAIN;
      out += text.slice(i, close);
      if (text[close + 1] === "'") {
        out += "'";
        i = close + 2;
        continue;
      }
      this.at = close + 1;
      return out;
    }
  }

  /** After a flow item: `,` then more, or the closing bracket. True when closed. */
  private afterItem(close: string): boolean {
    this.skipSpaces();
    const c = this.text[this.at];
    if (c === close) {
      this.at++;
      return true;
    }
    if (c !== ',') throw NOT_PLAIN;
    this.at++;
    this.skipSpaces();
    return false;
  }

  private flowMapping(): Record<string, unknown> {
    const map: Record<string, unknown> = {};
    this.at++;
    this.skipSpaces();
    if (this.text[this.at] === '}') {
      this.at++;
      return map;
    }
    for (;;) {
      this.skipSpaces();
      const match = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(this.text.slice(this.at, this.at + 200));
      if (match === null) throw NOT_PLAIN;
      this.at += match[0].length;
      if (this.text[this.at] !== ':' || this.text[this.at + 1] !== ' ') throw NOT_PLAIN;
      this.at += 2;
      setKey(map, match[0], this.value(true));
      if (this.afterItem('}')) return map;
    }
  }

  private flowSequence(): unknown[] {
    const list: unknown[] = [];
    this.at++;
    this.skipSpaces();
    if (this.text[this.at] === ']') {
      this.at++;
      return list;
    }
    for (;;) {
      list.push(this.value(true));
      if (this.afterItem(']')) return list;
    }
  }
}

const FLOW_OR_QUOTE = new Set(['{', '[', '"', "'"]);

const ESCAPES: Readonly<Record<string, string>> = { '\\': '\\', '"': '"', '/': '/', n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', '0': '\0', ' ': ' ' };

/** A plain scalar by YAML 1.2's core schema: null, booleans, decimal numbers; else text. */
function resolvePlain(raw: string): unknown {
  const first = raw.charCodeAt(0);
  // Text that begins with a letter is text, but for the words of null and the booleans.
  if ((first >= 0x61 && first <= 0x7a) || (first >= 0x41 && first <= 0x5a)) {
    if (raw.length > 5) return raw;
    switch (raw) {
      case 'null':
      case 'Null':
      case 'NULL':
        return null;
      case 'true':
      case 'True':
      case 'TRUE':
        return true;
      case 'false':
      case 'False':
      case 'FALSE':
        return false;
      default:
        return raw;
    }
  }
  if (raw === '~') return null;
  if (INTEGER.test(raw) || DECIMAL.test(raw)) return Number(raw);
  // Anything else a YAML reader might take for a number (0x10, 1e3, .inf, 010 ...) is the full reader's.
  if (NUMBER_LIKE.test(raw)) throw NOT_PLAIN;
  return raw;
}
