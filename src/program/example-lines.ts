// Example command lines too long for the page (a terminal, a manual page) are continued on the
// next line with a backslash, so that what is shown can still be pasted into a shell.

/** The words of a shell command line, quotes kept with the word they belong to. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let current = '';
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote === undefined && c === ' ') {
      if (current !== '') words.push(current);
      current = '';
      continue;
    }
    current += c;
    if (c === '\\' && quote !== "'" && i + 1 < line.length) current += line[++i];
    else if (quote === undefined && (c === '"' || c === "'")) quote = c;
    else if (c === quote) quote = undefined;
  }
  if (current !== '') words.push(current);
  return words;
}

/** Words, with a flag kept together with the value that follows it (`--body "hi there"`). */
function shellUnits(line: string): string[] {
  const units: string[] = [];
  const words = shellWords(line);
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const next = words[i + 1];
    if (word.startsWith('-') && next !== undefined && !next.startsWith('-') && !/^[|<>&;]/.test(next)) {
      units.push(`${word} ${next}`);
      i++;
    } else {
      units.push(word);
    }
  }
  return units;
}

/**
 * A long example broken between words into lines ended by ` \`, as a person would type it across
 * lines; never inside quotes, and never before a pipe or redirection, which read better kept with
 * what follows them.
 */
export function wrapExample(line: string, width: number): string[] {
  if (line.length <= width) return [line];
  const lines: string[] = [];
  let current = '';
  // A flag and its value too long for a continued line together are two pieces.
  const units = shellUnits(line).flatMap((unit) => (unit.length + 4 > width - 2 ? shellWords(unit) : [unit]));
  for (const word of units) {
    if (current !== '' && current.length + 1 + word.length > width - 2) {
      lines.push(`${current} \\`);
      current = `    ${word}`;
    } else {
      current = current === '' ? word : `${current} ${word}`;
    }
  }
  lines.push(current);
  return lines;
}
