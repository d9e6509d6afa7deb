// JSON.parse gives values without positions; provision files need the line of each entry so that
// an error can say `entries.json:12`. This walks text that is already known to be valid JSON and
// records where each element of one array begins: the root array, or the array under a key of
// the root object (`{"phoneNumbers": [...]}`).

import { lineColumnAt } from '../commands/shared/input.js';

interface Frame {
  kind: 'array' | 'object';
  /** The array whose elements are wanted. */
  target: boolean;
  /** In an object: a key has been read and its value is next. */
  afterColon: boolean;
  key: string | undefined;
}

/** Start lines (from 1) of each element of the wanted array, in order. */
export function arrayElementLines(text: string, rootKey?: string): number[] {
  const offsets: number[] = [];
  const stack: Frame[] = [];
  const top = (): Frame | undefined => stack[stack.length - 1];
  const valueStarts = (at: number): void => {
    const frame = top();
    if (frame?.kind === 'array' && frame.target) offsets.push(at);
  };
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '"') {
      const start = i;
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      i++;
      const frame = top();
      if (frame?.kind === 'object' && !frame.afterColon) {
        frame.key = JSON.parse(text.slice(start, i)) as string;
      } else {
        valueStarts(start);
      }
      continue;
    }
    if (ch === '[' || ch === '{') {
      valueStarts(i);
      const parent = top();
      const target =
        ch === '[' &&
        (rootKey === undefined
          ? stack.length === 0
          : stack.length === 1 && parent?.kind === 'object' && parent.key === rootKey);
      stack.push({ kind: ch === '[' ? 'array' : 'object', target, afterColon: false, key: undefined });
    } else if (ch === ']' || ch === '}') {
      stack.pop();
    } else if (ch === ':') {
      const frame = top();
      if (frame) frame.afterColon = true;
    } else if (ch === ',') {
      const frame = top();
      if (frame?.kind === 'object') {
        frame.afterColon = false;
        frame.key = undefined;
      }
    } else if (!/\s/.test(ch)) {
      // A number, true, false or null: one value, up to the next delimiter.
      valueStarts(i);
      while (i < text.length && !/[\s,\]}]/.test(text[i]!)) i++;
      continue;
    }
    i++;
  }
  return offsets.map((offset) => lineColumnAt(text, offset).line);
}

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
