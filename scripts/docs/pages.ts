/**
 * The documentation pages and what in them is generated: which of the tables generated from code
 * (`generatedSections`) each page holds, and the table of contents of every page that has `toc` markers.
 * `npm run docs` writes them and `test/docs/pages.test.ts` fails when any page is stale, so a table moves
 * with its section by changing one line here.
 */
import { generatedSections, replaceSections } from './readme-sections.js';
import { tableOfContents } from './toc.js';

/** Every documentation page, from the repository's root; the README is the front door, the rest are docs/. */
export const DOC_PAGES = [
  'README.md',
  'docs/engine.md',
  'docs/proving.md',
  'docs/signals.md',
  'docs/pipeline.md',
  'docs/cli.md',
  'docs/operations.md',
  'docs/guarantees.md',
  'docs/benchmarks.md',
  'docs/design.md',
  'docs/irl-migration.md',
  'docs/testing.md',
] as const;

export type DocPage = (typeof DOC_PAGES)[number];
type SectionName = keyof ReturnType<typeof generatedSections>;

/** The page each generated table lives in (each table in exactly one page). */
export const PAGE_SECTIONS: Readonly<Partial<Record<DocPage, readonly SectionName[]>>> = {
  'docs/operations.md': ['settings', 'errors', 'sources'],
  'docs/engine.md': ['denials', 'fix-tags', 'reconcile-rules'],
  'docs/irl-migration.md': ['irl-errors'],
  'docs/signals.md': ['tiers'],
  'docs/pipeline.md': ['releases'],
  'docs/cli.md': ['cli-reference'],
};

/** The generated sections of one page, by marker name (none for a page without tables). */
export function sectionsOf(page: DocPage, all: Record<string, string> = generatedSections()): Record<string, string> {
  return Object.fromEntries((PAGE_SECTIONS[page] ?? []).map((name) => [name, all[name]!]));
}

const TOC_START = '<!-- toc:start -->';

/** The page with its table of contents rewritten from its headings; a page without `toc` markers is unchanged. */
export function withTableOfContents(text: string): string {
  if (!text.includes(TOC_START)) return text;
  return replaceSections(text, { toc: tableOfContents(text) });
}

/**
 * The page as `npm run docs` writes it: its generated tables (and `extra` sections, such as those generated
 * from test code), then its table of contents (last, so that headings of generated sections are listed).
 */
export function renderPage(page: DocPage, text: string, extra: Record<string, string> = {}): string {
  return withTableOfContents(replaceSections(text, { ...sectionsOf(page), ...extra }, page));
}
