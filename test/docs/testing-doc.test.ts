/** docs/testing.md: its list of the slow files is written from the code that orders them (`npm run docs`). */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { replaceSections } from '../../scripts/docs/readme-sections.js';
import { SLOW_BY_DESIGN, slowFilesTable } from '../setup/slow-files.js';

const doc = readFileSync(new URL('../../docs/testing.md', import.meta.url), 'utf8');

describe('docs/testing.md', () => {
  it('lists the files slow by design as test/setup/slow-files.ts names them (run `npm run docs`)', () => {
    expect(replaceSections(doc, { 'slow-tests': slowFilesTable() })).toBe(doc);
  });

  it('names only test files that exist', () => {
    for (const { file } of SLOW_BY_DESIGN) expect(existsSync(new URL(`../../${file}`, import.meta.url)), file).toBe(true);
  });

  it('is linked from the README', () => {
    expect(readFileSync(new URL('../../README.md', import.meta.url), 'utf8')).toContain('(docs/testing.md)');
  });
});
