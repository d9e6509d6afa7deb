// Writes the command reference (docs/reference/) and the man pages (man/) from the command tree:
// `npm run docs`. The generator is TypeScript that reads src/commands/ directly, so it is bundled
// on the fly (esbuild, as the build does) into node_modules/.cache and imported from there.
// Files in those two folders that the tree no longer gives are removed.
import { build } from 'esbuild';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bundle = join(root, 'node_modules', '.cache', 'svc-docs', 'generate.mjs');
await build({
  absWorkingDir: root,
  entryPoints: ['scripts/docs/generate.ts'],
  outfile: bundle,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.18',
  packages: 'external',
  logLevel: 'warning',
});
const { generateDocs, manList, GENERATED_FOLDERS } = await import(pathToFileURL(bundle).href);
const files = generateDocs();
let written = 0;
let removed = 0;
for (const folder of GENERATED_FOLDERS) {
  mkdirSync(join(root, folder), { recursive: true });
  for (const name of readdirSync(join(root, folder))) {
    if (!files.has(`${folder}/${name}`)) {
      rmSync(join(root, folder, name), { recursive: true });
      removed++;
    }
  }
}
for (const [path, text] of files) {
  const target = join(root, path);
  mkdirSync(dirname(target), { recursive: true });
  let before;
  try {
    before = readFileSync(target, 'utf8');
  } catch {
    before = undefined;
  }
  if (before !== text) {
    writeFileSync(target, text);
    written++;
  }
}
// npm links the pages listed in `man` into the installer's man path (`man svc-send` after
// `npm install --global`); it ignores `directories.man` there, so the list is kept here.
const packagePath = join(root, 'package.json');
const packageText = readFileSync(packagePath, 'utf8');
const manifest = JSON.parse(packageText);
manifest.man = manList(files);
const packageAfter = `${JSON.stringify(manifest, null, 2)}\n`;
if (packageAfter !== packageText) {
  writeFileSync(packagePath, packageAfter);
  written++;
}
process.stdout.write(`docs: ${files.size} files (${written} written, ${removed} removed) in ${GENERATED_FOLDERS.join('/ and ')}/\n`);
