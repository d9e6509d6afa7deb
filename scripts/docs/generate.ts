import { checkExitCodeTable } from './exit-codes.js';
import { INDEX_PAGE, referenceIndex, referencePage } from './markdown.js';
import { buildTree, referencePages } from './model.js';
import { manPages } from './roff.js';

// The generated manual, as file contents by path from the root of the repository. Nothing in it
// depends on the date, the machine or the order files are listed in: the same tree gives the
// same bytes, which is what lets a test say whether the committed files are fresh.

/** Folders that hold generated files only: a file in them that is not generated is stale. */
export const GENERATED_FOLDERS = ['docs/reference', 'man'] as const;

export function generateDocs(): Map<string, string> {
  checkExitCodeTable();
  const root = buildTree();
  const pages = referencePages(root);
  const files = new Map<string, string>();
  files.set(`docs/reference/${INDEX_PAGE}`, referenceIndex(root, pages));
  for (const page of pages) files.set(`docs/reference/${page.file}`, referencePage(pages, page));
  for (const [name, text] of manPages(root)) files.set(`man/${name}`, text);
  return files;
}

/** The `man` list of package.json: every page, as npm wants it. */
export function manList(files: ReadonlyMap<string, string>): string[] {
  return [...files.keys()]
    .filter((path) => path.startsWith('man/'))
    .map((path) => `./${path}`)
    .sort();
}
