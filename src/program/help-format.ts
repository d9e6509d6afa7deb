// How `--help` looks: every line of prose wrapped to the terminal (80 columns when the help is
// piped), a command's subcommands before its options, and the long description, examples and
// next steps that commander itself has no place for. Commander parses and decides when help is
// shown; these are the pieces of its Help class that lay the text out.

import type { Command as CommanderCommand, Help, Option as CommanderOption } from 'commander';
import type { CommandSpec } from '../commands/spec.js';
import { wrapToWidth, type WidthRule } from '../output/width.js';
import { wrapExample } from './example-lines.js';

/** What a command's help shows beyond its options and subcommands. */
export interface HelpExtras {
  /** Longer prose: paragraphs parted by a blank line, each hard-wrapped any way in the source. */
  description?: string;
  /** Title and lines of the closing section: `Examples:` with command lines, or `Start here:`. */
  examples?: { title: string; lines: readonly string[] };
  /** Command lines with what they do, aligned as the options are (the program's `Start here:`). */
  startHere?: { title: string; items: readonly (readonly [string, string])[] };
  /** One closing sentence: where to read on. */
  learnMore?: string;
  /** A noun's help leaves out the global options (they belong to its commands) and says where they are. */
  hideGlobalOptions?: boolean;
}

export const GLOBAL_OPTIONS_HEADING = 'Global options:';

const extrasOf = new WeakMap<CommanderCommand, HelpExtras>();

export function setHelpExtras(command: CommanderCommand, extras: HelpExtras): void {
  extrasOf.set(command, extras);
}

/**
 * Hard-wrapped source prose as paragraphs (a blank line parts them), each joined onto one line,
 * to be wrapped again at the width of wherever it is shown: a terminal, the manual, Markdown.
 */
export function paragraphs(text: string | undefined): string[] {
  if (text === undefined) return [];
  return text
    .split(/\n\s*\n/)
    // A list wrapped after one of its commas (`loaUrl,billingPlan,` then `type,class`) is one word.
    .map((p) => p.replace(/(\S*,\S*,)\s*\n\s*/g, '$1').replace(/\s*\n\s*/g, ' ').trim())
    .filter((p) => p !== '');
}

/**
 * A noun's examples, from its commands: the first example of each command (or of each group of
 * commands) under it, in the tree's order, so that nothing is written twice.
 */
export function nounExamples(commands: readonly CommandSpec[], path: readonly string[]): string[] {
  const seen = new Set<string>();
  const examples: string[] = [];
  for (const spec of commands) {
    if (spec.hidden || spec.path.length <= path.length || !path.every((word, i) => spec.path[i] === word)) continue;
    const next = spec.path[path.length]!;
    if (seen.has(next) || spec.examples[0] === undefined) continue;
    seen.add(next);
    examples.push(spec.examples[0]);
  }
  return examples;
}

/** The width help is laid out for: the terminal's, or 80 columns when it is not a terminal. */
export function helpWidthFor(isTTY: boolean, columns: number): number {
  // Narrower than this, no layout reads well; the terminal wraps what is left.
  return isTTY ? Math.max(30, columns) : 80;
}

const INDENT = 2;
const SPACER = 2;
/** Below this many columns for an item's description, it goes under its term instead of beside it. */
const MIN_DESCRIPTION_COLUMNS = 28;

/**
 * Prose as lines of at most `width` columns, broken at spaces; a word wider than the line (a
 * list such as `number,email,description,...`) is broken after one of its commas or bars, and
 * only a word with neither is cut between characters.
 */
export function wrapProse(rule: WidthRule, text: string, width: number): string[] {
  const pieces = text.split(/(?<= )/).flatMap((word) => (rule.width(word.trimEnd()) > width ? word.split(/(?<=[,|])/) : [word]));
  const lines: string[] = [];
  let line = '';
  for (const piece of pieces) {
    if (line !== '' && rule.width(line + piece.trimEnd()) > width) {
      lines.push(line.trimEnd());
      line = '';
    }
    line += piece;
  }
  lines.push(line.trimEnd());
  return lines.flatMap((l) => (rule.width(l) > width ? wrapToWidth(rule, l, width) : [l]));
}

function wrapped(rule: WidthRule, text: string, width: number, indent: number): string[] {
  return wrapProse(rule, text, Math.max(10, width - indent)).map((line) => `${' '.repeat(indent)}${line}`.trimEnd());
}

/** A term and its description: beside it when there is room, else under it, indented. */
function formatItem(rule: WidthRule, width: number, term: string, termWidth: number, description: string): string {
  const pad = ' '.repeat(INDENT);
  if (!description) return `${pad}${term}`;
  const column = INDENT + termWidth + SPACER;
  if (width - column < MIN_DESCRIPTION_COLUMNS) {
    return [`${pad}${term}`, ...wrapped(rule, description, width, INDENT + 4)].join('\n');
  }
  const [first = '', ...rest] = wrapProse(rule, description, width - column);
  const head = `${pad}${term}${' '.repeat(Math.max(SPACER, termWidth - rule.width(term) + SPACER))}${first}`;
  return [head, ...rest.map((line) => `${' '.repeat(column)}${line}`)].join('\n');
}

/** A subcommand as its parent lists it: its name and arguments (its options are in its own help). */
function subcommandTerm(sub: CommanderCommand): string {
  const args = sub.registeredArguments.map((arg) => {
    const name = `${arg.name()}${arg.variadic ? '...' : ''}`;
    return arg.required ? `<${name}>` : `[${name}]`;
  });
  return [sub.name(), ...args].join(' ');
}

type Item = readonly [term: string, description: string];

function optionSections(command: CommanderCommand, helper: Help, extras: HelpExtras | undefined): [string, Item[]][] {
  const groups = new Map<string, Item[]>();
  for (const option of helper.visibleOptions(command) as (CommanderOption & { helpGroupHeading?: string })[]) {
    const heading = option.helpGroupHeading ?? 'Options:';
    if (heading === GLOBAL_OPTIONS_HEADING && extras?.hideGlobalOptions) continue;
    const list = groups.get(heading) ?? [];
    list.push([helper.optionTerm(option), helper.optionDescription(option)]);
    groups.set(heading, list);
  }
  // The command's own options before the ones every command has.
  return [...groups.entries()].sort(([a], [b]) => Number(a === GLOBAL_OPTIONS_HEADING) - Number(b === GLOBAL_OPTIONS_HEADING));
}

/** The titled lists of a command's help, in order: its commands, arguments, then options. */
function itemSections(command: CommanderCommand, helper: Help, extras: HelpExtras | undefined): [string, Item[]][] {
  return [
    ['Commands:', helper.visibleCommands(command).map((sub): Item => [helper.subcommandTerm(sub), helper.subcommandDescription(sub)])],
    ['Arguments:', helper.visibleArguments(command).map((arg): Item => [helper.argumentTerm(arg), helper.argumentDescription(arg)])],
    ...optionSections(command, helper, extras),
  ];
}

function closingSections(extras: HelpExtras | undefined, rule: WidthRule, width: number): string[] {
  if (extras === undefined) return [];
  const out: string[] = [];
  for (const paragraph of paragraphs(extras.description)) out.push(...wrapped(rule, paragraph, width, 0), '');
  if (extras.startHere) {
    const termWidth = Math.max(...extras.startHere.items.map(([line]) => rule.width(line)));
    out.push(extras.startHere.title, ...extras.startHere.items.map(([line, what]) => formatItem(rule, width, line, termWidth, what)), '');
  }
  if (extras.examples && extras.examples.lines.length > 0) {
    out.push(extras.examples.title);
    // A command line too long for the terminal is continued with a backslash: it still pastes.
    for (const example of extras.examples.lines) {
      const [first, ...rest] = wrapExample(example, width - 4);
      out.push(`  $ ${first}`, ...rest.map((line) => `  ${line}`));
    }
    out.push('');
  }
  if (extras.learnMore) out.push(...wrapped(rule, extras.learnMore, width, 0), '');
  return out;
}

/**
 * The overrides of commander's Help for `configureHelp`: the layout above, measured with the one
 * width rule of the terminal output (wide characters and emoji take two columns).
 */
export function helpLayout(rule: WidthRule): Partial<Help> {
  return {
    sortSubcommands: false,
    showGlobalOptions: false,
    displayWidth: (text: string) => rule.width(text),
    subcommandTerm,
    // The implicit `help` subcommand of every noun is `svc help NOUN COMMAND` said another way.
    visibleCommands(this: Help, command: CommanderCommand): CommanderCommand[] {
      return command.commands.filter((sub) => !(sub as unknown as { _hidden?: boolean })._hidden);
    },
    formatItem: (term: string, termWidth: number, description: string, helper: Help) => formatItem(rule, helper.helpWidth ?? 80, term, termWidth, description),
    formatHelp(command: CommanderCommand, helper: Help): string {
      const width = helper.helpWidth ?? 80;
      const extras = extrasOf.get(command);
      const sections = itemSections(command, helper, extras).filter(([, items]) => items.length > 0);
      // One column for the terms of every list shown, so that the descriptions line up.
      const termWidth = Math.max(0, ...sections.flatMap(([, items]) => items.map(([term]) => rule.width(term))));
      const summary = helper.commandDescription(command);
      // A usage line too long for a narrow terminal goes on under itself, indented.
      const [usage = '', ...usageRest] = wrapProse(rule, `Usage: ${helper.commandUsage(command)}`, width);
      const out = [usage, ...usageRest.map((line) => `    ${line}`), ''];
      if (summary) out.push(...wrapped(rule, summary, width, 0), '');
      for (const [title, items] of sections) out.push(title, ...items.map(([term, text]) => helper.formatItem(term, termWidth, text, helper)), '');
      out.push(...closingSections(extras, rule, width));
      return `${out.join('\n').replace(/\n+$/, '')}\n`;
    },
  };
}
