// Reading the command line before commander does: which branch of the tree it names (only that
// one is built in full), which command body to start loading early, and flags given both ways.

import type { CommandSpec, OptionSpec } from '../commands/spec.js';
import { GLOBAL_OPTIONS } from '../commands/globals.js';
import { COMMANDS } from '../commands/tree.js';
import { UsageError } from '../errors.js';

/** Every spelling (`-o`, `--output`) of the options that take a value. */
export function valueFlags(options: readonly OptionSpec[]): Set<string> {
  return new Set(options.filter((o) => /[<[]/.test(o.flags)).flatMap((o) => o.flags.split(/[ ,]+/).filter((f) => f.startsWith('-'))));
}

const GLOBALS_WITH_VALUES = valueFlags(GLOBAL_OPTIONS);

/** The first `max` words of the line that are not options or the values of global options. */
export function leadingWords(argv: readonly string[], max: number): string[] {
  const words: string[] = [];
  for (let i = 0; i < argv.length && words.length < max; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    if (arg.startsWith('-')) {
      if (!arg.includes('=') && GLOBALS_WITH_VALUES.has(arg)) i++;
      continue;
    }
    words.push(arg);
  }
  return words;
}

/** The top-level command the line names (`svc --json tenant list` -> `tenant`; `svc help number` -> `number`). */
export function selectedBranch(argv: readonly string[]): string | undefined {
  const [first, second] = leadingWords(argv, 2);
  return first === 'help' ? second : first;
}

/**
 * Starts loading the body of the command the line names while commander loads, so that reading
 * their files overlaps (start-up time, bench/startup.mjs). The load is the one the action awaits later (an
 * import is done once); a failure shows there, not here.
 */
export function prefetchCommand(argv: readonly string[]): void {
  if (argv.includes('--help') || argv.includes('-h')) return;
  const words = leadingWords(argv, 3);
  const spec = COMMANDS.filter((c) => c.path.every((part, i) => words[i] === part)).sort((a, b) => b.path.length - a.path.length)[0];
  spec?.load().catch(() => undefined);
}

/**
 * An option declared both ways (`--store <dir>` and `--no-store`) takes one of them: given both,
 * commander would keep whichever came last, silently, so it is a usage error naming both.
 */
export function refuseBothForms(spec: CommandSpec, argv: readonly string[]): void {
  // The flags on the line, not the values they take (`--body --no-store` sends that text).
  const takesValue = valueFlags([...GLOBAL_OPTIONS, ...(spec.options ?? [])]);
  const flags: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') break;
    if (!word.startsWith('-')) continue;
    flags.push(word);
    if (takesValue.has(word)) i++;
  }
  const given = (flag: string): boolean => flags.some((word) => word === flag || word.startsWith(`${flag}=`));
  for (const option of spec.options ?? []) {
    const flag = longFlag(option.flags);
    if (!flag.startsWith('--no-')) continue;
    const positive = `--${flag.slice('--no-'.length)}`;
    if (!(spec.options ?? []).some((other) => longFlag(other.flags) === positive)) continue;
    if (given(flag) && given(positive)) throw new UsageError(`${positive} and ${flag} cannot be used together: choose one`);
  }
}

export function longFlag(flags: string): string {
  return /--[a-z0-9-]+/i.exec(flags)?.[0] ?? flags;
}
