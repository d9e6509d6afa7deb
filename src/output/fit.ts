// Which columns of a table are shown, and how wide, within the terminal's width. Widths are
// display columns (width.ts), measured on the text as it will be shown (terminal-safe).
//
// The rule, for a table wider than the terminal:
//   1. the least important columns are left out, one at a time, while the table would still be
//      too wide with its free text cut as far as we allow (TEXT_FLOOR columns, or the header);
//   2. then free-text cells are cut, the widest column first, ending in an ellipsis.
// Numbers, ids, phone numbers, statuses and times are never cut: a value cut short is a wrong
// value (`+141555…` is nobody's number). When what is left still does not fit (one id wider than
// the terminal), the line is as wide as it must be and the terminal wraps it.

/** What a column holds: only `text` may be cut. */
export type ColumnKind = 'id' | 'number' | 'status' | 'time' | 'text';

export interface ColumnMeasure {
  /** The widest cell or the header, in display columns. */
  natural: number;
  /** The header's width. */
  header: number;
  kind: ColumnKind;
  /** Higher is kept longer; the lowest is left out first (the rightmost of equals). */
  importance: number;
}

export interface TableFit {
  /** Indices of the columns shown, in their order. */
  shown: number[];
  /** The width of each shown column. */
  widths: number[];
  /** Indices of the columns left out. */
  hidden: number[];
}

export const GAP = 2;
/** A free-text column is cut to no fewer columns than this (or its header, if wider). */
export const TEXT_FLOOR = 10;

function floorOf(column: ColumnMeasure): number {
  return column.kind === 'text' ? Math.min(column.natural, Math.max(TEXT_FLOOR, column.header)) : column.natural;
}

function totalOf(widths: readonly number[]): number {
  return widths.reduce((a, b) => a + b, 0) + GAP * Math.max(0, widths.length - 1);
}

export function fitTable(columns: readonly ColumnMeasure[], total: number): TableFit {
  const shown = columns.map((_, i) => i);
  const hidden: number[] = [];
  while (shown.length > 1 && totalOf(shown.map((i) => floorOf(columns[i]!))) > total) {
    let least = shown[shown.length - 1]!;
    for (const i of shown) if (columns[i]!.importance <= columns[least]!.importance) least = i;
    shown.splice(shown.indexOf(least), 1);
    hidden.push(least);
  }
  const widths = shown.map((i) => columns[i]!.natural);
  const floors = shown.map((i) => floorOf(columns[i]!));
  let excess = totalOf(widths) - total;
  while (excess > 0) {
    let widest = -1;
    for (let k = 0; k < widths.length; k++) {
      if (widths[k]! > floors[k]! && (widest === -1 || widths[k]! > widths[widest]!)) widest = k;
    }
    if (widest === -1) break;
    const next = Math.max(floors[widest]!, ...widths.filter((_, k) => k !== widest && widths[k]! > floors[k]!));
    // Give up as much as needed in one step, but not below the next widest cuttable column.
    const step = Math.max(1, Math.min(excess, widths[widest]! - Math.max(next, floors[widest]!)));
    widths[widest] = widths[widest]! - step;
    excess -= step;
  }
  return { shown, widths, hidden: hidden.sort((a, b) => a - b) };
}
