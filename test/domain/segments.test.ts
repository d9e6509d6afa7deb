import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  countSegments,
  isGsm7Character,
  isGsm7ExtensionCharacter,
  toGsmLookalikes,
  type SegmentInfo,
} from '../../src/domain/segments.js';

interface SegmentVector {
  name: string;
  text: string;
  utf16Length: number;
  encoding: 'GSM-7' | 'UCS-2';
  segments: number;
  units: number;
  perSegment: number[];
  smartEncoding?: { encoding: 'GSM-7' | 'UCS-2'; segments: number; units: number };
}

const vectors = JSON.parse(
  readFileSync(new URL('../fixtures/sms-segments.json', import.meta.url), 'utf8'),
) as SegmentVector[];

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

describe('countSegments: shared vectors', () => {
  it('has vectors to check', () => {
    expect(vectors.length).toBeGreaterThanOrEqual(12);
  });

  it.each(vectors.map((v) => [v.name, v] as const))('%s', (_name, vector) => {
    expect(vector.text.length).toBe(vector.utf16Length);
    const info = countSegments(vector.text);
    expect(info.encoding).toBe(vector.encoding);
    expect(info.segments).toBe(vector.segments);
    expect(info.units).toBe(vector.units);
    expect(info.perSegment).toEqual(vector.perSegment);
    expect(sum(info.perSegment)).toBe(info.units);
    if (vector.smartEncoding) {
      const smart = countSegments(toGsmLookalikes(vector.text));
      expect(smart.encoding).toBe(vector.smartEncoding.encoding);
      expect(smart.segments).toBe(vector.smartEncoding.segments);
      expect(smart.units).toBe(vector.smartEncoding.units);
    }
  });
});

const BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const EXTENSION = '\f^{}\\[~]|€';

describe('GSM 03.38 tables', () => {
  it('the basic table has 127 characters (128 codes less the escape), each costing 1', () => {
    expect(Array.from(BASIC)).toHaveLength(127);
    for (const ch of BASIC) {
      expect(isGsm7Character(ch), JSON.stringify(ch)).toBe(true);
      expect(isGsm7ExtensionCharacter(ch), JSON.stringify(ch)).toBe(false);
      expect(countSegments(ch)).toMatchObject({ encoding: 'GSM-7', units: 1 });
    }
    const all = countSegments(BASIC);
    expect(all).toMatchObject({ encoding: 'GSM-7', characters: 127, units: 127, segments: 1 });
  });

  it('the extension table costs 2 septets per character', () => {
    for (const ch of EXTENSION) {
      expect(isGsm7ExtensionCharacter(ch), JSON.stringify(ch)).toBe(true);
      expect(countSegments(ch)).toMatchObject({ encoding: 'GSM-7', units: 2, characters: 1, perSegment: [2] });
    }
  });

  it.each([
    ['ESC itself', '\u001b'],
    ['lower-case c cedilla (only Ç is in the table)', 'ç'],
    ['backtick', '`'],
    ['curly apostrophe', '\u2019'],
    ['tab', '\t'],
    ['NUL', '\u0000'],
    ['á', 'á'],
    ['Cyrillic', 'д'],
    ['non-breaking space', '\u00a0'],
    ['dollar-like ¢', '¢'],
    ['Greek lower-case alpha', 'α'],
  ])('%s is not GSM-7', (_name, ch) => {
    expect(isGsm7Character(ch)).toBe(false);
    const info = countSegments(`ok ${ch}`);
    expect(info.encoding).toBe('UCS-2');
    expect(info.nonGsmCharacters).toEqual([ch]);
  });
});

describe('countSegments: edges', () => {
  it('empty text is one segment of 0', () => {
    expect(countSegments('')).toEqual<SegmentInfo>({
      encoding: 'GSM-7',
      characters: 0,
      units: 0,
      segments: 1,
      perSegment: [0],
      unitsPerSegment: 160,
      nonGsmCharacters: [],
    });
  });

  it('reports capacity per segment', () => {
    expect(countSegments('a'.repeat(160)).unitsPerSegment).toBe(160);
    expect(countSegments('a'.repeat(161)).unitsPerSegment).toBe(153);
    expect(countSegments('д'.repeat(70)).unitsPerSegment).toBe(70);
    expect(countSegments('д'.repeat(71)).unitsPerSegment).toBe(67);
  });

  it('80 extension characters fill exactly one segment; 81 need two', () => {
    expect(countSegments('€'.repeat(80))).toMatchObject({ units: 160, segments: 1, characters: 80 });
    // 153 is odd, so each part holds 76 escape pairs (152 septets): an escape pair is never split.
    expect(countSegments('€'.repeat(81))).toMatchObject({ units: 162, segments: 2, perSegment: [152, 10] });
  });

  it('an escape pair landing at the end of a middle segment moves to the next', () => {
    const text = 'a'.repeat(153) + 'a'.repeat(152) + '{' + 'a';
    expect(countSegments(text).perSegment).toEqual([153, 152, 3]);
  });

  it('an extension character that fits exactly at 153 stays', () => {
    const text = 'a'.repeat(151) + '}' + 'a'.repeat(10);
    expect(countSegments(text).perSegment).toEqual([153, 10]);
  });

  it('one non-GSM character turns the whole text UCS-2, counted in UTF-16 units', () => {
    const text = '€'.repeat(10) + 'д';
    expect(countSegments(text)).toMatchObject({
      encoding: 'UCS-2',
      units: 11,
      characters: 11,
      nonGsmCharacters: ['д'],
    });
  });

  it('lists distinct non-GSM characters in order of first appearance', () => {
    const info = countSegments('Grüße – “quoted” 😀 ok 😀 –');
    expect(info.nonGsmCharacters).toEqual(['–', '“', '”', '😀']);
  });

  it('counts code points as characters, surrogate pairs as two units', () => {
    const info = countSegments('😀😀');
    expect(info).toMatchObject({ encoding: 'UCS-2', characters: 2, units: 4, segments: 1 });
  });

  it('never splits a surrogate pair across UCS-2 segments', () => {
    // 70 units of emoji do not fit one segment only if > 70: 36 emoji = 72 units -> two parts.
    const info = countSegments('😀'.repeat(36));
    expect(info.units).toBe(72);
    expect(info.perSegment).toEqual([66, 6]);
  });

  it('handles a lone surrogate as one non-GSM unit', () => {
    const info = countSegments('a\ud800b');
    expect(info).toMatchObject({ encoding: 'UCS-2', units: 3, characters: 3, nonGsmCharacters: ['\ud800'] });
    const trailing = countSegments('ab\ud83d');
    expect(trailing).toMatchObject({ encoding: 'UCS-2', units: 3, characters: 3 });
  });

  it('splits a long GSM prefix correctly once a late character turns the text UCS-2', () => {
    for (let k = 0; k <= 300; k++) {
      for (const tail of ['д', '😀', 'x😀д', 'д'.repeat(80)]) {
        const text = '{a'.repeat(k >> 1) + 'b'.repeat(k & 1) + tail;
        expect(countSegments(text), `prefix ${k}, tail ${tail.length}`).toEqual(referenceCount(text));
      }
    }
  });

  it('agrees with a straightforward reference split on many random texts', () => {
    const alphabet = ['a', 'Z', ' ', '€', '{', '\n', 'é', 'д', '😀', '–', '^'];
    let seed = 42;
    const random = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    for (let n = 0; n < 500; n++) {
      const pool = random() < 0.5 ? alphabet.slice(0, 7).filter((c) => c !== 'é') : alphabet;
      const length = Math.floor(random() * 400);
      let text = '';
      for (let i = 0; i < length; i++) text += pool[Math.floor(random() * pool.length)];
      expect(countSegments(text)).toEqual(referenceCount(text));
    }
  });
});

/** A slow, obviously correct model of the rules, to compare against. */
function referenceCount(text: string): SegmentInfo {
  const chars = Array.from(text);
  const gsm = chars.every((c) => BASIC.includes(c) || EXTENSION.includes(c));
  const costs = chars.map((c) => (gsm ? (EXTENSION.includes(c) ? 2 : 1) : c.length));
  const units = sum(costs);
  const single = gsm ? 160 : 70;
  const multi = gsm ? 153 : 67;
  let perSegment: number[];
  if (units <= single) {
    perSegment = [units];
  } else {
    perSegment = [0];
    for (const cost of costs) {
      if (perSegment[perSegment.length - 1]! + cost > multi) perSegment.push(0);
      perSegment[perSegment.length - 1]! += cost;
    }
  }
  const nonGsm = gsm ? [] : [...new Set(chars.filter((c) => !BASIC.includes(c) && !EXTENSION.includes(c)))];
  return {
    encoding: gsm ? 'GSM-7' : 'UCS-2',
    characters: chars.length,
    units,
    segments: perSegment.length,
    perSegment,
    unitsPerSegment: units <= single ? single : multi,
    nonGsmCharacters: nonGsm,
  };
}

describe('toGsmLookalikes', () => {
  it('replaces typographic punctuation and leaves other text alone', () => {
    expect(toGsmLookalikes('It’s “fine” – really…')).toBe('It\'s "fine" - really...');
    expect(toGsmLookalikes('plain text')).toBe('plain text');
    expect(toGsmLookalikes('Привет ’')).toBe("Привет '");
  });
});
