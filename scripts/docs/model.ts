import { GLOBAL_OPTIONS } from '../../src/commands/globals.js';
import { usageArguments, type ArgSpec, type CommandSpec, type OptionSpec } from '../../src/commands/spec.js';
import { COMMANDS, GROUPS, PROGRAM } from '../../src/commands/tree.js';
import { EXIT_CODES, exitCodesOf, type ExitCodeRow } from './exit-codes.js';
import { paragraphs } from '../../src/program/help-format.js';

// The manual's view of the command tree: one node per command path that a person can type
// (the program, each group such as `svc number loa`, each command), in the order of the tree.
// The Markdown reference and the man pages are two renderings of these nodes.

export interface DocNode {
  /** Words after `svc`; empty for the program itself. */
  path: readonly string[];
  summary: string;
  /** Paragraphs of the longer text, each one line. */
  description: string[];
  /** The command, when the path runs one (`svc send` runs one and has `send report` below). */
  spec: CommandSpec | undefined;
  children: DocNode[];
}

export interface DocOption {
  /** As typed: `-o, --output <format>`. */
  flags: string;
  description: string;
  choices: readonly string[] | undefined;
  defaultValue: string | undefined;
  repeatable: boolean;
}

export interface DocArgument {
  /** As in the usage line: `<ID>`, `[NUMBER...]`. */
  usage: string;
  description: string;
  choices: readonly string[] | undefined;
  required: boolean;
  variadic: boolean;
  asked: boolean;
}

/** `svc number provision` */
export const commandLine = (node: Pick<DocNode, 'path'>): string => ['svc', ...node.path].join(' ');

/** `svc-number-provision`, the man page's name. */
export const manName = (node: Pick<DocNode, 'path'>): string => ['svc', ...node.path].join('-');

/** A summary (`provision phone numbers for a tenant`) as a sentence: capital first, full stop last. */
export function sentence(summary: string): string {
  const capital = summary.replace(/^[a-z]/, (c) => c.toUpperCase());
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

/** Hard-wrapped help text as paragraphs: the rule --help uses, so that both say the same. */
export { paragraphs };

/** The program, its groups and commands, as a tree; hidden commands left out. */
export function buildTree(commands: readonly CommandSpec[] = COMMANDS): DocNode {
  const summaries = new Map(GROUPS.map((g) => [g.name, g.summary]));
  const root: DocNode = { path: [], summary: PROGRAM.summary, description: [], spec: undefined, children: [] };
  const byPath = new Map<string, DocNode>([['', root]]);
  const nodeAt = (path: readonly string[]): DocNode => {
    const key = path.join(' ');
    let found = byPath.get(key);
    if (found === undefined) {
      const summary = summaries.get(key);
      if (summary === undefined) throw new Error(`docs: no command and no group named "${key}": declare its GroupSpec in src/commands/tree.ts`);
      found = { path, summary, description: [], spec: undefined, children: [] };
      byPath.set(key, found);
      nodeAt(path.slice(0, -1)).children.push(found);
    }
    return found;
  };
  for (const spec of commands) {
    if (spec.hidden) continue;
    const key = spec.path.join(' ');
    const existing = byPath.get(key);
    if (existing?.spec) throw new Error(`docs: two commands named "${key}"`);
    if (existing) {
      // A group met before the command of the same path (a subcommand declared first).
      Object.assign(existing, { summary: spec.summary, description: paragraphs(spec.description), spec });
      continue;
    }
    const node: DocNode = { path: spec.path, summary: spec.summary, description: paragraphs(spec.description), spec, children: [] };
    byPath.set(key, node);
    nodeAt(spec.path.slice(0, -1)).children.push(node);
  }
  return root;
}

/** Every node below `node`, itself first, depth first in the order of the tree. */
export function walk(node: DocNode): DocNode[] {
  return [node, ...node.children.flatMap(walk)];
}

/** `svc number provision [options] [NUMBER...]`; a group's is `svc number <command>`. */
export function synopsis(node: DocNode): string {
  if (node.spec) return `${commandLine(node)} ${usageArguments(node.spec)}`;
  return `${commandLine(node)} <command> [options]`;
}

export function optionsOf(spec: CommandSpec): DocOption[] {
  return (spec.options ?? []).filter((o) => !o.hidden).map(docOption);
}

export const globalOptions = (): DocOption[] => GLOBAL_OPTIONS.map(docOption);

function docOption(option: OptionSpec): DocOption {
  return {
    flags: option.flags,
    description: option.description,
    choices: option.choices,
    // A flag's `false` is not a default worth printing: absent is off.
    defaultValue: typeof option.defaultValue === 'string' ? option.defaultValue : undefined,
    repeatable: option.repeatable === true,
  };
}

export function argumentsOf(spec: CommandSpec): DocArgument[] {
  return (spec.args ?? []).map((arg: ArgSpec) => {
    const name = `${arg.name}${arg.variadic ? '...' : ''}`;
    return {
      usage: arg.required ? `<${name}>` : `[${name}]`,
      description: arg.description,
      choices: arg.choices,
      required: arg.required === true,
      variadic: arg.variadic === true,
      asked: arg.ask === true,
    };
  });
}

/** The long names of the global options a command redefines for itself (`order watch --timeout`). */
export function ownGlobals(spec: CommandSpec): string[] {
  const long = (flags: string): string | undefined => /--[a-z0-9-]+/.exec(flags)?.[0];
  const own = new Set((spec.options ?? []).map((o) => long(o.flags)));
  return GLOBAL_OPTIONS.map((g) => long(g.flags)).filter((name): name is string => name !== undefined && own.has(name));
}

/** The exit codes of the table that apply to a command (all of them for the program and groups). */
export function exitCodesFor(node: DocNode): readonly ExitCodeRow[] {
  return node.spec ? exitCodesOf(node.spec) : EXIT_CODES;
}

/** The first word's page of the reference: a noun and what is below it, or the top-level verbs. */
export interface ReferencePage {
  /** File name below docs/reference/. */
  file: string;
  title: string;
  summary: string;
  nodes: DocNode[];
}

export const TOP_LEVEL_PAGE = 'top-level.md';

/** Nouns (a first word with commands below it) get a page each; commands of one word share one. */
export function referencePages(root: DocNode): ReferencePage[] {
  const pages: ReferencePage[] = [];
  const single: DocNode[] = [];
  for (const child of root.children) {
    if (child.children.length === 0) {
      single.push(child);
      continue;
    }
    pages.push({ file: `${child.path[0]}.md`, title: commandLine(child), summary: child.summary, nodes: walk(child) });
  }
  if (single.length > 0) {
    pages.push({ file: TOP_LEVEL_PAGE, title: 'Top-level commands', summary: 'Commands of one word, with no subcommands.', nodes: single });
  }
  return pages;
}

/** The reference page that documents a node. */
export function pageOf(pages: readonly ReferencePage[], node: DocNode): ReferencePage {
  const page = pages.find((p) => p.nodes.includes(node));
  if (page === undefined) throw new Error(`docs: no reference page holds ${commandLine(node)}`);
  return page;
}
