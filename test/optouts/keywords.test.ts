import { describe, expect, it } from 'vitest';
import { ConsentKeywords, matchConsentKeyword, normalizeKeywordText } from '../../src/optouts/keywords.js';

// The table of texts people actually send back: what each means for their consent.
type Expect = ['out' | 'in', 'number' | 'all'] | null;

const STANDARD: readonly [string, Expect][] = [
  ['STOP', ['out', 'number']],
  ['stop', ['out', 'number']],
  ['Stop', ['out', 'number']],
  ['  stop  ', ['out', 'number']],
  ['STOP!', ['out', 'number']],
  ['Stop.', ['out', 'number']],
  ['"STOP"', ['out', 'number']],
  ['¡stop!', ['out', 'number']],
  ['stop\n', ['out', 'number']],
  ['\tSTOP\r\n', ['out', 'number']],
  ['STOP 🛑', ['out', 'number']],
  ['\u00a0stop\u200b', ['out', 'number']],
  ['ＳＴＯＰ', ['out', 'number']],
  ['STOPALL', ['out', 'all']],
  ['stop all', ['out', 'all']],
  ['Stop-All!', ['out', 'all']],
  ['UNSUBSCRIBE', ['out', 'number']],
  ['unsubscribe.', ['out', 'number']],
  ['Cancel', ['out', 'number']],
  ['end', ['out', 'number']],
  ['QUIT', ['out', 'number']],
  ['revoke', ['out', 'number']],
  ['OPT OUT', ['out', 'number']],
  ['opt-out', ['out', 'number']],
  ['Opt  out', ['out', 'number']],
  ['opt_out', ['out', 'number']],
  ['optout', ['out', 'number']],
  ['START', ['in', 'number']],
  ['start.', ['in', 'number']],
  ['UNSTOP', ['in', 'number']],
  ['Yes', ['in', 'number']],
  ['yes!!', ['in', 'number']],
  // Longer sentences are conversation, not keywords.
  ["don't stop", null],
  ['please stop', null],
  ['stop please', null],
  ['STOP STOP', null],
  ['Can you cancel my order?', null],
  ['The end', null],
  ['yes please', null],
  ['I quit smoking', null],
  ['unsubscribed', null],
  ['stopp', null],
  ['S T O P', null],
  ['', null],
  ['   ', null],
  ['!!!', null],
  ['🛑', null],
  ['Hello', null],
  ['startup', null],
  ['stop'.repeat(100), null],
];

describe('consent keywords', () => {
  it.each(STANDARD)('%j', (text, expected) => {
    const match = matchConsentKeyword(text);
    expect(match === undefined ? null : [match.action, match.scope]).toEqual(expected);
  });

  it('holds a table of at least 40 texts', () => {
    expect(STANDARD.length).toBeGreaterThanOrEqual(40);
  });

  it("takes a number's own words from its settings, several separated by commas", () => {
    const keywords = new ConsentKeywords({
      optOut: { text: 'Arrêter, BASTA', allText: 'nothing more' },
      optIn: { text: 'Join', allText: 'join all' },
    });
    expect(keywords.match('arrêter!')).toEqual({ action: 'out', scope: 'number', keyword: 'ARRÊTER' });
    expect(keywords.match('basta')).toEqual({ action: 'out', scope: 'number', keyword: 'BASTA' });
    expect(keywords.match('Nothing  more.')).toEqual({ action: 'out', scope: 'all', keyword: 'NOTHING MORE' });
    expect(keywords.match('join')).toEqual({ action: 'in', scope: 'number', keyword: 'JOIN' });
    expect(keywords.match('JOIN ALL')).toEqual({ action: 'in', scope: 'all', keyword: 'JOIN ALL' });
    // The standard words still hold.
    expect(keywords.match('stop')?.action).toBe('out');
    expect(keywords.match('basta ya')).toBeUndefined();
  });

  it("lets a number's own word give a standard one a wider meaning", () => {
    const keywords = new ConsentKeywords({ optOut: { allText: 'STOP' } });
    expect(keywords.match('stop')).toEqual({ action: 'out', scope: 'all', keyword: 'STOP' });
  });

  it('ignores settings that are not text', () => {
    const keywords = new ConsentKeywords({ optOut: { text: 42, allText: null }, optIn: undefined });
    expect(keywords.match('42')).toBeUndefined();
    expect(keywords.match('stop')?.scope).toBe('number');
  });

  it('normalises without regard to the locale', () => {
    expect(normalizeKeywordText('quit')).toBe('QUIT');
    expect(normalizeKeywordText('  Opt-Out!! ')).toBe('OPT OUT');
  });
});
