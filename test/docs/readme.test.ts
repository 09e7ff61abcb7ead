/** The README is the front door: short, the two commands with their measured times, a tour per user, a map of docs/. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DOC_PAGES } from '../../scripts/docs/pages.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('README', () => {
  it('shows the two commands and the test command', () => {
    expect(readme).toContain('npm install && npm start');
    expect(readme).toContain('npm test');
  });

  it('stays a front door of about 300 lines, the reference being in docs/', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(320);
  });

  it('states its times as measured markers, never typed', () => {
    for (const name of ['start-first', 'start-second', 'npm-test', 'demo-first', 'demo-second', 'pipeline-run']) {
      expect(readme).toMatch(new RegExp(`<!-- timing:${name} -->[^<\\s][^<]*<!-- /timing -->`));
    }
  });

  it('has a tour for each kind of user', () => {
    for (const who of ['Compliance officer', 'Quant', 'Cron', 'Analyst', 'Agent developer']) expect(readme).toContain(`### ${who}`);
  });

  it('links every page of docs/', () => {
    for (const page of DOC_PAGES.filter((p) => p.startsWith('docs/'))) expect(readme).toContain(`](${page})`);
  });
});
