import { describe, expect, it } from 'vitest';
import * as yaml from 'yaml';
import { exportYamlText } from '../../src/fleet/export-yaml.js';

// `svc export` writes its YAML itself: either the very text the `yaml` library writes for the
// same document (with `{env: NAME}` on one line), which the library reads back to the same
// values, or nothing (undefined), and the library writes it. Never a third answer.

function library(document: Record<string, unknown>): string {
  const doc = new yaml.Document(document);
  yaml.visit(doc, {
    Map(_, node) {
      if (node.items.length === 1 && yaml.isScalar(node.items[0]!.key) && node.items[0]!.key.value === 'env') node.flow = true;
    },
  });
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}

/** The library's text and values, or undefined; `plain` says which is expected. */
function check(document: Record<string, unknown>, plain: boolean): void {
  const ours = exportYamlText(document);
  if (plain) expect(ours, JSON.stringify(document)).not.toBeUndefined();
  if (ours === undefined) return;
  expect(ours, JSON.stringify(document)).toBe(library(document));
  expect(yaml.parse(ours)).toEqual(document);
}

const T1 = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
const T2 = '9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d';

const EXPORT = {
  version: 1,
  tenants: [
    {
      tenantId: T1,
      domain: 'support.example.com',
      settings: { webhookPrimaryUri: 'https://hooks.example.com/svc?x=1#f', webhookSecret: { env: 'SVC_3F2504E0_WEBHOOK_SECRET' }, webhookEventType: 'All' },
    },
    { tenantId: T2 },
  ],
  numbers: [
    {
      number: '+15555550100',
      tenant: T1,
      type: 'SMS',
      class: 'P2P',
      description: "Support line: it's 24/7, \"always\" # open",
      isActivated: true,
      isMMSEnabled: false,
      settings: {
        rateLimit: 5,
        autoResponse: { enabled: true, message: 'Back soon' },
        autoForward: { emailAddresses: ['a@example.com', 'b@example.com'] },
        optOut: { keywords: [] },
      },
    },
    { number: '+15555550101', tenant: T2, type: 'SMSMMS', class: 'A2P', campaignId: 'C1', brandId: '12', userId: 'true', externalId: 'null', settings: {} },
  ],
};

describe('exportYamlText', () => {
  it('writes an export as the yaml library does', () => check(EXPORT, false));

  it('writes the usual export itself: words, quoted numbers, references, lists, empty collections', () => {
    const plain = structuredClone(EXPORT);
    plain.numbers[0]!.description = 'Support line, 24/7';
    check(plain, true);
    check({ version: 1, tenants: [], numbers: [] }, true);
  });

  it.each([
    ['text to quote with escapes', { a: 'line\nbreak' }],
    ['text with a leading space', { a: ' lead' }],
    ['a number with a fraction', { a: 1.5 }],
    ['negative zero', { a: -0 }],
    ['a list in a list', { a: [[1]] }],
    ['a key that is not a word', { 'a b': 1 }],
    ['an empty string', { a: '' }],
  ])('leaves %s to the library', (_what, document) => {
    expect(exportYamlText(document)).toBeUndefined();
  });

  it('agrees with the yaml library on generated documents', () => {
    let seed = 3;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const characters = ['a', 'Z', '0', '9', ' ', ':', '#', '-', '?', ',', '[', ']', '{', '}', '&', '*', '!', '|', '>', "'", '"', '%', '@', '`', '.', '+', '_', '/', 'é', '\\', '~', 'e', 'x', 'o', 'n', 'u', 'l', 't', '\n', '\t'];
    const words = ['true', 'True', 'null', 'NULL', '~', '', '12', '+15555550100', '0x1F', '0o17', '1e3', '.5', '1.', '-.inf', '.NaN', 'yes', '---', '...', '%x', 'a: b', 'a #b', 'a#b', 'a:', '- a', '-a', '?a', '? a', 'Line 1', 'a  b', ' a', 'a '];
    const text = (): string => {
      if (random(3) === 0) return words[random(words.length)]!;
      let s = '';
      for (let i = random(8); i >= 0; i--) s += characters[random(characters.length)];
      return s;
    };
    const scalar = (): unknown => [random(100_000) - 50, random(2) === 0, null, random(1000) / 8, text(), text()][random(6)];
    const keyName = (): string => (random(12) === 0 ? text() : ['number', 'tenant', 'settings', 'env', 'a_b', 'true', 'k1'][random(7)]!);
    const tree = (depth: number): unknown => {
      if (depth === 0 || random(3) === 0) return scalar();
      if (random(3) === 0) return Array.from({ length: random(4) }, () => tree(depth - 1));
      if (random(6) === 0) return { env: random(2) === 0 ? `SVC_${random(99)}` : scalar() };
      const map: Record<string, unknown> = {};
      for (let i = random(4); i > 0; i--) map[keyName()] = tree(depth - 1);
      return map;
    };
    let written = 0;
    for (let i = 0; i < 3000; i++) {
      const document = { version: 1, tenants: tree(3), numbers: Array.from({ length: random(3) }, () => tree(3)) };
      check(document, false);
      if (exportYamlText(document) !== undefined) written++;
    }
    // Most of them are plain enough to be written without the library.
    expect(written).toBeGreaterThan(2000);
  });
});
