import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// A clone of the project is all a reader has: no file of it may send them to a document outside
// the repository (the team's specification files, a sibling folder, an issue tracker's numbers).
// The design decisions the code relies on are in docs/decisions.md, the one document outside the
// code that comments point to, by its section headings.

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SELF = fileURLToPath(import.meta.url);
const FOLDERS = ['src', 'test', 'scripts', 'bench'];

function textFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : textFiles(path);
    return /\.(ts|mts|js|mjs|cjs|sh|json|md)$/.test(entry.name) ? [path] : [];
  });
}

/** Each line of the project's code that names a document outside the repository, as "file:line: text". */
function outsideReferences(files: readonly { name: string; text: string }[]): string[] {
  const outside = [
    /cli-contract(?:\.md)?\b/i,
    /messaging-api\.md/i,
    /(?<!docs\/)\bdecisions\.md/i,
    /(?:\.\.\/)+shared\/(?:spec|style)\b|\/work\/shared\b/,
    /\bissue\s+#?\d+/i,
  ];
  const found: string[] = [];
  for (const { name, text } of files) {
    text.split('\n').forEach((line, i) => {
      if (outside.some((pattern) => pattern.test(line))) found.push(`${name}:${i + 1}: ${line.trim()}`);
    });
  }
  return found;
}

function projectFiles(): { name: string; text: string }[] {
  return FOLDERS.flatMap((folder) => textFiles(join(ROOT, folder)))
    .filter((file) => file !== SELF)
    .map((file) => ({ name: relative(ROOT, file), text: readFileSync(file, 'utf8') }));
}

/** GitHub's anchor for a Markdown heading. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replace(/ /g, '-');
}

describe('the project stands alone', () => {
  it('no file in src/, test/, scripts/ or bench/ names a document outside the repository', () => {
    expect(outsideReferences(projectFiles())).toEqual([]);
  });

  it('every docs/decisions.md#section a file points to is a heading of docs/decisions.md', () => {
    const headings = new Set(
      readFileSync(join(ROOT, 'docs', 'decisions.md'), 'utf8')
        .split('\n')
        .filter((line) => line.startsWith('## '))
        .map((line) => anchorOf(line.slice(3))),
    );
    const broken: string[] = [];
    for (const { name, text } of projectFiles()) {
      for (const [, anchor] of text.matchAll(/docs\/decisions\.md#([a-z0-9-]+)/g)) if (!headings.has(anchor!)) broken.push(`${name}: #${anchor}`);
    }
    expect(broken).toEqual([]);
  });

  it('finds each kind of outside reference, and lets docs/decisions.md through', () => {
    const lines = [
      '// as the cli-contract says',
      '// see messaging-api.md',
      '// the picks of decisions.md',
      "import spec from '../../shared/spec/x.js';",
      '// since issue 12',
      '// see docs/decisions.md#retries',
      "import { x } from '../shared/secret-input.js';",
    ];
    expect(outsideReferences([{ name: 'x.ts', text: lines.join('\n') }])).toEqual(lines.slice(0, 5).map((line, i) => `x.ts:${i + 1}: ${line}`));
  });
});
