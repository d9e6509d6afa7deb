import { padToWidth, widthRuleFor, wrapToWidth, type WidthRule } from './width.js';

// Lines for a person, fitted to the terminal: a terminal wraps a long line wherever its width
// ends, in the middle of a word or a number, and a value that wraps that way lands under the
// labels of the lines around it. On a terminal these break at spaces instead; elsewhere (a pipe,
// a log) every line stays whole, one a line, for grep.

/** Where lines go: whether it is a terminal, and its width (the stream's own when it knows it, as after a resize). */
export interface LineTarget {
  isTTY: boolean;
  columns: number;
  stream?: unknown;
  /** Lines written whole all the same (text that is not ours: see proseTextWith). */
  keepWhole?: ReadonlySet<string>;
}

function widthOf(target: LineTarget): number {
  const own = typeof target.stream === 'object' && target.stream !== null ? (target.stream as { columns?: unknown }).columns : undefined;
  return typeof own === 'number' && own > 0 ? own : target.columns;
}

/** A value narrower than this beside its label goes on the lines below it instead. */
const MIN_VALUE_COLUMNS = 16;

/** Sentences, each ending in a line break: on a terminal, broken at spaces to its width. */
export async function proseText(lines: readonly string[], target: LineTarget): Promise<string> {
  return target.isTTY ? proseTextWith(await widthRuleFor(lines), lines, target) : lines.map((line) => `${line}\n`).join('');
}

/**
 * proseText with a width rule already loaded (see widthRuleFor), for a caller that cannot wait.
 * A line that starts indented (an item of a list) keeps its indent on its later lines. A line in
 * `keepWhole` is left for the terminal to wrap: broken by us, a piece of someone else's text (a
 * service's error message) would start a line, where it could pass for one of ours.
 */
export function proseTextWith(rule: WidthRule, lines: readonly string[], target: LineTarget): string {
  const columns = widthOf(target);
  const out: string[] = [];
  for (const line of lines) {
    if (!target.isTTY || rule.width(line) <= columns || target.keepWhole?.has(line) === true) {
      out.push(line);
      continue;
    }
    const indent = /^ */.exec(line)![0];
    for (const part of wrapToWidth(rule, line.slice(indent.length), Math.max(MIN_VALUE_COLUMNS, columns - indent.length))) out.push(`${indent}${part}`);
  }
  return out.map((line) => `${line}\n`).join('');
}

/**
 * Rows of a label and its value, the values in one column (two spaces after the widest label).
 * On a terminal a value too long for its line is broken at spaces, its later lines starting
 * under its first; when the labels leave too little room, the value's lines are indented by two
 * under the label instead.
 */
export async function labelledText(rows: readonly (readonly [label: string, value: string])[], target: LineTarget): Promise<string> {
  const rule = await widthRuleFor(rows.flat());
  const labelWidth = Math.max(0, ...rows.map(([label]) => rule.width(label)));
  const indent = labelWidth + 2;
  const columns = widthOf(target);
  const out: string[] = [];
  for (const [label, value] of rows) {
    const line = `${padToWidth(rule, label, indent)}${value}`;
    if (!target.isTTY || rule.width(line) <= columns) {
      out.push(line.trimEnd());
      continue;
    }
    const room = columns - indent;
    if (room >= MIN_VALUE_COLUMNS) {
      wrapToWidth(rule, value, room).forEach((part, i) => out.push(`${i === 0 ? padToWidth(rule, label, indent) : ' '.repeat(indent)}${part}`));
    } else {
      out.push(label);
      for (const part of wrapToWidth(rule, value, columns - 2)) out.push(`  ${part}`);
    }
  }
  return out.map((line) => `${line}\n`).join('');
}
