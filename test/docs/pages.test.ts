/**
 * Every documentation page is as `npm run docs` writes it (its generated tables and its table of contents),
 * every generated table lives in one page, and every link between the pages leads to a file and a heading
 * that exist.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../src/core/config.js';
import { localLinks } from '../../scripts/docs/links.js';
import { DOC_PAGES, PAGE_SECTIONS, renderPage, type DocPage } from '../../scripts/docs/pages.js';
import { generatedSections } from '../../scripts/docs/readme-sections.js';
import { githubSlug, headings, tableOfContents } from '../../scripts/docs/toc.js';
import { slowFilesTable } from '../setup/slow-files.js';
import { layersSection } from '../../scripts/layers-doc.js';

const root = new URL('../../', import.meta.url);
const read = (page: string): string => readFileSync(new URL(page, root), 'utf8');
const extra: Partial<Record<DocPage, Record<string, string>>> = { 'docs/testing.md': { 'slow-tests': slowFilesTable() }, 'docs/design.md': { layers: layersSection() } };

describe('documentation pages', () => {
  it.each([...DOC_PAGES])('%s has its generated sections and table of contents up to date (run `npm run docs`)', (page) => {
    const text = read(page);
    expect(renderPage(page, text, extra[page])).toBe(text);
  });

  it('lists every page of docs/, and each has a table of contents', () => {
    const pages = readdirSync(new URL('docs/', root)).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
    expect([...DOC_PAGES].filter((p) => p.startsWith('docs/')).sort()).toEqual(pages.sort());
    for (const page of pages) expect(read(page), page).toContain('<!-- toc:start -->');
  });

  it('puts every generated table in exactly one page', () => {
    const placed = Object.values(PAGE_SECTIONS).flat();
    expect([...placed].sort()).toEqual(Object.keys(generatedSections()).sort());
  });

  it('documents every setting in docs/operations.md', () => {
    const page = read('docs/operations.md');
    for (const s of Object.values(SETTINGS)) expect(page).toContain(`\`${s.env}\``);
  });

  it('links only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const page of DOC_PAGES) {
      for (const link of localLinks(read(page))) {
        const file = link.file === '' ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), link.file));
        const where = `${page}:${link.line} → ${link.file}#${link.anchor}`;
        if (!existsSync(new URL(file, root))) broken.push(`${where} (no such file)`);
        else if (link.anchor !== '' && file.endsWith('.md') && !headings(read(file)).some((h) => h.anchor === link.anchor)) broken.push(`${where} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe('githubSlug', () => {
  it.each([
    ['Endpoints', 'endpoints'],
    ['Several processes on one port: `serve --workers N`', 'several-processes-on-one-port-serve---workers-n'],
    ["Load: the IRL Engine's own benchmark", 'load-the-irl-engines-own-benchmark'],
    ['Reference: the `/irl` paths', 'reference-the-irl-paths'],
    ['What quants and analysts read: forecast, backtest, performance, chart data, CSV export', 'what-quants-and-analysts-read-forecast-backtest-performance-chart-data-csv-export'],
    ['See it work: `tradeseal demo`', 'see-it-work-tradeseal-demo'],
    ['Layer 2 heartbeats', 'layer-2-heartbeats'],
    ['Snake_case and [a link](x.md)', 'snake_case-and-a-link'],
  ])('%s → %s', (heading, anchor) => {
    expect(githubSlug(heading)).toBe(anchor);
  });
});

describe('tableOfContents', () => {
  it('lists level-2 and level-3 headings, numbers repeated anchors as GitHub does, and skips code', () => {
    const page = ['# Title', '## Endpoints', '### Tokens', '```sh', '## not a heading', '```', '## Endpoints', '#### Too deep'].join('\n');
    expect(tableOfContents(page)).toBe(['- [Endpoints](#endpoints)', '  - [Tokens](#tokens)', '- [Endpoints](#endpoints-1)'].join('\n'));
  });
});
