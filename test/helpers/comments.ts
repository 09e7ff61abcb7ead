/**
 * The comments of a source file, as a reader sees them: TypeScript and JavaScript through the TypeScript
 * parser (so a `//` inside a string, a template or a regular expression is not taken for one), SQL's `--`
 * lines, and the prose of a Markdown page (every line outside fenced code). Each comment comes with the line
 * it starts on and its text without the comment markers (`/**`, ` * `, `//`, `--`), its lines kept (the
 * first being the line of `/**`), so that a reference wrapped over two lines is read whole.
 */
import ts from 'typescript';

export interface Comment {
  /** 1-based line of the comment's first line. */
  line: number;
  text: string;
}

export type CommentKind = 'script' | 'sql' | 'markdown';

export function commentKind(file: string): CommentKind | null {
  if (/\.(c|m)?(t|j)sx?$/.test(file)) return 'script';
  if (file.endsWith('.sql')) return 'sql';
  if (file.endsWith('.md')) return 'markdown';
  return null;
}

export function commentsOf(file: string, text: string): Comment[] {
  const kind = commentKind(file);
  if (kind === 'script') return scriptComments(file, text);
  if (kind === 'sql') return lineComments(text, /^\s*--\s?(.*)$/);
  if (kind === 'markdown') return markdownProse(text);
  return [];
}

function scriptComments(file: string, text: string): Comment[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const seen = new Set<number>();
  const out: Comment[] = [];
  // Every comment is the leading trivia of some token (the end-of-file token included), or trails one on its line.
  const visit = (node: ts.Node): void => {
    for (const range of [...(ts.getLeadingCommentRanges(text, node.pos) ?? []), ...(ts.getTrailingCommentRanges(text, node.end) ?? [])]) {
      if (seen.has(range.pos)) continue;
      seen.add(range.pos);
      out.push({ line: source.getLineAndCharacterOfPosition(range.pos).line + 1, text: stripMarkers(text.slice(range.pos, range.end)) });
    }
    for (const child of node.getChildren(source)) visit(child);
  };
  visit(source);
  return out.sort((a, b) => a.line - b.line);
}

function stripMarkers(comment: string): string {
  if (comment.startsWith('//')) return comment.slice(2).trim();
  return comment
    .slice(2, -2)
    .split('\n')
    .map((l) => l.replace(/^\s*\*?\s?/, ''))
    .join('\n');
}

/** Runs of consecutive comment lines, each run one comment. */
function lineComments(text: string, marker: RegExp): Comment[] {
  const out: Comment[] = [];
  let run: Comment | null = null;
  text.split('\n').forEach((line, i) => {
    const m = marker.exec(line);
    if (!m) {
      run = null;
      return;
    }
    if (run) run.text += `\n${m[1]}`;
    else out.push((run = { line: i + 1, text: m[1]! }));
  });
  return out;
}

/** The prose of a Markdown page: each paragraph outside fenced code one "comment". */
function markdownProse(text: string): Comment[] {
  const out: Comment[] = [];
  let fence = false;
  let run: Comment | null = null;
  text.split('\n').forEach((line, i) => {
    if (/^\s*(`{3,}|~{3,})/.test(line)) {
      fence = !fence;
      run = null;
      return;
    }
    if (fence || line.trim() === '') {
      run = null;
      return;
    }
    if (run) run.text += `\n${line}`;
    else out.push((run = { line: i + 1, text: line }));
  });
  return out;
}
