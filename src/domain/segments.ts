// SMS encoding and segment counting (GSM 03.38 / 3GPP TS 23.038 and TS 23.040 concatenation).
//
// A text is sent as GSM-7 when every character is in the GSM basic table or its extension table,
// otherwise as UCS-2 (UTF-16 code units on the wire). One segment holds 160 septets or 70 code
// units; a longer text is split into parts of 153 / 67, because each part gives up room to the
// concatenation header (UDH). Splits never cut an escape pair (ESC + extension character) nor a
// surrogate pair: the part ends one unit short instead, as handsets and carriers do.
//
// It runs once per recipient for templated bodies, so it is a single pass over char codes with
// a table look-up per code: GSM-7 until the first character outside the tables, UCS-2 from there
// (the GSM prefix's UCS-2 split is computed, not rescanned).

import type { SmsEncoding } from './api/enums.js';

export type { SmsEncoding } from './api/enums.js';

export interface SegmentInfo {
  encoding: SmsEncoding;
  /** User-visible characters: Unicode code points (a surrogate pair counts once). */
  characters: number;
  /** Septets for GSM-7 (extension characters count 2), UTF-16 code units for UCS-2. */
  units: number;
  /** Number of SMS parts billed; an empty text is one segment of 0 units. */
  segments: number;
  /** Units in each segment, in order; sums to `units`. */
  perSegment: number[];
  /** Capacity of each segment for this text: 160 or 153 (GSM-7), 70 or 67 (UCS-2). */
  unitsPerSegment: number;
  /** Distinct characters that forced UCS-2, in order of first appearance (empty for GSM-7). */
  nonGsmCharacters: string[];
}

export const GSM7_SINGLE_SEGMENT = 160;
export const GSM7_MULTI_SEGMENT = 153;
export const UCS2_SINGLE_SEGMENT = 70;
export const UCS2_MULTI_SEGMENT = 67;

/** GSM 03.38 default alphabet, in code order 0x00..0x7F (0x1B, the escape, is not a character). */
const GSM_BASIC_TABLE =
  '@£$¥èéùìòÇ\nØø\rÅå' +
  'Δ_ΦΓΛΩΠΨΣΘΞ\u001bÆæßÉ' +
  ' !"#¤%&\'()*+,-./' +
  '0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNO' +
  'PQRSTUVWXYZÄÖÑÜ§' +
  '¿abcdefghijklmno' +
  'pqrstuvwxyzäöñüà';

/** Characters of the extension table, each sent as ESC + one septet. */
const GSM_EXTENSION_CHARACTERS = '\f^{}\\[~]|€';

const NOT_GSM = 0;
const GSM_BASIC = 1;
const GSM_EXTENSION = 2;

/**
 * Septet cost of each UTF-16 code unit: 0 (not in GSM-7), 1 (basic table), 2 (extension table).
 * Every GSM character is in the BMP, so a 64 KiB table answers in one indexed read.
 */
const GSM_COST = buildGsmCostTable();

function buildGsmCostTable(): Uint8Array {
  const table = new Uint8Array(0x10000);
  for (let i = 0; i < GSM_BASIC_TABLE.length; i++) {
    if (i !== 0x1b) table[GSM_BASIC_TABLE.charCodeAt(i)] = GSM_BASIC;
  }
  for (let i = 0; i < GSM_EXTENSION_CHARACTERS.length; i++) {
    table[GSM_EXTENSION_CHARACTERS.charCodeAt(i)] = GSM_EXTENSION;
  }
  return table;
}

const SEEN_IN_CALL = new Uint32Array(0x10000);
let callCounter = 0;

function nextCallNumber(): number {
  callCounter = (callCounter + 1) >>> 0;
  if (callCounter === 0) {
    // Wrapped after 2^32 calls: forget old marks so that none can pass for this call's.
    SEEN_IN_CALL.fill(0);
    callCounter = 1;
  }
  return callCounter;
}

/** True when the character (one code point) can be sent in GSM-7, from either table. */
export function isGsm7Character(character: string): boolean {
  return character.length === 1 && GSM_COST[character.charCodeAt(0)] !== NOT_GSM;
}

/** True when the character is in the extension table (it costs two septets). */
export function isGsm7ExtensionCharacter(character: string): boolean {
  return character.length === 1 && GSM_COST[character.charCodeAt(0)] === GSM_EXTENSION;
}

export function countSegments(text: string): SegmentInfo {
  const gsmParts: number[] = [];
  gsm7Pass(text, gsmParts);
  return gsmPass.end === text.length ? gsm7Info(text.length, gsmParts) : ucs2Info(text, gsmPass.end);
}

/**
 * What the GSM-7 pass found. One object, filled by each pass and read at once: countSegments
 * runs for every message of a bulk send, so a call allocates nothing beyond its answer.
 */
const gsmPass = { end: 0, septets: 0, lastPart: 0 };

/**
 * The GSM-7 pass: septets of the text, and its full 153-septet parts pushed to `parts`, until
 * the end or the first character outside the tables (gsmPass.end).
 */
function gsm7Pass(text: string, parts: number[]): void {
  const length = text.length;
  let septets = 0;
  let part = 0;
  let i = 0;
  for (; i < length; i++) {
    const cost = GSM_COST[text.charCodeAt(i)];
    if (cost === NOT_GSM) break;
    septets += cost;
    if (part + cost > GSM7_MULTI_SEGMENT) {
      parts.push(part);
      part = 0;
    }
    part += cost;
  }
  gsmPass.end = i;
  gsmPass.septets = septets;
  gsmPass.lastPart = part;
}

/** A text all in GSM-7: one segment of up to 160 septets, or the 153-septet parts and the last. */
function gsm7Info(characters: number, fullParts: number[]): SegmentInfo {
  const septets = gsmPass.septets;
  const single = septets <= GSM7_SINGLE_SEGMENT;
  if (!single) fullParts.push(gsmPass.lastPart);
  const perSegment = single ? [septets] : fullParts;
  return {
    encoding: 'GSM-7',
    characters,
    units: septets,
    segments: perSegment.length,
    perSegment,
    unitsPerSegment: single ? GSM7_SINGLE_SEGMENT : GSM7_MULTI_SEGMENT,
    nonGsmCharacters: [],
  };
}

/** A text with a character outside GSM-7 at `gsmEnd`: UCS-2 code units, 70 in one segment or 67 a part. */
function ucs2Info(text: string, gsmEnd: number): SegmentInfo {
  const length = text.length;
  let i = gsmEnd;
  // UCS-2 from here on. Every character before `i` is a GSM character, hence one BMP code unit,
  // so the 67-unit split of that prefix is plain arithmetic rather than a second pass.
  const ucsParts: number[] = [];
  const fullParts = i === 0 ? 0 : Math.floor((i - 1) / UCS2_MULTI_SEGMENT);
  for (let p = 0; p < fullParts; p++) ucsParts.push(UCS2_MULTI_SEGMENT);
  let ucsPart = i - fullParts * UCS2_MULTI_SEGMENT;
  let characters = i;

  // Distinct non-GSM characters without a Set look-up (and string) per character of a UCS-2
  // text: a BMP code is new when its slot in SEEN_IN_CALL does not hold this call's number.
  const call = nextCallNumber();
  const nonGsm: string[] = [];
  let nonGsmAstral: Set<string> | undefined;

  for (; i < length; i++) {
    const code = text.charCodeAt(i);
    characters++;
    let units = 1;
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) units = 2;
    }
    if (ucsPart + units > UCS2_MULTI_SEGMENT) {
      ucsParts.push(ucsPart);
      ucsPart = 0;
    }
    ucsPart += units;

    if (units === 2) {
      // Astral characters (emoji and the like) are never in GSM-7.
      const pair = text.slice(i, i + 2);
      if (!(nonGsmAstral ??= new Set()).has(pair)) {
        nonGsmAstral.add(pair);
        nonGsm.push(pair);
      }
      i++;
    } else if (GSM_COST[code] === NOT_GSM && SEEN_IN_CALL[code] !== call) {
      SEEN_IN_CALL[code] = call;
      nonGsm.push(text[i]);
    }
  }

  const single = length <= UCS2_SINGLE_SEGMENT;
  if (!single) ucsParts.push(ucsPart);
  const perSegment = single ? [length] : ucsParts;
  return {
    encoding: 'UCS-2',
    characters,
    units: length,
    segments: perSegment.length,
    perSegment,
    unitsPerSegment: single ? UCS2_SINGLE_SEGMENT : UCS2_MULTI_SEGMENT,
    nonGsmCharacters: nonGsm,
  };
}

/**
 * Look-alike replacements that keep a text in GSM-7 ("smart encoding"): typographic quotes,
 * dashes, ellipsis and unusual spaces become their plain forms. Applied only when the user asks
 * for it, because it changes what the recipient reads.
 */
const GSM_LOOKALIKES: ReadonlyMap<string, string> = new Map([
  ['\u2018', "'"], ['\u2019', "'"], ['\u201a', "'"], ['\u201b', "'"], ['\u2032', "'"], ['\u00b4', "'"],
  ['\u201c', '"'], ['\u201d', '"'], ['\u201e', '"'], ['\u201f', '"'], ['\u2033', '"'],
  ['\u00ab', '"'], ['\u00bb', '"'],
  ['\u2010', '-'], ['\u2011', '-'], ['\u2012', '-'], ['\u2013', '-'], ['\u2014', '-'], ['\u2015', '-'], ['\u2212', '-'],
  ['\u2026', '...'],
  ['\u00a0', ' '], ['\u2002', ' '], ['\u2003', ' '], ['\u2009', ' '], ['\u200a', ' '], ['\u202f', ' '], ['\u205f', ' '], ['\u3000', ' '],
  ['\u200b', ''], ['\ufeff', ''],
  ['\u2022', '-'],
  ['\u00e7', 'Ç'],
]);

/** The plain GSM-7 spelling of a character outside GSM-7 (`’` is `'`), or undefined when it has none. */
export function gsmLookalikeOf(character: string): string | undefined {
  return GSM_LOOKALIKES.get(character);
}

/** Replaces characters outside GSM-7 with plain look-alikes where one exists; others are kept. */
export function toGsmLookalikes(text: string): string {
  let out = '';
  let copiedUpTo = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (GSM_COST[code] !== NOT_GSM) continue;
    const replacement = GSM_LOOKALIKES.get(text[i]);
    if (replacement === undefined) continue;
    out += text.slice(copiedUpTo, i) + replacement;
    copiedUpTo = i + 1;
  }
  return copiedUpTo === 0 ? text : out + text.slice(copiedUpTo);
}
