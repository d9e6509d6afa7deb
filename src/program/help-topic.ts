// `svc help TOPIC...`: the help of the command the words name, however deep (`svc help number
// provision` is `svc number provision --help`), and a usage error for a topic that is no command,
// with the nearest names, instead of the whole program's help.

import type { CommandSpec, GroupSpec } from '../commands/spec.js';
import { UsageError } from '../errors.js';
import { closestKey } from '../input/known-keys.js';
import { leadingWords } from './argv-scan.js';

/** The command line to parse: `svc help A B` becomes `svc A B --help`; any other line is kept. */
export function helpTopicLine(argv: readonly string[], commands: readonly CommandSpec[], groups: readonly GroupSpec[]): readonly string[] {
  const words = leadingWords(argv, Infinity);
  if (words[0] !== 'help') return argv;
  const topic = words.slice(1);
  checkTopic(topic, commands, groups);
  const at = argv.indexOf('help');
  return [...argv.slice(0, at), ...argv.slice(at + 1), '--help'];
}

/** The names that can follow these words: subcommands and nouns, in the tree's order. */
function namesAfter(path: readonly string[], commands: readonly CommandSpec[], groups: readonly GroupSpec[]): string[] {
  const names = new Set<string>();
  const paths = [...commands.filter((c) => !c.hidden).map((c) => c.path), ...groups.map((g) => g.name.split(' '))];
  for (const candidate of paths) {
    if (candidate.length > path.length && path.every((word, i) => candidate[i] === word)) names.add(candidate[path.length]!);
  }
  return [...names];
}

function checkTopic(topic: readonly string[], commands: readonly CommandSpec[], groups: readonly GroupSpec[]): void {
  for (let depth = 0; depth < topic.length; depth++) {
    const known = namesAfter(topic.slice(0, depth), commands, groups);
    const word = topic[depth]!;
    if (known.includes(word)) continue;
    const parent = topic.slice(0, depth);
    const asked = topic.slice(0, depth + 1).join(' ');
    const near = closestKey(word, known);
    const list = `svc help ${parent.map((w) => `${w} `).join('')}COMMAND takes one of: ${known.join(', ')}`;
    // Past the last command there is nothing to name (`svc help health extra`).
    if (known.length === 0) throw new UsageError(`unknown help topic "${topic.join(' ')}": svc ${parent.join(' ')} has no subcommands`, [`Try: svc help ${parent.join(' ')}`]);
    throw new UsageError(`unknown help topic "${asked}"`, [...(near !== undefined ? [`Did you mean: svc help ${[...parent, near].join(' ')}`] : []), list]);
  }
}
