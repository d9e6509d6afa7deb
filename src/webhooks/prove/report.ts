// The report of a run, for a person (a table per kind of check, then what to fix, wrapped to the
// terminal; blocks instead of a table when the terminal is narrow), for a pipe (tab-separated
// rows) and for CI (one JSON document). Receiver-supplied text is already terminal-safe.

import { fitTable, TEXT_FLOOR } from '../../output/fit.js';
import type { Palette } from '../../output/palette.js';
import type { CheckAnswer, CheckResult, ProveResult } from './run.js';

/** Below this width the table's columns are too narrow to read: each check becomes a block. */
const TABLE_MIN_COLUMNS = 72;
const GAP = '  ';

function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** The answer in a few words: status and time, or why there was none. */
export function answerText(check: CheckResult): string {
  const answers = check.answers.length > 0 ? check.answers : [check.received];
  if (check.id === 'answer-time') {
    const slowest = check.received;
    return slowest.ms === null ? 'nothing measured' : `max ${duration(slowest.ms)}`;
  }
  if (answers.every((a) => a.status === null && a.error === 'not sent')) return 'not sent';
  const statuses = answers.map(statusWord).join(', ');
  const ms = Math.max(...answers.map((a) => a.ms ?? 0));
  return `${statuses} · ${duration(ms)}`;
}

function statusWord(answer: CheckAnswer): string {
  if (answer.status !== null) return String(answer.status);
  const error = answer.error ?? '';
  if (error === 'not sent') return 'not sent';
  if (error.startsWith('no answer')) return 'no answer';
  const code = /^[A-Z][A-Z_]{3,}/.exec(error);
  return code ? code[0] : 'broke off';
}

/** Words of `text` in lines of at most `width` characters; a longer word is cut. */
export function wrap(text: string, width: number): string[] {
  const room = Math.max(1, width);
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    let rest = word;
    while ([...rest].length > room) {
      if (line !== '') {
        lines.push(line);
        line = '';
      }
      const chars = [...rest];
      lines.push(chars.slice(0, room).join(''));
      rest = chars.slice(room).join('');
    }
    if (rest === '') continue;
    if (line === '') line = rest;
    else if ([...line].length + 1 + [...rest].length <= room) line += ` ${rest}`;
    else {
      lines.push(line);
      line = rest;
    }
  }
  if (line !== '' || lines.length === 0) lines.push(line);
  return lines;
}

function width(text: string): number {
  return [...text].length;
}

function pad(text: string, to: number): string {
  return text + ' '.repeat(Math.max(0, to - width(text)));
}

function verdictWord(check: CheckResult, palette: Palette): string {
  return check.verdict === 'passed' ? palette.green('passed') : palette.red('FAILED');
}

const HEADERS = ['CHECK', 'VERDICT', 'SENT', 'ANSWER'];

function cellsOf(check: CheckResult): string[] {
  return [check.name, check.verdict === 'passed' ? 'passed' : 'FAILED', check.sent, answerText(check)];
}

/** Column widths that fit `columns`, from every check, so that both tables line up. */
function tableWidths(checks: readonly CheckResult[], columns: number): number[] {
  const rows = checks.map(cellsOf);
  const natural = HEADERS.map((header, i) => Math.max(width(header), ...rows.map((row) => width(row[i]!))));
  // The check's name and its verdict stay whole; what was sent and what came back wrap (so no
  // column is left out: one the fit would drop keeps its narrowest width and wraps).
  const fit = fitTable(
    HEADERS.map((header, i) => ({ natural: natural[i]!, header: width(header), kind: i < 2 ? ('id' as const) : ('text' as const), importance: HEADERS.length - i })),
    columns,
  );
  return HEADERS.map((header, i) => {
    const at = fit.shown.indexOf(i);
    return at === -1 ? Math.min(natural[i]!, Math.max(TEXT_FLOOR, width(header))) : fit.widths[at]!;
  });
}

function table(checks: readonly CheckResult[], widths: readonly number[], palette: Palette): string[] {
  const lines = [palette.cyan(HEADERS.map((h, i) => (i === HEADERS.length - 1 ? h : pad(h, widths[i]!))).join(GAP))];
  for (const check of checks) {
    const cells = cellsOf(check).map((cell, i) => wrap(cell, widths[i]!));
    const height = Math.max(...cells.map((c) => c.length));
    for (let n = 0; n < height; n++) {
      const parts = cells.map((cell, i) => {
        const text = cell[n] ?? '';
        const shown = i === 1 && n === 0 ? verdictWord(check, palette) : text;
        return i === cells.length - 1 ? shown : shown + ' '.repeat(Math.max(0, widths[i]! - width(text)));
      });
      lines.push(parts.join(GAP).trimEnd());
    }
  }
  return lines;
}

/** One check as a few lines, for a terminal too narrow for the table. */
function block(check: CheckResult, columns: number, palette: Palette): string[] {
  const lines = [`${verdictWord(check, palette)} ${palette.bold(check.name)}`];
  for (const [label, text] of [
    ['sent', check.sent],
    ['got', answerText(check)],
  ] as const) {
    wrap(text, columns - 7).forEach((line, i) => lines.push(`  ${i === 0 ? pad(label, 4) : '    '} ${line}`));
  }
  return lines;
}

/** A titled list of `name: text` entries, each wrapped with a hanging indent. */
function entries(title: string, items: readonly { name: string; text: string }[], columns: number, palette: Palette, tone: (s: string) => string): string[] {
  if (items.length === 0) return [];
  const lines = ['', palette.bold(title)];
  for (const item of items) {
    const wrapped = wrap(`${item.name}: ${item.text}`, columns - 4);
    wrapped.forEach((line, i) => {
      if (i === 0 && line.startsWith(`${item.name}:`)) lines.push(`- ${tone(item.name)}${line.slice(item.name.length)}`);
      else lines.push(`${i === 0 ? '- ' : '  '}${line}`);
    });
  }
  return lines;
}

/** The summary line: which required checks failed, and how many advisory ones. */
export function summaryLine(result: ProveResult): string {
  const required = result.checks.filter((c) => c.required);
  const advisory = result.checks.filter((c) => !c.required);
  const failedRequired = required.filter((c) => c.verdict === 'failed');
  const failedAdvisory = advisory.filter((c) => c.verdict === 'failed');
  const head =
    failedRequired.length === 0
      ? `All ${required.length} required checks passed`
      : `${failedRequired.length} of ${required.length} required checks failed (${failedRequired.map((c) => c.name).join(', ')})`;
  const tail = failedAdvisory.length === 0 ? `all ${advisory.length} advisory checks passed` : `${failedAdvisory.length} of ${advisory.length} advisory failed`;
  return `${head}; ${tail}.`;
}

/** The report for a person at a terminal `columns` wide. */
export function renderReport(result: ProveResult, options: { columns: number; palette: Palette; elapsedMs: number }): string {
  const { palette } = options;
  const columns = Math.max(20, options.columns);
  const lines: string[] = [];
  lines.push(...wrap(`Checked ${result.url} with ${result.requests} requests in ${duration(options.elapsedMs)}.`, columns));
  const widths = tableWidths(result.checks, columns);
  for (const [title, required] of [
    ['Required: each must pass', true],
    ['Advisory', false],
  ] as const) {
    const checks = result.checks.filter((c) => c.required === required);
    lines.push('', palette.bold(title));
    if (columns >= TABLE_MIN_COLUMNS) lines.push(...table(checks, widths, palette));
    else for (const check of checks) lines.push(...block(check, columns, palette));
  }
  const failed = result.checks.filter((c) => c.verdict === 'failed' && c.fix !== null);
  lines.push(...entries('What to fix', failed.map((c) => ({ name: c.name, text: c.fix ?? '' })), columns, palette, palette.red));
  const notes = result.checks.filter((c) => c.note !== null);
  lines.push(...entries('Good to know', notes.map((c) => ({ name: c.name, text: c.note ?? '' })), columns, palette, palette.yellow));
  const summary = wrap(summaryLine(result), columns);
  lines.push('', ...summary.map((line) => (result.passed ? palette.green(line) : palette.red(line))));
  return `${lines.join('\n')}\n`;
}

/** One tab-separated row a check, for a pipe: id, kind, verdict, sent, status, ms, fix. */
export function renderRows(result: ProveResult): string {
  const clean = (text: string): string => text.replace(/[\t\r\n]+/g, ' ');
  return result.checks
    .map((c) =>
      [c.id, c.required ? 'required' : 'advisory', c.verdict, c.sent, c.received.status ?? '', c.received.ms ?? '', c.fix ?? '']
        .map((cell) => clean(String(cell)))
        .join('\t'),
    )
    .map((line) => `${line}\n`)
    .join('');
}
