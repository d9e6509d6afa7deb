import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importedSpecifiers, sourceFiles } from '../helpers/imports.js';

// The sandbox is a second implementation of the service: it may share src/domain/ with the CLI
// and nothing else of it, so that a rule is never borrowed from the client side by accident. And
// src/domain/ itself stands on nothing but itself, or the sandbox would reach the client through it.
// src/output/ (streams, renderers, prompts) stands below the commands and their Context.

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = join(ROOT, 'src');
const { dependencies } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };

function isPackage(specifier: string): boolean {
  const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!;
  return Object.prototype.hasOwnProperty.call(dependencies, name);
}

function isBuiltin(specifier: string): boolean {
  return specifier.startsWith('node:') || builtinModules.includes(specifier);
}

/** The imports of the files below `folder` that leave the allowed folders, as "file -> specifier". */
function strayImports(folder: string, allowed: readonly string[]): string[] {
  const stray: string[] = [];
  for (const file of sourceFiles(join(SRC, folder))) {
    for (const specifier of importedSpecifiers(readFileSync(file, 'utf8'))) {
      if (isBuiltin(specifier) || isPackage(specifier)) continue;
      const target = specifier.startsWith('.') ? relative(SRC, resolve(dirname(file), specifier)) : undefined;
      if (target !== undefined && allowed.some((dir) => target.startsWith(`${dir}${sep}`))) continue;
      stray.push(`${relative(ROOT, file)} -> ${specifier}`);
    }
  }
  return stray;
}

/** Every relative import of the files below `folder`, as [file relative to the root, target relative to src/]. */
function relativeImports(folder: string): [string, string][] {
  const found: [string, string][] = [];
  for (const file of sourceFiles(join(SRC, folder))) {
    for (const specifier of importedSpecifiers(readFileSync(file, 'utf8'))) {
      if (!specifier.startsWith('.')) continue;
      found.push([relative(ROOT, file), relative(SRC, resolve(dirname(file), specifier)).replace(/\.js$/, '.ts')]);
    }
  }
  return found;
}

/** The imports of the files below `folder` whose target (relative to src/) matches `forbidden`. */
function importsOf(folder: string, forbidden: (target: string) => boolean): string[] {
  return relativeImports(folder)
    .filter(([, target]) => forbidden(target))
    .map(([file, target]) => `${file} -> ${target}`);
}

describe('module boundaries', () => {
  it('src/sandbox/ imports only itself, src/domain/, Node and the dependencies', () => {
    expect(strayImports('sandbox', ['sandbox', 'domain'])).toEqual([]);
  });

  it('src/domain/ imports only itself, Node and the dependencies', () => {
    expect(strayImports('domain', ['domain'])).toEqual([]);
  });

  it('src/output/ stands below the Context: it imports only itself, src/domain/, src/errors.ts, Node and the dependencies', () => {
    expect(strayImports('output', ['output', 'domain']).filter((line) => !line.endsWith("-> ../errors.js"))).toEqual([]);
  });

  it('src/output/ knows nothing of the sandbox: not its code, not its defaults (the caller passes them)', () => {
    expect(importsOf('output', (target) => /sandbox/.test(target))).toEqual([]);
  });

  it('src/send/ stands below the commands: it never imports the command Context or src/commands/', () => {
    expect(importsOf('send', (target) => target === 'context.ts' || target.startsWith(`commands${sep}`))).toEqual([]);
  });

  it('src/webhooks/ stores into src/events/, so src/events/ never imports src/webhooks/ (no loop)', () => {
    expect(importsOf('events', (target) => target.startsWith(`webhooks${sep}`))).toEqual([]);
  });

  it('Clock is declared in src/clock.ts only, and imported from there', () => {
    const declaring = sourceFiles(SRC)
      .filter((file) => /^\s*(?:export\s+)?(?:declare\s+)?(?:interface|type|class)\s+Clock\b|^\s*export\s+(?:type\s+)?\{[^}]*\bClock\b[^}]*\}\s*from/m.test(readFileSync(file, 'utf8')))
      .map((file) => relative(SRC, file));
    expect(declaring).toEqual(['clock.ts']);
    const elsewhere: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const pattern = /import\s+(?:type\s+)?\{([^}]*)\}\s*from\s*['"]([^'"]+)['"]/g;
      for (const [, names, specifier] of readFileSync(file, 'utf8').matchAll(pattern)) {
        if (!/(?:^|[\s,])(?:type\s+)?Clock(?:[\s,]|$)/.test(names!)) continue;
        if (relative(SRC, resolve(dirname(file), specifier!)) !== 'clock.js') elsewhere.push(`${relative(ROOT, file)} -> ${specifier}`);
      }
    }
    expect(elsewhere).toEqual([]);
  });

  it('sees every kind of import it checks', () => {
    const source = [
      "import { a } from '../x.js';",
      "import type { B } from '../../y.js';",
      "export { c } from './z.js';",
      "export * from 'node:fs';",
      "import 'side-effect';",
      "const m = await import('../lazy.js');",
      'import {\n  d,\n  e,\n} from "./multi.js";',
    ].join('\n');
    expect(importedSpecifiers(source)).toEqual(['../x.js', '../../y.js', './z.js', 'node:fs', 'side-effect', '../lazy.js', './multi.js']);
  });
});
