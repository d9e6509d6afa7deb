import { readdirSync } from 'node:fs';
import { join } from 'node:path';

// Reading the module graph of src/ from the sources, for the tests of which folder may import
// which (test/domain/boundaries.test.ts, test/domain/commands-boundary.test.ts).

/** The .ts files below a folder. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

/** Every module a file names: static imports and re-exports (type-only too), and import(). */
export function importedSpecifiers(source: string): string[] {
  const pattern = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;])import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm;
  return [...source.matchAll(pattern)].map((m) => (m[1] ?? m[2] ?? m[3])!);
}
