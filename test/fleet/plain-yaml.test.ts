import { CORE_SCHEMA, dump, load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { readPlainYaml } from '../../src/fleet/plain-yaml.js';

// The quick reader of plain block YAML either gives exactly what js-yaml (YAML 1.2, core schema)
// gives, or gives up (undefined) and leaves the file to the full reader. Never a third answer.

function full(text: string): unknown {
  try {
    return load(text, { schema: CORE_SCHEMA });
  } catch {
    return 'refused by js-yaml';
  }
}

/** Same value as js-yaml, or undefined; `plain` says which is expected. */
function check(text: string, plain: boolean): void {
  const quick = readPlainYaml(text);
  if (plain) {
    expect(quick, text).not.toBeUndefined();
    expect(quick, text).toEqual(full(text));
  } else if (quick !== undefined) {
    expect(quick, text).toEqual(full(text));
  }
}

const T = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';

const PLAIN = [
  `version: 1\ntenants:\n  - tenantId: ${T}\n    settings:\n      webhookEventType: All\nnumbers:\n  - number: "+15555550100"\n    tenant: ${T}\n    type: SMS\n    class: P2P\n    description: Line 0\n    settings:\n      rateLimit: 5\n      autoResponse: {enabled: true, message: "Back soon"}\n`,
  // A list at its key's indent, comments everywhere, CRLF line ends, a leading ---.
  `---\n# a fleet\nversion: 1 # the format\nnumbers:\n- number: '+15555550100' # quoted\n  tenant: ${T}\n\n  # between keys\n  type: sms\ntenants: []\n`.replace(/\n/g, '\r\n'),
  'a: "tab\\there, quote \\" backslash \\\\ slash \\/ unicode \\u00e9 nul \\0"\nb: \'it\'\'s\'\nc: ~\nd: null\ne: True\nf: FALSE\ng: 0\nh: 12.50\ni: +15555550100\nj: https://hooks.example.com/svc?x=1#frag\nk: a:b\nl: "#not a comment"\nm: yes\nn: 1.0.0\no:\np: {}\nq: []\nr: [1, two, "three", [4], {five: 5}]\ns: {a: {b: {c: [x, y]}}, d: null}\n',
  '- a\n- - b\n  - c\n- key: value\n  other: 2\n-\n- # comment\n  x: 1\n',
  'emails:\n  - a@example.com\n  - b@example.com\nmessage: Hello, world. See you at 10.\n',
  // One-line mappings read at a glance, and those the scanner reads (escapes, nesting, a comment).
  'a: {b: "q", c: d e, f: 1.5, g: null, h: ~}\nb: {x: "it\\"s", y: [1]}\nc: {x: 1} # note\nd: { x:  y ,  z: "w" }\n',
];

const NOT_PLAIN = [
  'a: &x 1\nb: *x\n',
  'a: !!str 5\n',
  'a: |\n  text\n',
  'a: >\n  folded\n',
  'a: one\n  two\n',
  '"quoted key": 1\n',
  'a: 1\na: 2\n',
  '__proto__: {polluted: true}\n',
  '<<: {a: 1}\n',
  'a: {b: 1,\n  c: 2}\n',
  'a: "unclosed\n  still": 1\n',
  'a:\tb\n',
  'a: 0x10\n',
  'a: 1e3\n',
  'a: .inf\n',
  'a: 010\n',
  'a: -1\n',
  'a: 12345678901234567890\n',
  'a: b: c\n',
  '---\na: 1\n---\nb: 2\n',
  '%YAML 1.2\n---\na: 1\n',
  'just text\n',
  'a: "\\x41"\n',
  'a: 1\n  b: 2\n',
  '? complex\n: key\n',
  'a: ""#x\n',
  'a: emoji \ud83d\ude00\n',
  'a: {b: 1, b: 2}\n',
  'a: {b: 1} x\n',
  'a: {b: 1, }\n',
  'a: {b: c: d}\n',
  '',
];

describe('readPlainYaml', () => {
  it.each(PLAIN.map((t, i) => [i, t]))('plain file %i: the same value as js-yaml', (_i, text) => check(text as string, true));
  it.each(NOT_PLAIN.map((t) => [t]))('%j: js-yaml decides', (text) => check(text, false));

  it('agrees with js-yaml on generated documents in block style', () => {
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const words = ['a', 'b_c', 'rate-limit', 'true', 'null', '12', '+15555550100', 'x y', 'it\'s', 'a#b', 'c: d', '#x', '', ' lead', 'trail ', 'é', '1.5', '-3', '[x]', '{y}', 'a, b', '"q"', 'k:v', 'http://h/x?a=1'];
    const scalar = (): unknown => {
      const pick = random(6);
      if (pick === 0) return random(1000);
      if (pick === 1) return random(2) === 0;
      if (pick === 2) return null;
      return words[random(words.length)];
    };
    const tree = (depth: number): unknown => {
      if (depth === 0 || random(3) === 0) return scalar();
      if (random(2) === 0) return Array.from({ length: random(4) }, () => tree(depth - 1));
      const map: Record<string, unknown> = {};
      for (let i = random(4); i > 0; i--) map[`k${random(20)}`] = tree(depth - 1);
      return map;
    };
    let plainCount = 0;
    for (let i = 0; i < 400; i++) {
      // A fleet file is a mapping at the top.
      const value = { first: tree(4), second: tree(3) };
      for (const flowLevel of [-1, 2, 1]) {
        const text = dump(value, { schema: CORE_SCHEMA, flowLevel, lineWidth: -1 });
        const quick = readPlainYaml(text);
        if (quick === undefined) continue;
        plainCount++;
        expect(quick, text).toEqual(full(text));
      }
    }
    // Most of them are plain enough for the quick reader.
    expect(plainCount).toBeGreaterThan(600);
  });
});
