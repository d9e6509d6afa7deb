import { withoutControls } from './terminal.js';

// One rule for how wide text is on a terminal, used by every table, column and wrapped line:
// grapheme clusters (what a person sees as one character: `é` written as e + accent, a flag, a
// family emoji joined by ZWJ) measured by string-width: East Asian wide characters and emoji take
// two columns, combining marks none. A cluster is never split: text is cut and wrapped between
// clusters only. svc's own colour sequences take no room (terminal.ts marks them).
//
// string-width segments with Intl.Segmenter and matches emoji with a Unicode-property regular
// expression; loading both costs tens of milliseconds, so it is loaded only for text that needs
// it: text of printable ASCII and Latin letters without combining marks is one column a
// character, measured without it.

/** Text whose every UTF-16 unit is one column and one cluster: printable ASCII and Latin up to U+02FF (no soft hyphen). */
const SIMPLE = /^[\u0020-\u007e\u00a0-\u00ac\u00ae-\u02ff]*$/;

export interface WidthRule {
  /** Columns the text takes on a terminal. */
  width(text: string): number;
  /** The text's grapheme clusters, in order. */
  clusters(text: string): string[];
}

const simpleRule: WidthRule = {
  width: (text) => withoutControls(text).length,
  clusters: (text) => [...withoutControls(text)],
};

let fullRule: WidthRule | undefined;

async function loadFullRule(): Promise<WidthRule> {
  if (fullRule) return fullRule;
  const { default: stringWidth } = await import('string-width');
  const segmenter = new Intl.Segmenter();
  const measure = (text: string): number => (SIMPLE.test(text) ? text.length : stringWidth(text));
  fullRule = {
    width: (text) => measure(withoutControls(text)),
    clusters: (text) => {
      const plain = withoutControls(text);
      if (SIMPLE.test(plain)) return [...plain];
      return Array.from(segmenter.segment(plain), (s) => s.segment);
    },
  };
  return fullRule;
}

/** The rule for measuring these texts: the full one when any of them needs it. */
export async function widthRuleFor(texts: Iterable<string>): Promise<WidthRule> {
  if (fullRule) return fullRule;
  for (const text of texts) if (!SIMPLE.test(withoutControls(text))) return loadFullRule();
  return simpleRule;
}

/**
 * The text cut to at most `width` columns, ending in an ellipsis when cut; never in the middle of
 * a cluster (a wide character that does not fit leaves the column blank instead).
 */
export function cutToWidth(rule: WidthRule, text: string, width: number): string {
  if (rule.width(text) <= width) return text;
  if (width <= 0) return '';
  if (width === 1) return '…';
  let out = '';
  let used = 0;
  for (const cluster of rule.clusters(text)) {
    const w = rule.width(cluster);
    if (used + w > width - 1) break;
    out += cluster;
    used += w;
  }
  return `${out}…`;
}

/** The text followed by spaces to fill `width` columns (nothing added when it is as wide or wider). */
export function padToWidth(rule: WidthRule, text: string, width: number): string {
  const w = rule.width(text);
  return w >= width ? text : `${text}${' '.repeat(width - w)}`;
}

/**
 * The text as lines of at most `width` columns: broken at spaces where it can, else between
 * clusters (a word longer than the line), never inside one. Line breaks in the text are kept.
 */
export function wrapToWidth(rule: WidthRule, text: string, width: number): string[] {
  const max = Math.max(1, width);
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    let lineWidth = 0;
    const push = (): void => {
      lines.push(line.trimEnd());
      line = '';
      lineWidth = 0;
    };
    for (const word of paragraph.split(/(?<= )/)) {
      const w = rule.width(word);
      const bare = rule.width(word.trimEnd());
      if (lineWidth + bare <= max) {
        line += word;
        lineWidth += w;
        continue;
      }
      if (lineWidth > 0) push();
      if (bare <= max) {
        line = word;
        lineWidth = w;
        continue;
      }
      // A word longer than a line: as many clusters as fit on each line.
      for (const cluster of rule.clusters(word)) {
        const cw = rule.width(cluster);
        if (lineWidth + cw > max && lineWidth > 0) push();
        line += cluster;
        lineWidth += cw;
      }
    }
    push();
  }
  return lines;
}
