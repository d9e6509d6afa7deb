import { ENVIRONMENT } from './environment.js';
import { EXIT_CODES, type ExitCodeRow } from './exit-codes.js';
import {
  argumentsOf,
  commandLine,
  exitCodesFor,
  globalOptions,
  manName,
  optionsOf,
  ownGlobals,
  sentence,
  synopsis,
  walk,
  type DocArgument,
  type DocNode,
  type DocOption,
} from './model.js';
import { PROGRAM } from '../../src/commands/tree.js';

// Man pages in man/, one per command path (svc.1, svc-number.1, svc-number-provision.1 ...), in
// the man(7) macros that man-db and mandoc both read: NAME, SYNOPSIS, DESCRIPTION, COMMANDS (for a
// group), OPTIONS, EXAMPLES, EXIT STATUS and SEE ALSO.

/** Columns an example may take before it is continued on the next line with a backslash. */
const EXAMPLE_WIDTH = 68;

/**
 * Help text as roff: backslashes and hyphens escaped (a `-` would print as a hyphen that does not
 * paste as a minus sign into a shell), `code spans` in bold, and a leading dot or quote, which
 * roff would take for a request, neutralised.
 */
export function roffText(text: string): string {
  const escaped = text
    .split(/(`[^`]*`)/)
    .map((part, i) => {
      // \: after a comma inside a word: a break point for lists such as number,email,description.
      const plain = escapeRoff(i % 2 === 1 ? part.slice(1, -1) : part).replace(/,(?=\S)/g, ',\\:');
      return i % 2 === 1 ? `\\fB${plain}\\fR` : plain;
    })
    .join('');
  return /^[.']/.test(escaped) ? `\\&${escaped}` : escaped;
}

/**
 * Escapes roff's escape character and the hyphen (nothing else in help text is special mid-line),
 * and writes characters beyond ASCII as \[uXXXX], which groff and mandoc read whether or not the
 * page went through preconv first.
 */
const escapeRoff = (text: string): string =>
  text
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .replace(/[^\x00-\x7f]/gu, (c) => `\\[u${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`);

/** A whole line that must print as it is (an example, a synopsis), with no fill and no requests. */
const literalLine = (text: string): string => {
  const escaped = escapeRoff(text);
  return /^[.']/.test(escaped) ? `\\&${escaped}` : escaped;
};

/** `-o, --output <format>` as `\fB\-o\fR, \fB\-\-output\fR \fI<format>\fR`: flags bold, the value in italics. */
function flagsText(flags: string): string {
  return flags
    .split(/(\s*,\s*|\s+)/)
    .map((part) => {
      if (part.trim() === '' || part.trim() === ',') return part;
      return part.startsWith('-') ? `\\fB${escapeRoff(part)}\\fR` : `\\fI${escapeRoff(part)}\\fR`;
    })
    .join('');
}

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
export function wrapExample(line: string, width = EXAMPLE_WIDTH): string[] {
  if (line.length <= width) return [line];
  const lines: string[] = [];
  let current = '';
  for (const word of shellUnits(line)) {
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

/** Help text ends without a full stop; notes after it are sentences of their own. */
const endSentence = (text: string): string => (/[.!?]$/.test(text) ? text : `${text}.`);

function optionItem(option: DocOption): string[] {
  const notes = [
    option.choices ? `One of: ${option.choices.map((c) => `\\fB${escapeRoff(c)}\\fR`).join(', ')}.` : undefined,
    option.defaultValue !== undefined ? `Default: \\fB${escapeRoff(option.defaultValue)}\\fR.` : undefined,
    option.repeatable ? 'Can be given more than once.' : undefined,
  ].filter((n) => n !== undefined);
  // .br: the text under the flag even when the flag is narrower than the indent (`--json`), as
  // for every other option.
  return ['.TP', flagsText(option.flags), '.br', [roffText(endSentence(option.description)), ...notes].join(' ')];
}

function argumentItem(arg: DocArgument): string[] {
  const notes = [
    arg.required ? (arg.variadic ? 'One or more.' : 'Required.') : arg.variadic ? 'Any number, or none.' : 'Optional.',
    arg.choices ? `One of: ${arg.choices.map((c) => `\\fB${escapeRoff(c)}\\fR`).join(', ')}.` : undefined,
    arg.asked ? 'Asked for on a terminal when left out.' : undefined,
  ].filter((n) => n !== undefined);
  return ['.TP', `\\fI${escapeRoff(arg.usage)}\\fR`, '.br', [roffText(endSentence(arg.description)), ...notes].join(' ')];
}

const exitItems = (rows: readonly ExitCodeRow[]): string[] => rows.flatMap((row) => ['.TP', `\\fB${row.code}\\fR`, roffText(row.meaning)]);

const manReference = (node: DocNode): string => `\\fB${escapeRoff(manName(node))}\\fR(1)`;

/** The man page of one node of the tree. */
export function manPage(node: DocNode, root: DocNode): string {
  const isRoot = node.path.length === 0;
  const lines = [
    `.\\" Generated by \`npm run docs\` from the command tree in src/commands/; edit the tree, not this file.`,
    `.TH "${escapeRoff(manName(node).toUpperCase())}" "1" "" "svc" "svc manual"`,
    // Ragged right, no hyphenation: a flag or a URL broken at a line end cannot be copied.
    '.ad l',
    '.nh',
    '.SH NAME',
    `${escapeRoff(manName(node))} \\- ${roffText(node.summary.replace(/\.$/, ''))}`,
    '.SH SYNOPSIS',
    '.nf',
    isRoot ? '\\fBsvc\\fR \\fI<command>\\fR [\\fIoptions\\fR]' : synopsisText(node),
    '.fi',
    '.SH DESCRIPTION',
    roffText(sentence(node.summary)),
  ];
  for (const paragraph of node.description) lines.push('.PP', roffText(paragraph));
  if (isRoot) {
    lines.push('.PP', 'Start here:', '.RS 4');
    for (const [line, what] of PROGRAM.startHere) lines.push('.TP', `\\fB${escapeRoff(line)}\\fR`, roffText(what));
    lines.push('.RE', '.PP', 'Each command has its own page: \\fBman svc\\-send\\fR, \\fBman svc\\-number\\-provision\\fR.');
  }
  if (node.children.length > 0) {
    lines.push('.SH COMMANDS');
    for (const child of node.children) lines.push('.TP', `${manReference(child)}`, roffText(child.summary));
  }
  const spec = node.spec;
  if (spec) {
    const args = argumentsOf(spec);
    if (args.length > 0) lines.push('.SH ARGUMENTS', ...args.flatMap(argumentItem));
    const options = optionsOf(spec);
    if (options.length > 0) lines.push('.SH OPTIONS', ...options.flatMap(optionItem));
    const redefined = ownGlobals(spec);
    lines.push(
      '.PP',
      redefined.length > 0
        ? `The global options of \\fBsvc\\fR(1) apply too. After the command's name, ${redefined.map((f) => `\\fB${escapeRoff(f)}\\fR`).join(', ')} ${redefined.length === 1 ? 'is the option' : 'are the options'} above.`
        : 'The global options of \\fBsvc\\fR(1) apply too.',
    );
    lines.push('.SH EXAMPLES');
    spec.examples.forEach((example, i) => {
      lines.push(i === 0 ? '.PP' : '.sp', '.RS 4', '.nf', ...wrapExample(example).map(literalLine), '.fi', '.RE');
    });
    lines.push('.SH EXIT STATUS', ...exitItems(exitCodesFor(node)));
  }
  if (isRoot) {
    lines.push('.SH GLOBAL OPTIONS', 'Every command takes these, before or after its name.', ...globalOptions().flatMap(optionItem));
    lines.push('.SH EXIT STATUS', ...exitItems(EXIT_CODES));
    lines.push('.SH ENVIRONMENT');
    for (const row of ENVIRONMENT) lines.push('.TP', row.names.map((n) => `\\fB${escapeRoff(n)}\\fR`).join(', '), '.br', roffText(endSentence(row.meaning)));
  }
  lines.push('.SH SEE ALSO', seeAlso(node, root));
  return `${lines.join('\n')}\n`;
}

function synopsisText(node: DocNode): string {
  const line = synopsis(node);
  const words = commandLine(node);
  const rest = line.slice(words.length + 1);
  const operands = rest.split(' ').map((part) => part.replace(/^([[<]?)([^\]>]*)([\]>]?)$/, (_m, open: string, name: string, close: string) => `${open}\\fI${escapeRoff(name)}\\fR${close}`));
  return `\\fB${escapeRoff(words)}\\fR ${operands.join(' ')}`;
}

/** The parent, the commands beside it, and svc(1): where a reader goes next. */
function seeAlso(node: DocNode, root: DocNode): string {
  const nodes = walk(root);
  const parent = nodes.find((n) => n.children.includes(node));
  // Beside a top-level command stand all the others: too many to be of use, so only svc(1).
  const siblings = parent === undefined || parent === root ? [] : parent.children.filter((n) => n !== node);
  const related = parent === undefined ? node.children : [parent, ...siblings, ...node.children];
  const references = related.map(manReference);
  if (parent !== undefined && parent !== root) references.push(manReference(root));
  return references.join(', ');
}

/** Every man page, by file name. */
export function manPages(root: DocNode): Map<string, string> {
  return new Map(walk(root).map((node) => [`${manName(node)}.1`, manPage(node, root)]));
}
