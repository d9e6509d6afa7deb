import { describe, expect, it } from 'vitest';
import { sgr } from '../../src/output/terminal.js';
import { cutToWidth, padToWidth, widthRuleFor, wrapToWidth } from '../../src/output/width.js';

// One display-width rule: grapheme clusters, East Asian wide and emoji two columns, never a
// cluster split.

const FAMILY = '👨‍👩‍👧‍👦';
const FLAG = '🇯🇵';
const ACCENT = 'e\u0301';

describe('the width rule', () => {
  it('measures in terminal columns, by grapheme cluster', async () => {
    const rule = await widthRuleFor(['日本']);
    expect(rule.width('abc')).toBe(3);
    expect(rule.width('Grüße')).toBe(5);
    expect(rule.width('日本語')).toBe(6);
    expect(rule.width(FAMILY)).toBe(2);
    expect(rule.width(FLAG)).toBe(2);
    expect(rule.width(`caf${ACCENT}`)).toBe(4);
    expect(rule.width('한국어')).toBe(6);
    expect(rule.clusters(`a${FAMILY}b`)).toEqual(['a', FAMILY, 'b']);
    // svc's own colour takes no room.
    expect(rule.width(sgr(31, 39, '日本'))).toBe(4);
  });

  it('needs nothing loaded for ASCII and Latin text', async () => {
    const rule = await widthRuleFor(['plain', 'Grüße', 'ĳ']);
    expect(rule.width('Grüße')).toBe(5);
  });

  it('cuts between clusters, never inside one, and ends with an ellipsis', async () => {
    const rule = await widthRuleFor([FAMILY]);
    expect(cutToWidth(rule, `ab${FAMILY}cd`, 4)).toBe('ab…');
    expect(cutToWidth(rule, `ab${FAMILY}cd`, 5)).toBe(`ab${FAMILY}…`);
    expect(cutToWidth(rule, '日本語テキスト', 7)).toBe('日本語…');
    expect(cutToWidth(rule, '日本語テキスト', 6)).toBe('日本…');
    expect(cutToWidth(rule, `caf${ACCENT} au lait`, 5)).toBe(`caf${ACCENT}…`);
    expect(cutToWidth(rule, 'short', 10)).toBe('short');
    for (let width = 1; width < 12; width++) {
      const cut = cutToWidth(rule, `x${FAMILY}${FLAG}日本${ACCENT}`, width);
      expect(rule.width(cut)).toBeLessThanOrEqual(width);
      expect(cut.replace('…', '')).toBe(rule.clusters(cut.replace('…', '')).join(''));
      for (const cluster of rule.clusters(cut)) expect([...'x日本…', FAMILY, FLAG, ACCENT]).toContain(cluster);
    }
  });

  it('pads to a width in columns', async () => {
    const rule = await widthRuleFor(['日本']);
    expect(padToWidth(rule, '日本', 6)).toBe('日本  ');
    expect(padToWidth(rule, FAMILY, 3)).toBe(`${FAMILY} `);
  });

  it('wraps at spaces, and inside a long word between clusters only', async () => {
    const rule = await widthRuleFor([FAMILY]);
    const text = `家族 ${FAMILY}${FAMILY}${FAMILY}${FAMILY} 日本語のテキストです hello`;
    for (const width of [4, 5, 7, 10]) {
      const lines = wrapToWidth(rule, text, width);
      for (const line of lines) expect(rule.width(line), `${JSON.stringify(line)} in ${width}`).toBeLessThanOrEqual(width);
      expect(lines.join('').replace(/ /g, '')).toBe(text.replace(/ /g, ''));
      // Every family emoji is whole on some line.
      expect(lines.join('\n').split(FAMILY).length - 1).toBe(4);
    }
    expect(wrapToWidth(rule, 'one two three', 7)).toEqual(['one two', 'three']);
    expect(wrapToWidth(rule, 'a\nb', 10)).toEqual(['a', 'b']);
  });
});
