// The commander tree made from the command specs. Only the branch the command line names is built
// in full (options, help, action); the others are outlines that carry what `svc --help` lists, so
// most of the tree is never parsed against.

import type { Command as CommanderCommand, Option as CommanderOption } from 'commander';
import { usageArguments, type CommandSpec } from '../commands/spec.js';
import { GLOBAL_OPTIONS } from '../commands/globals.js';
import { COMMANDS, GROUPS } from '../commands/tree.js';
import { longFlag } from './argv-scan.js';
import { makeOption } from './commander-parts.js';
import { GLOBAL_OPTIONS_HEADING, nounExamples, setHelpExtras } from './help-format.js';

export interface TreeParts {
  commander: typeof import('commander');
  program: CommanderCommand;
  /** Gives a new command the program's output, error and help settings. */
  configure: (cmd: CommanderCommand) => CommanderCommand;
  /** The top-level command the line names: its branch is built in full. */
  selected: string | undefined;
  /** Runs a leaf once commander has parsed it. */
  run: (spec: CommandSpec, command: CommanderCommand, ownAttributes: ReadonlySet<string>) => Promise<void>;
}

/** The global options, on every command that takes them, except those it declares as its own. */
export function addGlobalOptions(Option: typeof CommanderOption, cmd: CommanderCommand, own: ReadonlySet<string>): void {
  for (const spec of GLOBAL_OPTIONS) {
    if (own.has(longFlag(spec.flags))) continue;
    cmd.addOption(makeOption(Option, spec).helpGroup(GLOBAL_OPTIONS_HEADING));
  }
}

function addArguments(cmd: CommanderCommand, spec: CommandSpec): void {
  for (const arg of spec.args ?? []) {
    const name = `${arg.name}${arg.variadic ? '...' : ''}`;
    // Every positional is optional to commander, so that a missing one gets our message (which
    // can ask for it); the usage line still says which are required.
    cmd.argument(`[${name}]`, arg.description);
  }
  cmd.usage(usageArguments(spec));
}

export function addCommandTree(parts: TreeParts): void {
  const groups = new Map<string, CommanderCommand>();
  for (const spec of COMMANDS) {
    const parent = parentFor(parts, groups, spec.path);
    const command = spec.path[0] === parts.selected ? leafCommand(parts, spec) : outlineCommand(parts, spec);
    parent.addCommand(command, spec.hidden ? { hidden: true } : {});
  }
}

/** The noun a command sits under, made (with its help) the first time one of its commands is added. */
function parentFor(parts: TreeParts, groups: Map<string, CommanderCommand>, path: readonly string[]): CommanderCommand {
  let parent = parts.program;
  for (let depth = 0; depth < path.length - 1; depth++) {
    const key = path.slice(0, depth + 1).join(' ');
    let group = groups.get(key);
    // A command that also has subcommands (`send` and `send report`): its options after the
    // subcommand's name belong to the subcommand.
    const leaf = group ? undefined : parent.commands.find((c) => c.name() === path[depth]);
    if (leaf) group = leaf.enablePositionalOptions();
    if (!group) {
      group = nounCommand(parts, path.slice(0, depth + 1));
      parent.addCommand(group);
    }
    groups.set(key, group);
    parent = group;
  }
  return parent;
}

function nounCommand(parts: TreeParts, path: readonly string[]): CommanderCommand {
  const key = path.join(' ');
  const summary = GROUPS.find((g) => g.name === key)?.summary ?? '';
  const group = parts.configure(new parts.commander.Command(path[path.length - 1]!)).description(summary).enablePositionalOptions();
  // Global options given before the command's name (`svc tenant --json list`) are parsed here.
  if (path[0] === parts.selected) addGlobalOptions(parts.commander.Option, group, new Set());
  setHelpExtras(group, {
    hideGlobalOptions: true,
    examples: { title: 'Examples:', lines: nounExamples(COMMANDS, path) },
    learnMore: `svc help ${key} COMMAND shows a command's options and more examples; svc --help lists the global options (--json, --profile, ...), which every command takes.`,
  });
  return group;
}

/** A command of a branch the line does not name: what its parent's help lists, nothing more. */
function outlineCommand(parts: TreeParts, spec: CommandSpec): CommanderCommand {
  const outline = new parts.commander.Command(spec.path[spec.path.length - 1]!).description(spec.summary);
  addArguments(outline, spec);
  return outline;
}

/** The command the line names: its options (its own first), help and action. */
function leafCommand(parts: TreeParts, spec: CommandSpec): CommanderCommand {
  const { Command, Option } = parts.commander;
  const leaf = parts.configure(new Command(spec.path[spec.path.length - 1]!)).description(spec.summary);
  addArguments(leaf, spec);
  const own = new Set<string>();
  const ownAttributes = new Set<string>();
  for (const option of spec.options ?? []) {
    own.add(longFlag(option.flags));
    const made = makeOption(Option, option);
    if (GLOBAL_OPTIONS.some((g) => longFlag(g.flags) === longFlag(option.flags))) ownAttributes.add(made.attributeName());
    leaf.addOption(made);
  }
  addGlobalOptions(Option, leaf, own);
  setHelpExtras(leaf, { ...(spec.description !== undefined ? { description: spec.description } : {}), examples: { title: 'Examples:', lines: spec.examples } });
  leaf.action(async (...params: unknown[]) => {
    await parts.run(spec, params[params.length - 1] as CommanderCommand, ownAttributes);
  });
  return leaf;
}
