// Reading JSON that a person wrote: every error says file:line:column. The one place that knows
// where in JSON text something is (src/input/json-lines.ts finds where each entry begins).

import { UsageError } from '../errors.js';

/**
 * Where JSON text first goes wrong, as a character offset (undefined when it is valid). Node 20's
 * JSON.parse leaves the position out of some messages ("Unexpected token '}'"), and a provision
 * file's error must still say file:line:column.
 */
export function jsonErrorOffset(text: string): number | undefined {
  let i = 0;
  const fail = (): never => {
    throw i;
  };
  const ws = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const literal = (word: string): void => {
    if (text.startsWith(word, i)) i += word.length;
    else fail();
  };
  const string = (): void => {
    i++;
    for (;;) {
      if (i >= text.length) fail();
      const ch = text.charCodeAt(i);
      if (ch === 0x22) {
        i++;
        return;
      }
      if (ch < 0x20) fail();
      if (ch === 0x5c) {
        const next = text[i + 1];
        if (next === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
            i++;
            fail();
          }
          i += 6;
        } else if (next !== undefined && '"\\/bfnrt'.includes(next)) i += 2;
        else {
          i++;
          fail();
        }
      } else i++;
    }
  };
  const value = (): void => {
    ws();
    const ch = text[i];
    if (ch === '{') {
      i++;
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        string();
        ws();
        if (text[i] !== ':') fail();
        i++;
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === '}') {
          i++;
          return;
        } else fail();
      }
    } else if (ch === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (;;) {
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === ']') {
          i++;
          return;
        } else fail();
      }
    } else if (ch === '"') string();
    else if (ch === 't') literal('true');
    else if (ch === 'f') literal('false');
    else if (ch === 'n') literal('null');
    else {
      const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
      if (!match) fail();
      i += match![0].length;
    }
  };
  try {
    value();
    ws();
    if (i < text.length) fail();
    return undefined;
  } catch (offset) {
    if (typeof offset === 'number') return offset;
    throw offset;
  }
}

/** How deep JSON input may nest: far beyond any document the API takes, far below a stack overflow. */
export const MAX_JSON_DEPTH = 64;

/**
 * The offset of the first bracket that nests deeper than `limit`, or undefined. A linear scan
 * before parsing, so that a file nested 100,000 deep is refused by name instead of overflowing
 * the stack of whatever walks the parsed value.
 */
export function jsonTooDeepOffset(text: string, limit = MAX_JSON_DEPTH): number | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      depth++;
      if (depth > limit) return i;
    } else if (c === 93 || c === 125) depth--;
  }
  return undefined;
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
  const tooDeep = jsonTooDeepOffset(clean);
  if (tooDeep !== undefined) {
    const at = lineColumnAt(clean, tooDeep);
    throw new UsageError(`${source}:${at.line}:${at.column}: JSON nested deeper than ${MAX_JSON_DEPTH} levels, the most any input may nest`);
  }
  try {
    return JSON.parse(clean) as unknown;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // Node 22 says "line L column C", Node 20 sometimes "position N" and sometimes nothing at all;
    // without a position the text is scanned for the first character that is wrong.
    const lineCol = /line (\d+) column (\d+)/.exec(message);
    const position = /position (\d+)/.exec(message);
    const offset = position ? Number(position[1]) : jsonErrorOffset(clean);
    let where = '';
    if (lineCol) where = `:${lineCol[1]}:${lineCol[2]}`;
    else if (offset !== undefined) {
      const at = lineColumnAt(clean, offset);
      where = `:${at.line}:${at.column}`;
    }
    const reason = message.replace(/^JSON\.parse: /, '').replace(/ in JSON at position \d+.*$/, '').replace(/, "[^]*$/, '');
    throw new UsageError(`${source}${where}: invalid JSON: ${reason}`);
  }
}
