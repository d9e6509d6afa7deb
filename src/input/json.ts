// Reading JSON that a person wrote: every error says file:line:column, every entry and key its
// line. The one place that knows where in JSON text something is: scanJson below, which the
// error positions, the key lines of strict --file keys and the entry lines of provision files
// all ask.

import { UsageError } from '../errors.js';

/** A step of the way to a value: an object's key or an array's index. */
export type JsonPathSegment = string | number;

/** What a scan reports as it goes; `path` is the scanner's own array (copy it to keep it). */
export interface JsonVisitor {
  /** An object key begins (at its opening quote); `path` ends with the key. */
  key?(path: readonly JsonPathSegment[], offset: number, line: number): void;
  /** A value begins; `path` names it ([] for the root). */
  value?(path: readonly JsonPathSegment[], offset: number, line: number): void;
}

/** Where a scan stopped: the first character that is wrong, or the first bracket nested too deep. */
export interface JsonProblem {
  kind: 'syntax' | 'too-deep';
  /** Character offset, from 0. */
  offset: number;
  /** Line and column, from 1. */
  line: number;
  column: number;
}

/** A run of string characters that need no second look. */
const STRING_RUN = /[^"\\\u0000-\u001f]*/y;
const WHITE_SPACE = /[ \t\n\r]*/y;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
/** Characters that may follow a backslash in a JSON string (u is checked apart). */
const SIMPLE_ESCAPES = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);

function isHexDigit(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/**
 * The one walk over JSON text that knows where things are: it checks the text as JSON.parse
 * would, tells a visitor where each key and value begins (offset and line), and stops at the
 * first character that is wrong or the first bracket that nests deeper than `maxDepth`.
 * Iterative, so that text nested 100,000 deep costs no stack. Node's JSON.parse leaves the
 * position out of some messages ("Unexpected token '}'"), and every error must still say
 * file:line:column; JSON.parse gives values without positions, and entries and keys must still
 * say their line.
 */
export function scanJson(text: string, options: { maxDepth?: number; visit?: JsonVisitor } = {}): JsonProblem | undefined {
  return new JsonScanner(text, options.maxDepth ?? Infinity, options.visit).scan();
}

/**
 * One scan: where it is, the containers open around it, the path to the current value. Each
 * method reads one piece of the grammar and leaves `i` past it, or at its first wrong character.
 */
class JsonScanner {
  private readonly n: number;
  /** The open containers: 0x7b for an object, 0x5b for an array. */
  private readonly open: number[] = [];
  private readonly path: JsonPathSegment[] = [];
  private i = 0;
  // Lines are counted on demand, forward only (every offset asked for is past the last one).
  private line = 1;
  private lineStart = 0;
  /** Whether the last string held an escape (a key without one is its own text). */
  private escaped = false;

  constructor(
    private readonly text: string,
    private readonly maxDepth: number,
    private readonly visit: JsonVisitor | undefined,
  ) {
    this.n = text.length;
  }

  /** Value after value: a container opened leads into its first value, a value ended to what follows it. */
  scan(): JsonProblem | undefined {
    for (;;) {
      const read = this.value();
      if (read === 'opened') continue;
      if (read !== 'done') return read;
      const after = this.afterValue();
      if (after === 'end') return undefined;
      if (after !== 'next') return after;
    }
  }

  /** A value begins: read a whole scalar or empty container ('done'), or open a container ('opened'). */
  private value(): JsonProblem | 'opened' | 'done' {
    this.ws();
    const i = this.i;
    if (this.visit?.value !== undefined) this.visit.value(this.path, i, this.lineOf(i));
    const c = this.text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) return this.container(c);
    if (c === 0x22) return this.string() ? 'done' : this.problem('syntax');
    if (c === 0x74 || c === 0x66 || c === 0x6e) {
      const word = c === 0x74 ? 'true' : c === 0x66 ? 'false' : 'null';
      if (!this.text.startsWith(word, i)) return this.problem('syntax');
      this.i = i + word.length;
      return 'done';
    }
    NUMBER.lastIndex = i;
    if (!NUMBER.test(this.text)) return this.problem('syntax');
    this.i = NUMBER.lastIndex;
    return 'done';
  }

  /** At `{` or `[`: an empty one is a whole value; otherwise it stays open (an object's first key read). */
  private container(c: number): JsonProblem | 'opened' | 'done' {
    if (this.open.length >= this.maxDepth) return this.problem('too-deep');
    this.i++;
    this.ws();
    if (this.text.charCodeAt(this.i) === (c === 0x7b ? 0x7d : 0x5d)) {
      this.i++;
      return 'done';
    }
    this.open.push(c);
    this.path.push(c === 0x7b ? '' : 0);
    if (c === 0x7b && !this.key()) return this.problem('syntax');
    return 'opened';
  }

  /** A value ended: a comma leads to the next one ('next'), brackets close their containers, the text ends ('end'). */
  private afterValue(): JsonProblem | 'next' | 'end' {
    const { open, path } = this;
    for (;;) {
      this.ws();
      const container = open[open.length - 1];
      if (container === undefined) return this.i < this.n ? this.problem('syntax') : 'end';
      const d = this.text.charCodeAt(this.i);
      if (d === 0x2c) {
        this.i++;
        if (container === 0x7b) {
          if (!this.key()) return this.problem('syntax');
        } else path[path.length - 1] = (path[path.length - 1] as number) + 1;
        return 'next';
      }
      if (d !== (container === 0x7b ? 0x7d : 0x5d)) return this.problem('syntax');
      this.i++;
      open.pop();
      path.pop();
    }
  }

  /** After `{` or `,` in an object: the key and its colon; false at the first wrong character. */
  private key(): boolean {
    this.ws();
    const start = this.i;
    if (this.text.charCodeAt(start) !== 0x22) return false;
    if (!this.string()) return false;
    if (this.visit !== undefined) {
      const { path, text, i } = this;
      path[path.length - 1] = this.escaped ? (JSON.parse(text.slice(start, i)) as string) : text.slice(start + 1, i - 1);
      this.visit.key?.(path, start, this.lineOf(start));
    }
    this.ws();
    if (this.text.charCodeAt(this.i) !== 0x3a) return false;
    this.i++;
    return true;
  }

  /** At a quote: past the string, or false at its first wrong character (i is left there). */
  private string(): boolean {
    const text = this.text;
    const n = this.n;
    let i = this.i + 1;
    this.escaped = false;
    for (;;) {
      STRING_RUN.lastIndex = i;
      STRING_RUN.test(text);
      i = STRING_RUN.lastIndex;
      const c = i >= n ? -1 : text.charCodeAt(i);
      if (c === 0x22) {
        this.i = i + 1;
        return true;
      }
      // The end of the text, a control character, or an escape that is not one.
      const length = c === 0x5c ? escapeLength(text, i) : 0;
      if (length === 0) {
        this.i = c === 0x5c ? i + 1 : i;
        return false;
      }
      this.escaped = true;
      i += length;
    }
  }

  private ws(): void {
    WHITE_SPACE.lastIndex = this.i;
    WHITE_SPACE.test(this.text);
    this.i = WHITE_SPACE.lastIndex;
  }

  private lineOf(offset: number): number {
    const text = this.text;
    for (let nl = text.indexOf('\n', this.lineStart); nl !== -1 && nl < offset; nl = text.indexOf('\n', this.lineStart)) {
      this.line++;
      this.lineStart = nl + 1;
    }
    return this.line;
  }

  private problem(kind: JsonProblem['kind'], offset = this.i): JsonProblem {
    const line = this.lineOf(offset);
    return { kind, offset, line, column: offset - this.lineStart + 1 };
  }
}

/** The length of a valid escape at a backslash (2, or 6 for \uXXXX), or 0 for one JSON refuses. */
function escapeLength(text: string, at: number): number {
  const next = text.charCodeAt(at + 1);
  if (next === 0x75) {
    for (let k = 2; k < 6; k++) if (!isHexDigit(text.charCodeAt(at + k))) return 0;
    return 6;
  }
  return SIMPLE_ESCAPES.has(next) ? 2 : 0;
}

/** Where JSON text first goes wrong, as a character offset (undefined when it is valid). */
export function jsonErrorOffset(text: string): number | undefined {
  return scanJson(text)?.offset;
}

/** How deep JSON input may nest: far beyond any document the API takes, far below a stack overflow. */
export const MAX_JSON_DEPTH = 64;

/**
 * The offset of the first bracket that nests deeper than `limit`, or undefined (also when the
 * text goes wrong before it: then it is not JSON, whatever its depth).
 */
export function jsonTooDeepOffset(text: string, limit = MAX_JSON_DEPTH): number | undefined {
  const found = scanJson(text, { maxDepth: limit });
  return found?.kind === 'too-deep' ? found.offset : undefined;
}

/** Line and column of a character offset, both from 1. */
export function lineColumnAt(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/** Parses JSON; a syntax error names the source and the line and column where it was found. */
export function parseJsonText(text: string, source: string): unknown {
  const clean = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (clean.trim() === '') throw new UsageError(`${source}: is empty, expected JSON`);
  const found = scanJson(clean, { maxDepth: MAX_JSON_DEPTH });
  if (found?.kind === 'too-deep') {
    throw new UsageError(`${source}:${found.line}:${found.column}: JSON nested deeper than ${MAX_JSON_DEPTH} levels, the most any input may nest`);
  }
  try {
    return JSON.parse(clean) as unknown;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // Node 22 says "line L column C", Node 20 sometimes "position N" and sometimes nothing at all;
    // without a position the scan says where the first character that is wrong is.
    const lineCol = /line (\d+) column (\d+)/.exec(message);
    const position = /position (\d+)/.exec(message);
    let where = '';
    if (lineCol) where = `:${lineCol[1]}:${lineCol[2]}`;
    else if (position) {
      const at = lineColumnAt(clean, Number(position[1]));
      where = `:${at.line}:${at.column}`;
    } else if (found !== undefined) where = `:${found.line}:${found.column}`;
    const reason = message.replace(/^JSON\.parse: /, '').replace(/ in JSON at position \d+.*$/, '').replace(/, "[^]*$/, '');
    throw new UsageError(`${source}${where}: invalid JSON: ${reason}`);
  }
}

/** The line of each object key, by dotted path (`settings.webhookSecret`; array elements as `[0]`); the first occurrence wins. */
export function jsonKeyLines(text: string): Map<string, number> {
  const lines = new Map<string, number>();
  scanJson(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, {
    visit: {
      key(path, _offset, line) {
        const dotted = path.reduce<string>((joined, step) => (typeof step === 'number' ? `${joined}[${step}]` : joined === '' ? step : `${joined}.${step}`), '');
        if (!lines.has(dotted)) lines.set(dotted, line);
      },
    },
  });
  return lines;
}

/**
 * Start lines (from 1) of each element of one array, in order: the root array, or the array
 * under a key of the root object (`{"phoneNumbers": [...]}`), so that an entry's error can say
 * `entries.json:12`.
 */
export function arrayElementLines(text: string, rootKey?: string): number[] {
  const lines: number[] = [];
  const depth = rootKey === undefined ? 1 : 2;
  scanJson(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, {
    visit: {
      value(path, _offset, line) {
        if (path.length === depth && typeof path[depth - 1] === 'number' && (rootKey === undefined || path[0] === rootKey)) lines.push(line);
      },
    },
  });
  return lines;
}
