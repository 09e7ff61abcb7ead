/**
 * The repository explains itself: every file a comment names (in src/, pipeline/, commands/, test/, bench/,
 * scripts/, replay/) and every file the prose of README.md and the pages under docs/ names is in the
 * repository, with the section named beside it; so a comment cannot rest on a document a reader does not
 * have. The decisions the code relies on are records under docs/decisions/, each listed by its index.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { headings } from '../../scripts/docs/toc.js';
import { commentKind, commentsOf } from '../helpers/comments.js';
import { fileReferences, partCitations, type FileReference } from '../helpers/file-references.js';

const root = path.resolve(import.meta.dirname, '../..');
const SCANNED = ['src', 'pipeline', 'commands', 'test', 'bench', 'scripts', 'replay', 'docs'];
const DECISIONS = 'docs/decisions';
/** Folders of files a run writes and the repository does not keep (.gitignore): a reference into one names an output. */
const OUTPUTS = ['bench/results/'];

function filesUnder(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : filesUnder(rel);
    return commentKind(rel) ? [rel] : [];
  });
}

const read = (rel: string): string => readFileSync(path.join(root, rel), 'utf8');
const isDir = (abs: string): boolean => existsSync(abs) && statSync(abs).isDirectory();
const index = existsSync(path.join(root, DECISIONS, 'README.md')) ? read(`${DECISIONS}/README.md`) : '';
const normal = (s: string): string => s.toLowerCase().replace(/[`*]/g, '').replace(/\s+/g, ' ').trim();

/** Whether a path with `*` in one of its names matches a file or folder of the repository. */
function globMatches(rel: string): boolean {
  const parts = rel.split('/');
  const i = parts.findIndex((p) => p.includes('*'));
  const dir = path.join(root, ...parts.slice(0, i));
  const name = new RegExp('^' + parts[i]!.replace(/[.+?^$(){}|[\]\\]/g, '\\$&').replace(/\*+/g, '.*') + '$');
  return isDir(dir) && readdirSync(dir).some((e) => name.test(e));
}

/** Where a reference leads from `file` (its root-relative path), or null when nothing there. */
function target(file: string, ref: FileReference): string | null {
  const relative = ref.path.startsWith('./') || ref.path.startsWith('../');
  const candidates = relative ? [path.join(path.dirname(file), ref.path)] : [ref.path, path.join(path.dirname(file), ref.path)];
  for (const c of candidates) {
    const output = OUTPUTS.find((o) => c.startsWith(o));
    if (output !== undefined ? isDir(path.join(root, output)) : c.includes('*') ? globMatches(c) : existsSync(path.join(root, c))) return c;
  }
  return null;
}

/**
 * An applied migration never changes (the store refuses one whose checksum differs), so a reference in one that
 * no longer resolves stays as written: docs/decisions/README.md names the migration and the record that holds
 * what it meant.
 */
const frozen = (file: string): boolean => file.startsWith('src/store/migrations/') && index.includes(`\`${file}\``);

/** What is wrong with a reference, or null when it resolves. */
function problem(file: string, ref: FileReference): string | null {
  const found = target(file, ref);
  if (found === null) return frozen(file) ? null : `${ref.path} is not in the repository`;
  if (ref.section === null || !found.endsWith('.md') || found.includes('*')) return null;
  const hs = headings(read(found));
  const ok = ref.section.startsWith('#') ? hs.some((h) => `#${h.anchor}` === ref.section) : hs.some((h) => normal(h.text) === normal(ref.section!));
  return ok ? null : `${found} has no heading ${ref.section.startsWith('#') ? ref.section : `"${ref.section}"`}`;
}

const files = [...SCANNED.flatMap(filesUnder), 'README.md'];
const comments = files.flatMap((file) => commentsOf(file, read(file)).map((comment) => ({ file, comment })));
const scan = comments.flatMap(({ file, comment }) => fileReferences(comment).map((ref) => ({ file, ref })));

describe('references to files', () => {
  it('finds the references of the comments and pages (so the check below is not empty)', () => {
    expect(scan.length).toBeGreaterThan(1000);
    expect(scan.filter(({ ref }) => ref.path.startsWith(`${DECISIONS}/`)).length).toBeGreaterThan(50);
  });

  it('each leads to a file of the repository, and to the heading it names', () => {
    const broken = scan.flatMap(({ file, ref }) => {
      const why = problem(file, ref);
      return why === null ? [] : [`${file}:${ref.line}: ${why}`];
    });
    expect(broken).toEqual([]);
  });

  it('cite no part of a document outside the repository (the records of docs/decisions/ quote their sources)', () => {
    const citing = comments.filter(({ file }) => !file.startsWith(`${DECISIONS}/`))
      .flatMap(({ file, comment }) => partCitations(comment).map((line) => `${file}:${line}`));
    expect(citing).toEqual([]);
  });
});

describe('docs/decisions/', () => {
  const records = isDir(path.join(root, DECISIONS)) ? readdirSync(path.join(root, DECISIONS)).filter((f) => /^\d{4}-.*\.md$/.test(f)).sort() : [];

  it('has an index that lists every record, in order, and nothing else', () => {
    const listed = [...index.slice(index.indexOf('\n## Records')).matchAll(/\]\((\d{4}-[^)]+\.md)\)/g)].map((m) => m[1]!);
    expect(records.length).toBeGreaterThan(20);
    expect(listed).toEqual(records);
  });

  it.each(records)('%s: a number and title, the decision, why, and its source', (record) => {
    const text = read(`${DECISIONS}/${record}`);
    expect(text).toMatch(new RegExp(`^# ${Number(record.slice(0, 4))}\\. \\S`));
    for (const heading of ['Decision', 'Why', 'Source']) expect(headings(text).map((h) => h.text), record).toContain(heading);
  });
});

describe('the reading of comments', () => {
  it('takes comments, not strings, templates or regular expressions, and reads a reference wrapped over lines', () => {
    const source = [
      "const a = '// src/in-a-string.md';",
      'const b = `/* docs/in-a-template.md */`;',
      'const c = /\\/\\/ docs\\/in-a-regex.md/;',
      '/**',
      ' * See docs/operations.md, "Running it',
      ' * every day", and ./sibling.ts.',
      ' */',
      'const d = 1; // SPEC.md part 2',
    ].join('\n');
    const refs = commentsOf('x.ts', source).flatMap(fileReferences);
    expect(refs).toEqual([
      { line: 5, path: 'docs/operations.md', section: 'Running it every day' },
      { line: 6, path: './sibling.ts', section: null },
      { line: 8, path: 'SPEC.md', section: null },
    ]);
  });

  it('reads SQL comments and Markdown prose outside code, and skips web addresses and other projects\' files', () => {
    expect(commentsOf('m.sql', 'select 1; -- not a comment line\n-- see src/a.ts\n-- and docs/b.md#x').flatMap(fileReferences))
      .toEqual([{ line: 2, path: 'src/a.ts', section: null }, { line: 3, path: 'docs/b.md', section: '#x' }]);
    const page = ['Read [it](../engine.md#policy) or https://example.com/docs/a.md', '```sh', 'cat docs/none.md', '```', 'and `IRL-engine-AX/docs/benchmarks/results.md`.'].join('\n');
    expect(commentsOf('docs/p.md', page).flatMap(fileReferences)).toEqual([{ line: 1, path: '../engine.md', section: '#policy' }]);
  });
});
