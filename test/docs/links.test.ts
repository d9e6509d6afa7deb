import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { headingAnchor } from '../../scripts/docs/markdown.js';

// The README is a front page that sends the reader to docs/; a link that leads nowhere (a page
// renamed, a heading reworded) is a dead end, so every relative link in README.md and docs/ must
// lead to a file that exists and, with a #fragment, to a heading of that file.

const root = fileURLToPath(new URL('../..', import.meta.url));

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/** The text outside fenced code blocks and code spans, where a link is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`+[^`\n]*`+/g, '');
}

/** The targets of inline links and images: `[text](target)`, `![alt](target "title")`. */
export function linkTargets(markdown: string): string[] {
  return [...prose(markdown).matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*(?:<([^>\n]*)>|([^)\s]+))(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] ?? m[2]!);
}

/** The anchors of a file's headings, as GitHub makes them: a repeated one gets -1, -2 ... */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const withoutFences = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const match of withoutFences.matchAll(/^#{1,6}\s+(.*?)\s*#*\s*$/gm)) {
    const text = match[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*_]/g, '');
    const base = headingAnchor(text);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

const files = [join(root, 'README.md'), ...markdownFiles(join(root, 'docs'))];

describe('links in README.md and docs/', () => {
  it('finds the pages it checks, and the links in them', () => {
    expect(files.map((f) => relative(root, f))).toEqual(expect.arrayContaining(['README.md', join('docs', 'sending.md'), join('docs', 'reference', 'README.md')]));
    expect(linkTargets('[a](b.md) ![c](d.png "t") `[e](f.md)` [g](<h i.md>)\n```\n[j](k.md)\n```\n')).toEqual(['b.md', 'd.png', 'h i.md']);
    expect([...anchorsOf('# svc send\n## svc send\n## `svc send report`\n```\n# not a heading\n```\n## At the pace: a, b\n')]).toEqual([
      'svc-send',
      'svc-send-1',
      'svc-send-report',
      'at-the-pace-a-b',
    ]);
  });

  it.each(files.map((f) => [relative(root, f), f]))('every relative link of %s leads to a file and heading that exist', (_name, file) => {
    const text = readFileSync(file, 'utf8');
    const broken: string[] = [];
    for (const target of linkTargets(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const [pathPart, fragment] = target.split('#', 2) as [string, string | undefined];
      const path = pathPart === '' ? file : resolve(dirname(file), decodeURIComponent(pathPart));
      if (!path.startsWith(root) || !existsSync(path)) {
        broken.push(`${target}: no such file`);
        continue;
      }
      if (fragment === undefined) continue;
      if (statSync(path).isDirectory() || !path.endsWith('.md')) {
        broken.push(`${target}: a #fragment on something that is not a Markdown file`);
        continue;
      }
      if (!anchorsOf(readFileSync(path, 'utf8')).has(decodeURIComponent(fragment))) broken.push(`${target}: no heading with that anchor`);
    }
    expect(broken).toEqual([]);
  });

  it('reaches every page of docs/ from the README, directly or through another page', () => {
    const reached = new Set<string>();
    const queue = [join(root, 'README.md')];
    while (queue.length > 0) {
      const file = queue.pop()!;
      if (reached.has(file)) continue;
      reached.add(file);
      for (const target of linkTargets(readFileSync(file, 'utf8'))) {
        const pathPart = target.split('#')[0]!;
        if (pathPart === '' || /^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
        const path = resolve(dirname(file), decodeURIComponent(pathPart));
        if (path.endsWith('.md') && existsSync(path)) queue.push(path);
      }
    }
    expect(files.filter((f) => !reached.has(f)).map((f) => relative(root, f))).toEqual([]);
  });
});
