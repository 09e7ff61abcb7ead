/**
 * `npm run docs:update`'s edits of a document: each command's expected output replaced by what it printed
 * (exactly, not masked), each timing marker's value by its measurement, each benchmark block by its fresh run
 * with its inputs digest. Only those spans change: prose, markers, other blocks and directives stay byte for
 * byte. Pure: text in, text out.
 */
import type { ParsedDocument } from './parse.js';

interface Splice {
  from: number;
  to: number;
  lines: string[];
}

function applySplices(lines: string[], splices: Splice[]): string[] {
  const out = [...lines];
  for (const s of [...splices].sort((a, b) => b.from - a.from)) out.splice(s.from, s.to - s.from, ...s.lines);
  return out;
}

/** Replaces the expected output of each command whose first line is a key of `outputs`. */
export function rewriteOutputs(text: string, doc: ParsedDocument, outputs: ReadonlyMap<number, readonly string[]>): string {
  const splices: Splice[] = [];
  for (const block of doc.blocks) {
    for (const c of block.commands) {
      const actual = outputs.get(c.line);
      if (actual) splices.push({ from: c.outputFrom, to: c.outputTo, lines: [...actual] });
    }
  }
  return applySplices(text.split('\n'), splices).join('\n');
}

/** Sets the value of each `<!-- timing:NAME -->…<!-- /timing -->` whose NAME is a key of `values`. */
export function rewriteTimings(text: string, values: Readonly<Record<string, string>>): string {
  return text.replace(/(<!--\s*timing:([a-z0-9-]+)\s*-->)(.*?)(<!--\s*\/timing\s*-->)/g, (whole, open: string, name: string, _old: string, close: string) =>
    name in values ? `${open}${values[name]}${close}` : whole,
  );
}

/**
 * Replaces what lies between a benchmark's start and end markers with `body`, and its start marker with one
 * recording `inputs`.
 */
export function rewriteBenchmark(text: string, doc: ParsedDocument, name: string, body: string, inputs: string): string {
  const marker = doc.outputs.find((o) => o.name === name);
  if (!marker) return text;
  const lines = text.split('\n');
  return applySplices(lines, [{ from: marker.start, to: marker.end, lines: [`<!-- output:${name}:start inputs=${inputs} -->`, ...body.split('\n')] }]).join('\n');
}
