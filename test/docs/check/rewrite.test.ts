/** `docs:update`'s edits: outputs, timings and benchmark blocks replaced, nothing else touched. */
import { describe, expect, it } from 'vitest';
import { comparable } from '../../../scripts/docs/check/mask.js';
import { parseDocument } from '../../../scripts/docs/check/parse.js';
import { rewriteBenchmark, rewriteOutputs, rewriteTimings } from '../../../scripts/docs/check/rewrite.js';

const doc = [
  '# Title',
  '',
  '```console',
  '$ tradeseal pipeline status --limit 1',
  'an old line',
  '$ export X=1',
  '$ echo $X',
  '2',
  '```',
  '',
  '```sh',
  '$ npm start',
  'not an output',
  '```',
  '',
  'A first run takes <!-- timing:demo-first -->1 s<!-- /timing -->; the suite <!-- timing:npm-test -->12 min 0 s<!-- /timing -->.',
  '<!-- output:bench-signal:start inputs=sha256:old -->',
  '```',
  '$ npm run bench:signal',
  'old figures',
  '```',
  '<!-- output:bench-signal:end -->',
  '',
].join('\n');

describe('rewriteOutputs', () => {
  const parsed = parseDocument(doc);
  const printed = new Map([
    [4, ['run 2e25716b-2057-42f7-ac29-de5bdc6b6d35 published', 'second line  ']],
    [6, []],
    [7, ['1']],
  ]);
  const updated = rewriteOutputs(doc, parsed, printed);

  it('writes each command\'s real output exactly, so the check of the result passes', () => {
    const again = parseDocument(updated);
    const commands = again.blocks.flatMap((b) => b.commands);
    expect(commands.map((c) => c.expected)).toEqual([['run 2e25716b-2057-42f7-ac29-de5bdc6b6d35 published', 'second line  '], [], ['1']]);
    // What the check compares: the documented output against the printed one, both masked.
    expect(commands.map((c) => comparable(c.expected))).toEqual([...printed.values()].map((p) => comparable(p)));
  });

  it('leaves prose, other blocks and markers byte for byte', () => {
    const tail = (text: string): string => text.slice(text.indexOf('```sh'));
    expect(tail(updated)).toBe(tail(doc));
    expect(updated.startsWith('# Title\n\n```console\n$ tradeseal pipeline status --limit 1\n')).toBe(true);
  });
});

describe('rewriteTimings', () => {
  it('sets the measured markers and keeps the others', () => {
    const out = rewriteTimings(doc, { 'demo-first': '58 s' });
    expect(out).toContain('<!-- timing:demo-first -->58 s<!-- /timing -->');
    expect(out).toContain('<!-- timing:npm-test -->12 min 0 s<!-- /timing -->');
    expect(out.replace('58 s', '1 s')).toBe(doc);
  });
});

describe('rewriteBenchmark', () => {
  it('replaces the block and records the digest in its start marker, and nothing else', () => {
    const out = rewriteBenchmark(doc, parseDocument(doc), 'bench-signal', '```\n$ npm run bench:signal\nnew figures\n```', 'sha256:new');
    expect(out).toBe(doc.replace('inputs=sha256:old', 'inputs=sha256:new').replace('old figures', 'new figures'));
    expect(parseDocument(out).outputs).toEqual([expect.objectContaining({ name: 'bench-signal', inputs: 'sha256:new' })]);
  });
});
