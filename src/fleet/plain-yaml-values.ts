// The values of the plain block YAML that plain-yaml.ts reads: what is written on one line after
// `key: ` or `- ` (plain or quoted scalars, one-line flow collections), and the keys. Anything
// outside the plain style throws NOT_PLAIN, and the full reader reads the file instead.

/** Thrown inside to leave for the full reader; never escapes readPlainYaml. */
export class NotPlain extends Error {}
export const NOT_PLAIN = new NotPlain();

// A superset of what YAML 1.2's core schema reads as a number.
const NUMBER_LIKE = /^[-+]?(?:0[box]?[0-9a-fA-F_]*|[0-9][0-9_]*(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?|\.[0-9_]+(?:[eE][-+]?[0-9]+)?|\.(?:inf|Inf|INF|nan|NaN|NAN))$/;
const WORD_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;
// Numbers in their plainest forms (no leading zeros, 15 digits at most): others are the full reader's.
const INTEGER = /^[-+]?(?:0|[1-9][0-9]{0,14})$/;
const DECIMAL = /^[-+]?(?:0|[1-9][0-9]{0,14})\.[0-9]{1,15}$/;
// First characters that make a plain scalar something other than text (or not plain at all).
export const SPECIAL_START = new Set(['&', '*', '!', '|', '>', '%', '@', '`', '?', '-', '{', '[', ']', '}', ',', '#', '"', "'"]);

export const SPACE = 0x20;
export const QUOTE = 0x22;
export const COMMA = 0x2c;
export const BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const BACKSLASH = 0x5c;
export const HASH = 0x23;
export const COLON = 0x3a;
export const DASH = 0x2d;

/**
 * The few keys of a fleet file come back on every entry (ten thousand times `number:`): each is
 * cut out of the text and checked once, then found again by comparing it in place, so that no
 * new string is made (nor looked up among the engine's names) for each line.
 */
export class KeyTable {
  /** Known keys by length. */
  private readonly byLength: string[][] = [];
  private size = 0;

  /** The key written in text[from, to), when it is a simple word; else NOT_PLAIN is thrown. */
  key(text: string, from: number, to: number): string {
    const key = this.find(text, from, to);
    if (key === undefined) throw NOT_PLAIN;
    return key;
  }

  /** The key written in text[from, to), or undefined when it is not a simple word. */
  find(text: string, from: number, to: number): string | undefined {
    const known = this.byLength[to - from];
    if (known !== undefined) {
      for (let i = 0; i < known.length; i++) if (text.startsWith(known[i]!, from)) return known[i]!;
    }
    const key = text.slice(from, to);
    if (!WORD_KEY.test(key)) return undefined;
    // Past a few hundred different keys (not a fleet file), keys are cut out each time.
    if (this.size < 256) {
      if (known === undefined) this.byLength[to - from] = [key];
      else known.push(key);
      this.size++;
    }
    return key;
  }
}

export function setKey(map: Record<string, unknown>, key: string, value: unknown): void {
  // A key given twice, or one that would reach the object's prototype: the full reader's to judge.
  if (key === '__proto__' || Object.prototype.hasOwnProperty.call(map, key)) throw NOT_PLAIN;
  map[key] = value;
}

/**
 * Where a simple scalar of a flow mapping that starts at `from` ends (before `last`, the closing
 * brace): past the closing quote of quoted text without escapes, or at the `,` or `}` after a
 * word; -1 for anything the scanner must read (escapes, nested collections, `:` or `#` inside).
 */
export function flowScalarEnd(text: string, from: number, last: number): number {
  if (from >= last) return -1;
  if (text.charCodeAt(from) === QUOTE) {
    for (let i = from + 1; i < last; i++) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) return i + 1;
      if (c === BACKSLASH) return -1;
    }
    return -1;
  }
  if (SPECIAL_START.has(text[from]!)) return -1;
  for (let i = from; i < last; i++) {
    const c = text.charCodeAt(i);
    if (c === COMMA) return i;
    if (c === COLON || c === HASH || c === QUOTE || c === 0x27 || c === 0x5b || c === 0x5d || c === BRACE || c === CLOSE_BRACE) return -1;
  }
  return last;
}

/** One line's value: a quoted or plain scalar, or a flow collection closed on the same line. */
export class InlineScanner {
  private at = 0;
  private stop = 0;

  constructor(
    private readonly text: string,
    private readonly keys: KeyTable,
  ) {}

  /** Reads text[from, to) next. */
  reset(from: number, to: number): void {
    this.at = from;
    this.stop = to;
  }

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
      if (end + 1 >= this.stop || this.text.charCodeAt(end + 1) !== SPACE) throw NOT_PLAIN;
      const key = this.keys.key(this.text, this.at, end);
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

const ESCAPES: Readonly<Record<string, string>> = { '\\': '\\', '"': '"', '/': '/', n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', '0': '\0', ' ': ' ' };

/** A plain scalar by YAML 1.2's core schema: null, booleans, decimal numbers; else text. */
export function resolvePlain(raw: string): unknown {
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
