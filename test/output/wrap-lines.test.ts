import { describe, expect, it } from 'vitest';
import { labelledText, proseText } from '../../src/output/wrap-lines.js';

// Lines fitted to a terminal: broken at spaces, never inside a word, values kept in their column;
// off a terminal every line whole.

const ROWS = [
  ['requests', '9'],
  ['opted out', '1 (asked not to hear from +15551230001; svc optouts list --number +15551230001)'],
  ['zone unknown', '2 held back, never sent by guess: +99912345678, +99912345679'],
  ['  GB', '2 recipients, 2 segments x 0.04 = 0.08 USD'],
] as const;

const lines = (text: string): string[] => text.replace(/\n$/, '').split('\n');

describe('labelledText', () => {
  it('off a terminal: one line a row, the values in one column two spaces after the widest label', async () => {
    expect(lines(await labelledText(ROWS, { isTTY: false, columns: 40 }))).toEqual([
      'requests      9',
      'opted out     1 (asked not to hear from +15551230001; svc optouts list --number +15551230001)',
      'zone unknown  2 held back, never sent by guess: +99912345678, +99912345679',
      '  GB          2 recipients, 2 segments x 0.04 = 0.08 USD',
    ]);
  });

  it.each([40, 60, 80])('on a terminal of %i columns: no line wider, words whole, later lines under the value', async (columns) => {
    const out = lines(await labelledText(ROWS, { isTTY: true, columns }));
    for (const line of out) expect(line.length).toBeLessThanOrEqual(columns);
    // Every line is a label's first line or a continuation starting in the value column.
    for (const line of out) expect(line).toMatch(/^(requests|opted out|zone unknown|  GB) +\S|^ {14}\S/);
    // Read back, the words are those of the rows, none cut in two.
    const words = (text: string): string[] => text.split(/\s+/).filter((word) => word !== '');
    expect(words(out.join(' '))).toEqual(words(ROWS.flat().join(' ')));
  });

  it('the stream\'s own width wins (a terminal resized since the start)', async () => {
    const out = lines(await labelledText(ROWS, { isTTY: true, columns: 200, stream: { columns: 40 } }));
    for (const line of out) expect(line.length).toBeLessThanOrEqual(40);
  });

  it('with too little room beside the labels, the value goes on the lines below, indented by two', async () => {
    const out = lines(await labelledText([['a long label here', 'one two three four five six']], { isTTY: true, columns: 24 }));
    expect(out).toEqual(['a long label here', '  one two three four', '  five six']);
  });

  it('measures wide characters by the columns they take', async () => {
    const out = lines(await labelledText([['encoding', 'UCS-2 (because of "–" "’" "…" "😀" "😀" "😀" "😀")']], { isTTY: true, columns: 30 }));
    // An emoji takes two columns: four of them quoted do not fit in the 20 left beside the label.
    expect(out).toEqual(['encoding  UCS-2 (because of', '          "–" "’" "…" "😀"', '          "😀" "😀" "😀")']);
  });
});

describe('proseText', () => {
  const sentence = 'Stopped at the budget: 0.0874 USD spent of 0.10 USD; the message to +447700123456 would cost 0.04 USD more.';
  it('off a terminal: each sentence one line', async () => {
    expect(await proseText([sentence, 'Next.'], { isTTY: false, columns: 40 })).toBe(`${sentence}\nNext.\n`);
  });
  it('leaves a line that is not ours whole: a piece of it must not start a line of its own', async () => {
    const theirs = '  +15551230002  rejected: refused FORGED: every recipient was accepted and more words after it';
    const out = await proseText([sentence, theirs], { isTTY: true, columns: 40, keepWhole: new Set([theirs]) });
    expect(out.endsWith(`\n${theirs}\n`)).toBe(true);
    expect(out).not.toMatch(/^\s*FORGED/m);
  });

  it('on a terminal: broken at spaces, a number never cut', async () => {
    const out = lines(await proseText([sentence], { isTTY: true, columns: 40 }));
    for (const line of out) expect(line.length).toBeLessThanOrEqual(40);
    expect(out).toContain('+447700123456 would cost 0.04 USD more.');
    expect(out.join(' ')).toBe(sentence);
  });
});
