// JSON.parse gives values without positions; provision files need the line of each entry so that
// an error can say `entries.json:12`. This walks text that is already known to be valid JSON and
// records where each element of one array begins: the root array, or the array under a key of
// the root object (`{"phoneNumbers": [...]}`).

import { lineColumnAt } from './json.js';

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
