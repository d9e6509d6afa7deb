import { describe, expect, it } from 'vitest';
import { arrayElementLines, jsonErrorOffset, jsonKeyLines, jsonTooDeepOffset, lineColumnAt, parseJsonText, scanJson } from '../../src/input/json.js';
import { UsageError } from '../../src/errors.js';

// One scan (scanJson) says where things are in JSON text; the error positions, the key lines of
// strict --file keys and the entry lines of provision files all ask it, so that the same line
// is the same number in each.

function parseError(text: string): string {
  try {
    parseJsonText(text, 'f.json');
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  }
  throw new Error('expected a UsageError');
}

describe('scanJson', () => {
  it('accepts what JSON.parse accepts and names nothing', () => {
    for (const valid of ['[]', '{}', ' {"a": [1, -2.5e3, true, false, null, "x\\u00e9\\n\\/"], "b": {}} ', '"s"', '0', '[[[]], {"a": {"b": []}}]']) {
      expect(scanJson(valid), valid).toBeUndefined();
    }
  });

  it('stops at the first wrong character, with its line and column', () => {
    const cases: [string, number][] = [
      ['[\n{"number": }\n]', 13],
      ['{"a":1,}', 7],
      ['[1 2]', 3],
      ['[1,', 3],
      ['"abc', 4],
      ['[tru]', 1],
      ['{"a":"\\q"}', 7],
      ['{"a":"\\u12x4"}', 7],
      ['[1] x', 4],
      ['{\n  "a": 1\n  "b": 2\n}', 13],
      ['["line\nbreak"]', 6],
      ['{"a" 1}', 5],
      ['', 0],
    ];
    for (const [text, offset] of cases) {
      const found = scanJson(text);
      expect(found, JSON.stringify(text)).toEqual({ kind: 'syntax', offset, ...lineColumnAt(text, offset) });
      expect(jsonErrorOffset(text)).toBe(offset);
    }
  });

  it('stops at the first bracket nested deeper than the limit, 100,000 deep included, without recursing', () => {
    const deep = (n: number): string => `${'['.repeat(n)}${']'.repeat(n)}`;
    expect(scanJson(deep(3), { maxDepth: 3 })).toBeUndefined();
    expect(scanJson(`{"a":\n ${deep(3)}}`, { maxDepth: 3 })).toEqual({ kind: 'too-deep', offset: 9, line: 2, column: 4 });
    expect(scanJson(deep(100_000), { maxDepth: 64 })).toMatchObject({ kind: 'too-deep', offset: 64 });
    expect(scanJson(deep(100_000))).toBeUndefined();
    expect(jsonTooDeepOffset(`["${'['.repeat(100)}"]`, 3)).toBeUndefined();
  });

  it('tells a visitor where each key and value begins', () => {
    const seen: string[] = [];
    scanJson('{"a": [1, {"b": null}],\n "c": "d"}', {
      visit: {
        key: (path, offset, line) => seen.push(`key ${JSON.stringify(path)} ${offset} ${line}`),
        value: (path, offset, line) => seen.push(`value ${JSON.stringify(path)} ${offset} ${line}`),
      },
    });
    expect(seen).toEqual([
      'value [] 0 1',
      'key ["a"] 1 1',
      'value ["a"] 6 1',
      'value ["a",0] 7 1',
      'value ["a",1] 10 1',
      'key ["a",1,"b"] 11 1',
      'value ["a",1,"b"] 16 1',
      'key ["c"] 25 2',
      'value ["c"] 30 2',
    ]);
  });
});

describe('arrayElementLines', () => {
  it('finds the line of each element of a root array, whatever the elements hold', () => {
    const text = '[\n  {"number": "+1", "x": [1, {"y": "]"}]},\n  "s\\"tr",\n\n  42, true, null,\n  [1,\n2]\n]';
    expect(arrayElementLines(text)).toEqual([2, 3, 5, 5, 5, 6]);
  });

  it('finds the elements of the array under a key of the root object only', () => {
    const text = '{\n "tenantId": "t",\n "other": [{"a": 1}],\n "phoneNumbers": [\n  {"number": "+1"},\n  {"number": "+2", "phoneNumbers": [9]}\n ]\n}';
    expect(arrayElementLines(text, 'phoneNumbers')).toEqual([5, 6]);
  });
});

describe('the same line in each user of the scan', () => {
  const entries = '{\n  "phoneNumbers": [\n    {"number": "+15551230001"},\n    {"number": "+15551230002",\n     "nmber": "x"}\n  ],\n  "extrnalId": "y"\n}\n';

  it('an entry, its keys and the request keys have one line each, whoever asks', () => {
    const keys = jsonKeyLines(entries);
    const elements = arrayElementLines(entries, 'phoneNumbers');
    expect(elements).toEqual([3, 4]);
    expect(keys.get('phoneNumbers[1].number')).toBe(elements[1]);
    expect(keys.get('phoneNumbers[1].nmber')).toBe(5);
    expect(keys.get('extrnalId')).toBe(7);
    // A byte-order mark changes no line.
    expect(jsonKeyLines(`\uFEFF${entries}`)).toEqual(keys);
    expect(arrayElementLines(`\uFEFF${entries}`, 'phoneNumbers')).toEqual(elements);
  });

  it('a line that is wrong has the same line and column in the scan, the offset and the error', () => {
    const broken = entries.replace('"nmber": "x"', '"nmber": x');
    const found = scanJson(broken)!;
    expect(found.line).toBe(5);
    expect(lineColumnAt(broken, jsonErrorOffset(broken)!)).toEqual({ line: found.line, column: found.column });
    expect(parseError(broken)).toMatch(new RegExp(`^f\\.json:${found.line}:${found.column}: invalid JSON`));
    const deep = entries.replace('"nmber": "x"', `"nmber": ${'['.repeat(70)}${']'.repeat(70)}`);
    const tooDeep = scanJson(deep, { maxDepth: 64 })!;
    expect(tooDeep).toMatchObject({ kind: 'too-deep', line: 5 });
    expect(parseError(deep)).toBe(`f.json:5:${tooDeep.column}: JSON nested deeper than 64 levels, the most any input may nest`);
  });
});
