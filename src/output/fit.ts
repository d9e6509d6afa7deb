// Column widths that fit a terminal, and cells shortened to them with an ellipsis.

const GAP = 2;
/** A shortened column keeps at least this much of each cell (or its header, if longer). */
const MIN_WIDTH = 8;

/**
 * Widths for columns of the given natural widths within `total` characters (gaps included):
 * while too wide, the widest column gives up a character, down to its floor; the first column,
 * and those `whole` marks, are never shortened (when they alone are too wide, the line is).
 */
export function fitColumns(natural: readonly number[], headers: readonly number[], total: number, whole: readonly boolean[] = []): number[] {
  const widths = [...natural];
  // The first column names the row (a number, an id): it stays whole, as does a value people
  // type back into another command (an event id for `svc events show ID`).
  const floors = natural.map((w, i) => (i === 0 || whole[i] === true ? w : Math.min(w, Math.max(MIN_WIDTH, headers[i] ?? 0))));
  let excess = widths.reduce((a, b) => a + b, 0) + GAP * Math.max(0, widths.length - 1) - total;
  while (excess > 0) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++) {
      if (widths[i]! > floors[i]! && (widest === -1 || widths[i]! > widths[widest]!)) widest = i;
    }
    if (widest === -1) break;
    widths[widest]!--;
    excess--;
  }
  return widths;
}

/** The cell as it fits in `width` characters: whole, or cut with a trailing ellipsis. */
export function truncateCell(text: string, width: number): string {
  const chars = [...text];
  if (chars.length <= width) return text;
  if (width <= 1) return '…'.slice(0, width);
  return `${chars.slice(0, width - 1).join('')}…`;
}
