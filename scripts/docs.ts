/**
 * Regenerates the documentation's generated sections (`npm run docs`), between `<!-- NAME:start -->` and
 * `<!-- NAME:end -->` markers: the tables generated from code in the pages `PAGE_SECTIONS` names
 * (`scripts/docs/pages.ts`), docs/testing.md's list of the test files slow by design, and every page's table of
 * contents. `test/docs/pages.test.ts` fails when any of them is out of date.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { DOC_PAGES, renderPage, type DocPage } from './docs/pages.js';
import { slowFilesTable } from '../test/setup/slow-files.js';
import { layersSection } from './layers-doc.js';

/** Sections generated from test code, which `src/` does not import. */
const extra: Partial<Record<DocPage, Record<string, string>>> = {
  'docs/testing.md': { 'slow-tests': slowFilesTable() },
  'docs/design.md': { layers: layersSection() },
};

for (const page of DOC_PAGES) {
  const path = new URL(`../${page}`, import.meta.url);
  const before = readFileSync(path, 'utf8');
  const after = renderPage(page, before, extra[page]);
  if (after !== before) writeFileSync(path, after);
  console.log(after === before ? `${page} is up to date` : `${page} regenerated`);
}
