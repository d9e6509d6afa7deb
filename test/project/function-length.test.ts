import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The house rule: no function in src/ over 80 lines. A long function is several jobs, each of
// which wants a name; a factory whose closures hold the state counts whole, since its body is
// one room however many small functions it nests.

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const LIMIT = 80;

interface LongFunction {
  where: string;
  name: string;
  lines: number;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|cts)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** What a reader calls a function: its own name, the name it is bound to, or where it sits. */
function nameOf(node: ts.SignatureDeclaration): string {
  const owner = node.parent;
  if (node.name !== undefined && ts.isClassLike(owner) && owner.name !== undefined) return `${owner.name.getText()}.${node.name.getText()}`;
  if (node.name !== undefined) return node.name.getText();
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.name !== undefined) return parent.name.getText();
  for (let outer: ts.Node | undefined = parent; outer !== undefined; outer = outer.parent) {
    if (ts.isFunctionLike(outer)) return `(anonymous, in ${nameOf(outer)})`;
  }
  return '(anonymous)';
}

/** Every function with a body longer than `limit` lines, counted from its first line to its last. */
function longFunctions(fileName: string, text: string, limit = LIMIT): LongFunction[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > limit) found.push({ where: `${fileName}:${first + 1}`, name: nameOf(node), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** `count` lines of statements. */
function filler(count: number, indent = '  '): string {
  return Array.from({ length: count }, (_, i) => `${indent}const v${i} = ${i};`).join('\n');
}

/**
 * A function of `lines` lines in each form the rule must see. The factory's methods are short
 * each: it is the factory, whose body counts whole, that is long.
 */
function sample(lines: number): string {
  const half = Math.floor((lines - 8) / 2);
  return [
    `export function declared() {\n${filler(lines - 2)}\n}`,
    `const bound = () => {\n${filler(lines - 2)}\n};`,
    `export function factory() {\n  return {\n    a() {\n${filler(half, '      ')}\n    },\n    b() {\n${filler(lines - 8 - half, '      ')}\n    },\n  };\n}`,
    `class Room {\n  method() {\n${filler(lines - 2, '    ')}\n  }\n}`,
    `run(function () {\n${filler(lines - 2)}\n});`,
  ].join('\n');
}

describe('no function in src/ over 80 lines', () => {
  it('finds a long function in every form: declared, bound to a name, a factory, a method, anonymous', () => {
    const found = longFunctions('sample.ts', sample(LIMIT + 1));
    expect(found.map((f) => f.name)).toEqual(['declared', 'bound', 'factory', 'Room.method', '(anonymous)']);
    expect(found.every((f) => f.lines === LIMIT + 1)).toBe(true);
    expect(found[0]?.where).toBe('sample.ts:1');
    expect(longFunctions('sample.ts', sample(LIMIT))).toEqual([]);
  });

  it('names an anonymous function by the function it sits in', () => {
    const text = `export function post() {\n  return new Promise((resolve) => {\n${filler(LIMIT, '    ')}\n  });\n}`;
    expect(longFunctions('post.ts', text).map((f) => f.name)).toEqual(['post', '(anonymous, in post)']);
  });

  it('holds in src/: every function is within 80 lines', () => {
    const found = sourceFiles(join(ROOT, 'src')).flatMap((path) => longFunctions(relative(ROOT, path), readFileSync(path, 'utf8')));
    const report = found.map((f) => `${f.where} ${f.name} (${f.lines} lines)`);
    expect(report, `split these into named pieces that each do one thing:\n${report.join('\n')}`).toEqual([]);
  });
});
