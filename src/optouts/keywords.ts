// Whether an inbound message is someone asking to stop (or to start again) hearing from a number.
//
// The whole message must be the keyword: carriers and the US rules treat a reply of "STOP" as a
// revocation, and "please don't stop" as a conversation. So the text is compared whole, after
// what people and phones add around a word is taken off: white space (also no-break and
// zero-width), punctuation and symbols at either end ("Stop!", "'STOP'", "STOP 🛑"), letter case,
// and the full-width letters some keyboards type (NFKC). Inside, runs of white space, hyphens and
// underscores count as one space, so "opt-out", "opt  out" and "OPT_OUT" are "OPT OUT".
//
// A number's own words (its settings `optOut.text` / `optOut.allText`, `optIn.text` /
// `optIn.allText`) are matched the same way; a setting may list several, separated by commas.

export type ConsentAction = 'out' | 'in';

/** `number`: only the number the message was sent to; `all`: every number of its tenant. */
export type ConsentScope = 'number' | 'all';

export interface ConsentKeyword {
  action: ConsentAction;
  scope: ConsentScope;
  /** The keyword as matched, normalised (`STOP`, `OPT OUT`, or the number's own word). */
  keyword: string;
}

/** The words every number answers to, whatever its settings say. */
export const STANDARD_OPT_OUT = ['STOP', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'REVOKE', 'OPT OUT', 'OPTOUT'] as const;
export const STANDARD_OPT_OUT_ALL = ['STOPALL', 'STOP ALL'] as const;
export const STANDARD_OPT_IN = ['START', 'UNSTOP', 'YES'] as const;

/** The part of a number's settings that names its own keywords (any of them may be missing). */
export interface ConsentSettings {
  optOut?: { text?: unknown; allText?: unknown } | undefined;
  optIn?: { text?: unknown; allText?: unknown } | undefined;
}

const EDGES = /^[\p{White_Space}\p{P}\p{S}\p{Cf}]+|[\p{White_Space}\p{P}\p{S}\p{Cf}]+$/gu;
const INNER_SEPARATORS = /[\p{White_Space}\p{Cf}_\-\u2010-\u2015]+/gu;

/**
 * The message as compared with keywords: NFKC, ends stripped of white space, punctuation and
 * symbols, inner separators as one space, upper case (locale-free, so Turkish `i` does not matter).
 */
export function normalizeKeywordText(text: string): string {
  return text.normalize('NFKC').replace(EDGES, '').replace(INNER_SEPARATORS, ' ').toUpperCase();
}

/** Longer texts are never one keyword: no need to normalise a paragraph. */
const LONGEST_KEYWORD_TEXT = 64;

function ownWords(value: unknown): string[] {
  if (typeof value !== 'string') return [];
  return value
    .split(',')
    .map(normalizeKeywordText)
    .filter((word) => word !== '');
}

/** The keyword table of one receiving number: the standard words and its own. Build once per number. */
export class ConsentKeywords {
  private readonly table = new Map<string, ConsentKeyword>();

  constructor(settings?: ConsentSettings | undefined) {
    const add = (words: readonly string[], action: ConsentAction, scope: ConsentScope): void => {
      for (const word of words) this.table.set(word, { action, scope, keyword: word });
    };
    add(STANDARD_OPT_OUT, 'out', 'number');
    add(STANDARD_OPT_OUT_ALL, 'out', 'all');
    add(STANDARD_OPT_IN, 'in', 'number');
    // The number's own words last: where one repeats a standard word, the number's meaning wins
    // (an `optOut.allText` of STOP makes STOP leave every number of the tenant).
    add(ownWords(settings?.optIn?.text), 'in', 'number');
    add(ownWords(settings?.optIn?.allText), 'in', 'all');
    add(ownWords(settings?.optOut?.text), 'out', 'number');
    add(ownWords(settings?.optOut?.allText), 'out', 'all');
  }

  /** What the message asks, or undefined when it is not (only) a keyword. */
  match(text: string): ConsentKeyword | undefined {
    if (text.length > LONGEST_KEYWORD_TEXT * 4) return undefined;
    const normalized = normalizeKeywordText(text);
    if (normalized === '' || normalized.length > LONGEST_KEYWORD_TEXT) return undefined;
    return this.table.get(normalized);
  }
}

const STANDARD = new ConsentKeywords();

/** The standard words alone (a number whose settings are not known). */
export function matchConsentKeyword(text: string, settings?: ConsentSettings): ConsentKeyword | undefined {
  return (settings === undefined ? STANDARD : new ConsentKeywords(settings)).match(text);
}
