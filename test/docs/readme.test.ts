/** The README's generated tables match the code that defines them (`npm run docs` regenerates them). */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generatedSections, replaceSections } from '../../src/docs/readme-sections.js';
import { SETTINGS } from '../../src/config.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('README', () => {
  it('has every generated section up to date (run `npm run docs`)', () => {
    expect(replaceSections(readme, generatedSections())).toBe(readme);
  });

  it('documents every setting', () => {
    for (const s of Object.values(SETTINGS)) expect(readme).toContain(`\`${s.env}\``);
  });

  it('shows the two commands and the test command', () => {
    expect(readme).toContain('npm install && npm start');
    expect(readme).toContain('npm test');
  });
});
