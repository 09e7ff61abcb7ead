/**
 * Regenerates the documentation sections that are generated from code (`npm run docs`), between
 * `<!-- NAME:start -->` and `<!-- NAME:end -->` markers: the README's tables, and docs/testing.md's list of the
 * test files slow by design. A test fails when either is out of date.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { generatedSections, replaceSections } from '../src/docs/readme-sections.js';
import { slowFilesTable } from '../test/setup/slow-files.js';

const documents: Array<[string, Record<string, string>]> = [
  ['README.md', generatedSections()],
  ['docs/testing.md', { 'slow-tests': slowFilesTable() }],
];
for (const [name, sections] of documents) {
  const path = new URL(`../${name}`, import.meta.url);
  const before = readFileSync(path, 'utf8');
  const after = replaceSections(before, sections);
  if (after !== before) writeFileSync(path, after);
  console.log(after === before ? `${name} is up to date` : `${name} regenerated`);
}
