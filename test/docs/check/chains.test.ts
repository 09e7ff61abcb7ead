/**
 * The order the documented-output checker runs documents in (scripts/docs/check/check.ts `chainsOf`): a document
 * that continues another runs right after it, in its workspace; one that continues a document not checked, one
 * continued twice, or a circle, is a failure naming the document and the directive's line.
 */
import { describe, expect, it } from 'vitest';
import { chainsOf } from '../../../scripts/docs/check/check.js';
import { parseDocument } from '../../../scripts/docs/check/parse.js';

const doc = (file: string, continues?: string) => ({
  file,
  parsed: parseDocument([...(continues ? [`<!-- docs-check: continues ${continues} -->`] : []), '```console', '$ true', '```'].join('\n')),
});
const names = (chains: Array<Array<{ file: string }>>): string[][] => chains.map((c) => c.map((d) => d.file));

describe('chainsOf', () => {
  it('puts each continuation right after the document it continues, however they are listed, by path', () => {
    const failures: string[] = [];
    const docs = [doc('docs/c.md', 'docs/b.md'), doc('README.md'), doc('docs/b.md', '/repo/README.md'), doc('docs/d.md')];
    expect(names(chainsOf(docs, failures, '/repo'))).toEqual([['README.md', 'docs/b.md', 'docs/c.md'], ['docs/d.md']]);
    expect(failures).toEqual([]);
  });

  it('refuses a document continuing one not checked, one continued already, or a circle', () => {
    const failures: string[] = [];
    const docs = [doc('a.md'), doc('b.md', 'a.md'), doc('c.md', 'a.md'), doc('x.md', 'y.md'), doc('y.md', 'x.md'), doc('z.md', 'gone.md')];
    expect(names(chainsOf(docs, failures, '/repo'))).toEqual([['a.md', 'b.md']]);
    expect(failures).toEqual([
      'c.md:1: docs-check: continues a.md, which another document continues already, or which continues it in turn',
      'x.md:1: docs-check: continues y.md, which another document continues already, or which continues it in turn',
      'y.md:1: docs-check: continues x.md, which another document continues already, or which continues it in turn',
      'z.md:1: docs-check: continues gone.md, which is not among the checked documents or runs no command',
    ]);
  });
});
