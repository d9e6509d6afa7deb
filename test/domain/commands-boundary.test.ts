import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importedSpecifiers, sourceFiles } from '../helpers/imports.js';

// Imports point down: the command layer (src/commands/, the program that reads the command words,
// src/program.ts with its parts in src/program/, the entry) stands on everything else, and nothing
// else stands on it. A module below the commands that needed a command's helper would tie the
// pipeline, the API client or the sandbox to the command line; such a helper belongs below
// (src/input/, src/output/, src/domain/ ...).

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = join(ROOT, 'src');

/** The command layer, as paths below src/: a folder ends with the separator. */
const COMMAND_LAYER = [`commands${sep}`, 'program.ts', `program${sep}`, 'cli.ts'];

function inCommandLayer(pathBelowSrc: string): boolean {
  return COMMAND_LAYER.some((part) => (part.endsWith(sep) ? pathBelowSrc.startsWith(part) : pathBelowSrc === part));
}

/** The module of the command layer a relative specifier of `file` names, or undefined. */
export function commandLayerTarget(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const target = relative(SRC, resolve(dirname(file), specifier)).replace(/\.js$/, '.ts');
  return inCommandLayer(target) ? target : undefined;
}

/** Every import of a module below the commands that climbs into them, as "file -> specifier". */
function upwardImports(): string[] {
  const found: string[] = [];
  for (const file of sourceFiles(SRC)) {
    if (inCommandLayer(relative(SRC, file))) continue;
    for (const specifier of importedSpecifiers(readFileSync(file, 'utf8'))) {
      if (commandLayerTarget(file, specifier) !== undefined) found.push(`${relative(ROOT, file)} -> ${specifier}`);
    }
  }
  return found;
}

describe('imports point down', () => {
  it('no module outside src/commands/, src/program.ts and src/cli.ts imports them, not even a type', () => {
    expect(upwardImports()).toEqual([]);
  });

  it('knows the command layer when it sees it', () => {
    const file = (path: string) => join(SRC, path);
    expect(commandLayerTarget(file('send/plan.ts'), '../commands/spec.js')).toBe(join('commands', 'spec.ts'));
    expect(commandLayerTarget(file('send/pace/options.ts'), '../../commands/send/shared/pace-flags.js')).toBe(join('commands', 'send', 'shared', 'pace-flags.ts'));
    expect(commandLayerTarget(file('demo/tour.ts'), '../cli.js')).toBe('cli.ts');
    expect(commandLayerTarget(file('demo/tour.ts'), '../program.js')).toBe('program.ts');
    expect(commandLayerTarget(file('commands/send/send.ts'), '../../send/pipeline.js')).toBeUndefined();
    expect(commandLayerTarget(file('send/plan.ts'), '../input/checks.js')).toBeUndefined();
    expect(commandLayerTarget(file('input/commands-like.ts'), './commands-like.js')).toBeUndefined();
    expect(commandLayerTarget(file('send/plan.ts'), 'commander')).toBeUndefined();
    expect(importedSpecifiers("import type { CommandInput } from '../commands/spec.js';\nawait import('../cli.js');")).toEqual([
      '../commands/spec.js',
      '../cli.js',
    ]);
  });
});
