/**
 * Reads a Markdown document the way the documented-output checker sees it (docs/testing.md, "Documented
 * outputs"): its `console` blocks, each command with its expected output and line numbers, the directives
 * before them (`<!-- docs-check: published | continues FILE | serve | env NAME=value … -->`), its timing markers
 * (`<!-- timing:NAME -->…<!-- /timing -->`) and its benchmark output markers
 * (`<!-- output:NAME:start inputs=sha256:… -->` … `<!-- output:NAME:end -->`). Pure: text in, structure out.
 */

export interface DocCommand {
  /** 1-based line of the command's first `$ ` line: what a failure names. */
  line: number;
  /** The command as bash runs it: the text after `$ `, continuation lines joined by their newlines. */
  text: string;
  /** The expected output, one string per line, as written. */
  expected: string[];
  /** 0-based indexes of the lines holding the expected output: [from, to). */
  outputFrom: number;
  outputTo: number;
}

export interface ConsoleBlock {
  /** 1-based line of the opening fence. */
  line: number;
  /** `<!-- docs-check: serve -->` right before it: the server runs from this block on. */
  serve: boolean;
  /** `<!-- docs-check: env … -->` right before it: extra environment for this block's commands. */
  env: Record<string, string>;
  commands: DocCommand[];
}

export interface TimingMarker {
  name: string;
  value: string;
  line: number;
}

export interface OutputMarker {
  name: string;
  /** The `inputs=sha256:…` attribute of the start marker, if any. */
  inputs: string | null;
  /** 0-based indexes of the start and end marker lines. */
  start: number;
  end: number;
  line: number;
}

export interface ParsedDocument {
  published: boolean;
  /**
   * `<!-- docs-check: continues FILE -->` before the first block: the document runs where FILE's commands left
   * off (its workspace, its store, its exported variables), after it. FILE relative to the package's root
   * (`README.md`, `docs/cli.md`) or absolute; `line` is the directive's.
   */
  continues: { file: string; line: number } | null;
  blocks: ConsoleBlock[];
  timings: TimingMarker[];
  outputs: OutputMarker[];
  /** Directives that are not understood or not where they belong, with their line: the check fails on them. */
  problems: Array<{ line: number; message: string }>;
}

const BOTH = 'docs-check: published and continues together: a continued document starts from the store the other left';
const FENCE = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)/;
const DIRECTIVE = /^\s*<!--\s*docs-check:\s*(.*?)\s*-->\s*$/;
const TIMING = /<!--\s*timing:([a-z0-9-]+)\s*-->(.*?)<!--\s*\/timing\s*-->/g;
const OUTPUT_START = /^\s*<!--\s*output:([a-z0-9-]+):start((?:\s+[a-z]+=\S+)*)\s*-->\s*$/;
const OUTPUT_END = /^\s*<!--\s*output:([a-z0-9-]+):end\s*-->\s*$/;

/** Splits `NAME=value NAME2="two words"` into an environment. */
export function parseEnvAssignments(text: string): Record<string, string> | null {
  const env: Record<string, string> = {};
  const re = /([A-Za-z_][A-Za-z0-9_]*)=("([^"]*)"|'([^']*)'|(\S*))\s*/gy;
  let rest = text.trim();
  while (rest.length > 0) {
    re.lastIndex = 0;
    const m = re.exec(rest);
    if (!m) return null;
    env[m[1]!] = m[3] ?? m[4] ?? m[5] ?? '';
    rest = rest.slice(m[0].length);
  }
  return env;
}

/** Parses the `console` blocks of one document's body lines (0-based `from` to `to`, exclusive). */
function parseConsoleBody(lines: string[], from: number, to: number): DocCommand[] {
  const commands: DocCommand[] = [];
  let i = from;
  while (i < to) {
    const first = lines[i]!;
    if (!first.startsWith('$ ')) {
      i++; // text before the first command is not compared (there is none in a well-formed block)
      continue;
    }
    const line = i + 1;
    const parts = [first.slice(2)];
    while (parts[parts.length - 1]!.endsWith('\\') && i + 1 < to) parts.push(lines[++i]!);
    i++;
    const outputFrom = i;
    while (i < to && !lines[i]!.startsWith('$ ')) i++;
    commands.push({ line, text: parts.join('\n'), expected: lines.slice(outputFrom, i), outputFrom, outputTo: i });
  }
  return commands;
}

export function parseDocument(text: string): ParsedDocument {
  const lines = text.split('\n');
  const doc: ParsedDocument = { published: false, continues: null, blocks: [], timings: [], outputs: [], problems: [] };
  let pending: { serve: boolean; env: Record<string, string>; line: number } | null = null;
  const openOutputs = new Map<string, { start: number; inputs: string | null }>();

  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    for (const m of raw.matchAll(TIMING)) doc.timings.push({ name: m[1]!, value: m[2]!.trim(), line: i + 1 });

    const start = OUTPUT_START.exec(raw);
    if (start) {
      const inputs = /\binputs=(\S+)/.exec(start[2] ?? '')?.[1] ?? null;
      openOutputs.set(start[1]!, { start: i, inputs });
      continue;
    }
    const end = OUTPUT_END.exec(raw);
    if (end) {
      const open = openOutputs.get(end[1]!);
      if (!open) doc.problems.push({ line: i + 1, message: `<!-- output:${end[1]}:end --> without its start marker` });
      else doc.outputs.push({ name: end[1]!, inputs: open.inputs, start: open.start, end: i, line: open.start + 1 });
      openOutputs.delete(end[1]!);
      continue;
    }

    const directive = DIRECTIVE.exec(raw);
    if (directive) {
      const [word, ...rest] = directive[1]!.split(/\s+/);
      if (word === 'published') {
        if (doc.blocks.length > 0) doc.problems.push({ line: i + 1, message: 'docs-check: published comes after a console block; it must come before the first' });
        doc.published = true;
        if (doc.continues !== null) doc.problems.push({ line: i + 1, message: BOTH });
      } else if (word === 'continues') {
        if (doc.published) doc.problems.push({ line: i + 1, message: BOTH });
        if (doc.blocks.length > 0) doc.problems.push({ line: i + 1, message: 'docs-check: continues comes after a console block; it must come before the first' });
        if (rest.length !== 1) doc.problems.push({ line: i + 1, message: `docs-check: continues needs one document, not "${rest.join(' ')}"` });
        else doc.continues = { file: rest[0]!, line: i + 1 };
      } else if (word === 'serve' || word === 'env') {
        pending ??= { serve: false, env: {}, line: i + 1 };
        if (word === 'serve') pending.serve = true;
        else {
          const env = parseEnvAssignments(rest.join(' '));
          if (env) Object.assign(pending.env, env);
          else doc.problems.push({ line: i + 1, message: `docs-check: env needs NAME=value pairs, not "${rest.join(' ')}"` });
        }
      } else doc.problems.push({ line: i + 1, message: `unknown directive docs-check: ${directive[1]}` });
      continue;
    }

    const fence = FENCE.exec(raw);
    if (fence) {
      const marker = fence[2]!;
      let close = i + 1;
      while (close < lines.length && !(lines[close]!.trimStart().startsWith(marker) && lines[close]!.trim().replace(/[`~]/g, '') === '')) close++;
      if (fence[3] === 'console' && ![...openOutputs.values()].length) {
        doc.blocks.push({ line: i + 1, serve: pending?.serve ?? false, env: pending?.env ?? {}, commands: parseConsoleBody(lines, i + 1, close) });
      } else if (pending) {
        doc.problems.push({ line: pending.line, message: 'a docs-check directive belongs right before a console block' });
      }
      pending = null;
      i = close;
      continue;
    }
    if (pending && raw.trim() !== '') {
      doc.problems.push({ line: pending.line, message: 'a docs-check directive belongs right before a console block' });
      pending = null;
    }
  }
  for (const [name, open] of openOutputs) doc.problems.push({ line: open.start + 1, message: `<!-- output:${name}:start --> without its end marker` });
  return doc;
}
