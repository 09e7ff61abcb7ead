/**
 * The files a comment or a page's prose points to, so that a test can check that each is in the repository:
 * every path under one of the repository's top-level folders (`docs/decisions/README.md`, `src/store/driver.ts`,
 * `test/vectors/`, `test/engine/transparency-log*.test.ts`), every relative one (`./comments.ts`), and every
 * Markdown file named at all (`README.md`, `pipeline/README.md`, or a document the repository does not have).
 * A Markdown reference may name a section, `docs/operations.md, "Running it every day"` or
 * `docs/design.md#layers`, returned with it. A web address is none, nor a file of another project written
 * with the project first: a package (`postgres/src/connection.js`) or a repository of `OTHER_PROJECTS`
 * (`IRL-engine-AX/docs/benchmarks/results.md`).
 */
import type { Comment } from './comments.js';

/** The top-level folders a path mention may start with. */
export const ROOTS = ['docs', 'src', 'pipeline', 'commands', 'test', 'bench', 'scripts', 'replay', 'data', 'patches', 'bin'] as const;

/** Repositories whose files comments name, written `name/path`: such a path is theirs, not this repository's. */
export const OTHER_PROJECTS = ['IRL-engine-AX', 'EODHD-openapi', 'json-canonicalization'] as const;

export interface FileReference {
  line: number;
  /** As written: from the repository's root, or relative to the file (`./comments.ts`, a bare `README.md`). */
  path: string;
  /** The section named with a Markdown reference: a quoted heading's text, or `#anchor`. */
  section: string | null;
}

const EXT = '(?:md|tsx?|json|jsx?|mjs|sql|csv|ya?ml|patch|txt|cpp|lua|parquet|arrow)';
const SEGMENT = '[\\w*][\\w.*-]*';
const PATH = new RegExp(`(?<![\\w./@:~$\\\\-])((?:\\.\\.?/)?(?:${SEGMENT}/)*${SEGMENT}\\.${EXT}|(?:${ROOTS.join('|')})/(?:${SEGMENT}/)*)(?![\\w/-])`, 'g');
const SECTION = /^(?:#([\w-]+)|,?:?\s*\(?\s*["“]([^"”]+)["”])/;

const isReference = (path: string): boolean =>
  ROOTS.some((r) => path.startsWith(`${r}/`)) ||
  path.startsWith('./') ||
  path.startsWith('../') ||
  (path.endsWith('.md') && !OTHER_PROJECTS.some((p) => path.startsWith(`${p}/`)));

export function fileReferences(comment: Comment): FileReference[] {
  const out: FileReference[] = [];
  for (const m of comment.text.matchAll(PATH)) {
    const path = m[1]!;
    if (!isReference(path)) continue;
    const line = comment.line + (comment.text.slice(0, m.index).match(/\n/g)?.length ?? 0);
    const after = path.endsWith('.md') ? SECTION.exec(comment.text.slice(m.index! + path.length)) : null;
    const section = after?.[1] !== undefined ? `#${after[1]}` : after?.[2] !== undefined ? after[2].replace(/\s+/g, ' ').trim() : null;
    out.push({ line, path, section });
  }
  return out;
}

/**
 * A part of an interface document cited without naming a file (the word "interface", then "part" and a
 * number): such a citation points outside the repository, where the records of docs/decisions/ quote the rule
 * instead. The lines it is on.
 */
export function partCitations(comment: Comment): number[] {
  return [...comment.text.matchAll(/\binterface(?: document)?,? parts? \d/gi)].map(
    (m) => comment.line + (comment.text.slice(0, m.index).match(/\n/g)?.length ?? 0),
  );
}
