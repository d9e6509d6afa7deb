// A reader for the plain block YAML a fleet file is written in (as `svc export` writes it, and as
// people write it by hand): indented mappings and `- ` lists, one value a line, plain or quoted
// scalars, one-line `{...}`/`[...]` collections, comments. On a file of ten thousand numbers it
// takes a fraction of what a full YAML parser does (the largest part of a no-change `svc diff`).
// Anything outside that plain style (anchors, tags, block or multi-line scalars, several
// documents, keys that are not simple words, a key given twice, anything odd) gives undefined,
// and the full reader (js-yaml, then `yaml` for positions) reads the file instead. Values are
// those of YAML 1.2's core schema, as js-yaml gives them: the tests hold the two to the same
// output.

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

const SPACE = 0x20;
const HASH = 0x23;
const COLON = 0x3a;
const DASH = 0x2d;

/** The value of `text`, or undefined when it is not plain block YAML (the full reader decides). */
export function readPlainYaml(text: string): unknown {
  const body = text.includes('\r\n') ? text.replace(/\r\n/g, '\n') : text;
  if (UNUSUAL.test(body)) return undefined;
  try {
    const reader = new BlockReader(body);
    if (reader.count === 0) return undefined;
    const value = reader.block(reader.indent[0]!);
    if (reader.at < reader.count) return undefined;
    return value;
  } catch (error) {
    if (error instanceof NotPlain) return undefined;
    throw error;
  }
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

/**
 * The lines that hold something (comments and blank lines left out), as offsets into the text:
 * where each line's content starts and ends and how far it is indented, so that only keys and
 * values are ever cut out of the text.
 */
class BlockReader {
  readonly indent: number[] = [];
  private readonly start: number[] = [];
  private readonly end: number[] = [];
  readonly count: number;
  at = 0;

  constructor(private readonly text: string) {
    let from = 0;
    let first = true;
    while (from <= text.length) {
      let stop = text.indexOf('\n', from);
      if (stop === -1) stop = text.length;
      let begin = from;
      while (text.charCodeAt(begin) === SPACE) begin++;
      if (begin < stop && text.charCodeAt(begin) !== HASH) {
        let last = stop;
        while (text.charCodeAt(last - 1) === SPACE) last--;
        // A document marker or directive: only a single leading `---` is plain.
        const marker = begin === from && (text.startsWith('---', begin) || text.startsWith('...', begin) || text.charCodeAt(begin) === 0x25);
        if (marker && !(first && last - begin === 3 && text.startsWith('---', begin))) throw NOT_PLAIN;
        if (!marker) {
          this.indent.push(begin - from);
          this.start.push(begin);
          this.end.push(last);
        }
        first = false;
      }
      from = stop + 1;
    }
    this.count = this.indent.length;
  }

  /** The current line is `-` or `- ...`. */
  private isItem(line: number): boolean {
    const s = this.start[line]!;
    return this.text.charCodeAt(s) === DASH && (s + 1 === this.end[line] || this.text.charCodeAt(s + 1) === SPACE);
  }

  /** Where `word:` ends on a line from `from` (the colon), or -1 when it does not begin so. */
  private keyEnd(from: number, to: number): number {
    const colon = this.text.indexOf(':', from);
    if (colon <= from || colon >= to) return -1;
    if (colon + 1 < to && this.text.charCodeAt(colon + 1) !== SPACE) return -1;
    return colon;
  }

  /** The collection whose first line is the current one, at `indent`. */
  block(indent: number): unknown {
    if (this.indent[this.at] !== indent) throw NOT_PLAIN;
    return this.isItem(this.at) ? this.sequence(indent) : this.mapping(indent);
  }

  /** What follows `key:` or `-` with nothing after it on the line. */
  private nested(parentIndent: number, allowSameIndentSeq: boolean): unknown {
    if (this.at >= this.count) return null;
    const next = this.indent[this.at]!;
    if (next > parentIndent) return this.block(next);
    if (allowSameIndentSeq && next === parentIndent && this.isItem(this.at)) return this.sequence(parentIndent);
    return null;
  }

  /** From `from` on the line, past spaces: -1 when only a comment or nothing is left. */
  private valueStart(from: number, to: number): number {
    while (from < to && this.text.charCodeAt(from) === SPACE) from++;
    return from === to || this.text.charCodeAt(from) === HASH ? -1 : from;
  }

  private mapping(indent: number): Record<string, unknown> {
    const map: Record<string, unknown> = {};
    while (this.at < this.count) {
      const line = this.at;
      if (this.indent[line]! < indent) break;
      if (this.indent[line]! > indent || this.isItem(line)) throw NOT_PLAIN;
      const start = this.start[line]!;
      const end = this.end[line]!;
      const colon = this.keyEnd(start, end);
      if (colon === -1) throw NOT_PLAIN;
      const key = this.text.slice(start, colon);
      if (!isWordKey(key)) throw NOT_PLAIN;
      const value = this.valueStart(colon + 1, end);
      this.at++;
      setKey(map, key, value === -1 ? this.nested(indent, true) : this.inlineValue(value, end, indent));
    }
    return map;
  }

  private sequence(indent: number): unknown[] {
    const list: unknown[] = [];
    const text = this.text;
    while (this.at < this.count) {
      const line = this.at;
      // A line at the same indent that is no item ends a list written under its key's indent.
      if (this.indent[line]! < indent || (this.indent[line] === indent && !this.isItem(line))) break;
      if (this.indent[line]! > indent) throw NOT_PLAIN;
      const start = this.start[line]!;
      const end = this.end[line]!;
      let rest = start + 1;
      while (rest < end && text.charCodeAt(rest) === SPACE) rest++;
      if (rest === end || text.charCodeAt(rest) === HASH) {
        this.at++;
        list.push(this.nested(indent, false));
      } else if ((text.charCodeAt(rest) === DASH && (rest + 1 === end || text.charCodeAt(rest + 1) === SPACE)) || (!FLOW_OR_QUOTE.has(text[rest]!) && this.keyEnd(rest, end) !== -1)) {
        // `- key: value` or `- - item`: the rest of the line opens a collection at its column.
        const column = indent + (rest - start);
        this.indent[line] = column;
        this.start[line] = rest;
        list.push(this.block(column));
      } else {
        this.at++;
        list.push(this.inlineValue(rest, end, indent));
      }
    }
    return list;
  }

  /** A value written on its line after `key: ` or `- `; nothing may continue it below. */
  private inlineValue(from: number, to: number, indent: number): unknown {
    const scanner = new InlineScanner(this.text, from, to);
    const value = scanner.value(false);
    scanner.finish();
    if (this.at < this.count && this.indent[this.at]! > indent) throw NOT_PLAIN;
    return value;
  }
}

/** One line's value: a quoted or plain scalar, or a flow collection closed on the same line. */
class InlineScanner {
  constructor(
    private readonly text: string,
    private at: number,
    private readonly stop: number,
  ) {}

  private skipSpaces(): void {
    while (this.at < this.stop && this.text.charCodeAt(this.at) === SPACE) this.at++;
  }

  /** Only a comment, after a space, may follow the value. */
  finish(): void {
    const before = this.at;
    this.skipSpaces();
    if (this.at === this.stop) return;
    if (this.text.charCodeAt(this.at) !== HASH || this.at === before) throw NOT_PLAIN;
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
    const stop = this.stop;
    if (start >= stop || SPECIAL_START.has(text[start]!)) throw NOT_PLAIN;
    let end = start;
    while (end < stop) {
      const c = text.charCodeAt(end);
      if (c === HASH && text.charCodeAt(end - 1) === SPACE) break; // ' #' begins a comment
      if (c === COLON && (end + 1 === stop || text.charCodeAt(end + 1) === SPACE || (inFlow && ',]}'.includes(text[end + 1]!)))) {
        if (!inFlow) throw NOT_PLAIN; // `a: b: c`
        break;
      }
      if (inFlow && (c === 0x2c || c === 0x5d || c === 0x7d || c === 0x5b || c === 0x7b)) break;
      end++;
    }
    while (end > start && text.charCodeAt(end - 1) === SPACE) end--;
    this.at = end;
    return resolvePlain(text.slice(start, end));
  }

  private doubleQuoted(): string {
    const text = this.text;
    let out = '';
    let i = this.at + 1;
    let from = i;
    for (;;) {
      if (i >= this.stop) throw NOT_PLAIN; // runs on to another line
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
      if (close === -1 || close >= this.stop) throw NOT_PLAIN;
      out += text.slice(i, close);
      if (close + 1 < this.stop && text[close + 1] === "'") {
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
    const c = this.at < this.stop ? this.text[this.at] : undefined;
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
    if (this.at < this.stop && this.text[this.at] === '}') {
      this.at++;
      return map;
    }
    for (;;) {
      this.skipSpaces();
      let end = this.at;
      while (end < this.stop && this.text.charCodeAt(end) !== COLON) end++;
      const key = this.text.slice(this.at, end);
      if (end + 1 >= this.stop || this.text.charCodeAt(end + 1) !== SPACE || !isWordKey(key)) throw NOT_PLAIN;
      this.at = end + 2;
      setKey(map, key, this.value(true));
      if (this.afterItem('}')) return map;
    }
  }

  private flowSequence(): unknown[] {
    const list: unknown[] = [];
    this.at++;
    this.skipSpaces();
    if (this.at < this.stop && this.text[this.at] === ']') {
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
