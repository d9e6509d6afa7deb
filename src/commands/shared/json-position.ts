// Where JSON text first goes wrong, for error messages that must say file:line:column.

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
