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
  const maxDepth = options.maxDepth ?? Infinity;
  const visit = options.visit;
  const n = text.length;
  /** The open containers: 0x7b for an object, 0x5b for an array. */
  const open: number[] = [];
  const path: JsonPathSegment[] = [];
  let i = 0;
  // Lines are counted on demand, forward only (every offset asked for is past the last one).
  let line = 1;
  let lineStart = 0;
  const lineOf = (offset: number): number => {
    for (let nl = text.indexOf('\n', lineStart); nl !== -1 && nl < offset; nl = text.indexOf('\n', lineStart)) {
      line++;
      lineStart = nl + 1;
    }
    return line;
  };
  const problem = (kind: JsonProblem['kind'], offset = i): JsonProblem => ({ kind, offset, line: lineOf(offset), column: offset - lineStart + 1 });
  const ws = (): void => {
    WHITE_SPACE.lastIndex = i;
    WHITE_SPACE.test(text);
    i = WHITE_SPACE.lastIndex;
  };
  /** Whether the last string held an escape (a key without one is its own text). */
  let escaped = false;
  /** At a quote: past the string, or false at its first wrong character (i is left there). */
  const string = (): boolean => {
    i++;
    escaped = false;
    for (;;) {
      STRING_RUN.lastIndex = i;
      STRING_RUN.test(text);
      i = STRING_RUN.lastIndex;
      if (i >= n) return false;
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return true;
      }
      if (c !== 0x5c) return false; // a control character
      escaped = true;
      const next = text.charCodeAt(i + 1);
      if (next === 0x75) {
        for (let k = 2; k < 6; k++) {
          if (!isHexDigit(text.charCodeAt(i + k))) {
            i++;
            return false;
          }
        }
        i += 6;
      } else if (SIMPLE_ESCAPES.has(next)) i += 2;
      else {
        i++;
        return false;
      }
    }
  };
  /** After `{` or `,` in an object: the key and its colon; false at the first wrong character. */
  const key = (): boolean => {
    ws();
    if (text.charCodeAt(i) !== 0x22) return false;
    const start = i;
    if (!string()) return false;
    if (visit !== undefined) {
      path[path.length - 1] = escaped ? (JSON.parse(text.slice(start, i)) as string) : text.slice(start + 1, i - 1);
      visit.key?.(path, start, lineOf(start));
    }
    ws();
    if (text.charCodeAt(i) !== 0x3a) return false;
    i++;
    return true;
  };

  for (;;) {
    // A value begins.
    ws();
    if (visit?.value !== undefined) visit.value(path, i, lineOf(i));
    const c = text.charCodeAt(i);
    let closed = true;
    if (c === 0x7b || c === 0x5b) {
      if (open.length >= maxDepth) return problem('too-deep');
      i++;
      ws();
      if (text.charCodeAt(i) === (c === 0x7b ? 0x7d : 0x5d)) i++;
      else {
        open.push(c);
        path.push(c === 0x7b ? '' : 0);
        if (c === 0x7b && !key()) return problem('syntax');
        closed = false;
      }
    } else if (c === 0x22) {
      if (!string()) return problem('syntax');
    } else if (c === 0x74 || c === 0x66 || c === 0x6e) {
      const word = c === 0x74 ? 'true' : c === 0x66 ? 'false' : 'null';
      if (!text.startsWith(word, i)) return problem('syntax');
      i += word.length;
    } else {
      NUMBER.lastIndex = i;
      if (!NUMBER.test(text)) return problem('syntax');
      i = NUMBER.lastIndex;
    }
    if (!closed) continue;
    // A value ended: a comma leads to the next one, a bracket closes its container.
    for (;;) {
      ws();
      const container = open[open.length - 1];
      if (container === undefined) return i < n ? problem('syntax') : undefined;
      const d = text.charCodeAt(i);
      if (d === 0x2c) {
        i++;
        if (container === 0x7b) {
          if (!key()) return problem('syntax');
        } else path[path.length - 1] = (path[path.length - 1] as number) + 1;
        break;
      }
      if (d !== (container === 0x7b ? 0x7d : 0x5d)) return problem('syntax');
      i++;
      open.pop();
      path.pop();
    }
  }
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
