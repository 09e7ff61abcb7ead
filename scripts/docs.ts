/**
 * Regenerates the README sections that are generated from code (`npm run docs`), between
 * `<!-- NAME:start -->` and `<!-- NAME:end -->` markers. A test fails when the README is out of date.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { generatedSections, replaceSections } from '../src/docs/readme-sections.js';

const path = new URL('../README.md', import.meta.url);
const before = readFileSync(path, 'utf8');
const after = replaceSections(before, generatedSections());
if (after !== before) writeFileSync(path, after);
console.log(after === before ? 'README.md is up to date' : 'README.md regenerated');
