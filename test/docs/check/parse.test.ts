/** Reading a document's console blocks, directives and markers, with the line numbers failures name. */
import { describe, expect, it } from 'vitest';
import { parseDocument, parseEnvAssignments } from '../../../scripts/docs/check/parse.js';

const doc = [
  '# Title', //                                              1
  '<!-- docs-check: published -->', //                       2
  '```console', //                                           3
  '$ export A=1', //                                         4
  '$ tradeseal signals export \\', //                        5
  '    --limit 2', //                                        6
  'date,regime', //                                          7
  '2025-11-26,recovery', //                                  8
  '```', //                                                  9
  '```sh', //                                               10
  '$ npm start', //                                         11
  '```', //                                                 12
  '<!-- docs-check: serve -->', //                          13
  '<!-- docs-check: env TOKEN=abc NAME="two words" -->', // 14
  '```console', //                                          15
  '$ curl -s http://localhost:8080/v1/health', //           16
  '```', //                                                 17
  'It takes <!-- timing:demo-first -->58 s<!-- /timing --> and <!-- timing:npm-test --><!-- /timing -->.', // 18
  '<!-- output:bench-signal:start inputs=sha256:abc -->', // 19
  '```console', //                                          20
  '$ npm run bench:signal', //                              21
  '```', //                                                 22
  '<!-- output:bench-signal:end -->', //                    23
].join('\n');

describe('parseDocument', () => {
  const parsed = parseDocument(doc);

  it('finds the console blocks with their commands, continuations, outputs and lines', () => {
    expect(parsed.published).toBe(true);
    expect(parsed.blocks).toHaveLength(2);
    const [first, second] = parsed.blocks;
    expect(first).toMatchObject({ line: 3, serve: false, env: {} });
    expect(first!.commands).toEqual([
      { line: 4, text: 'export A=1', expected: [], outputFrom: 4, outputTo: 4 },
      { line: 5, text: 'tradeseal signals export \\\n    --limit 2', expected: ['date,regime', '2025-11-26,recovery'], outputFrom: 6, outputTo: 8 },
    ]);
    expect(second).toMatchObject({ line: 15, serve: true, env: { TOKEN: 'abc', NAME: 'two words' } });
    expect(second!.commands.map((c) => [c.line, c.text, c.expected])).toEqual([[16, 'curl -s http://localhost:8080/v1/health', []]]);
  });

  it('leaves sh blocks and blocks inside benchmark markers alone', () => {
    expect(parsed.blocks.flatMap((b) => b.commands.map((c) => c.text))).not.toContain('npm start');
    expect(parsed.blocks.flatMap((b) => b.commands.map((c) => c.text))).not.toContain('npm run bench:signal');
  });

  it('reads timing markers, empty ones included, and benchmark markers with their digest', () => {
    expect(parsed.timings).toEqual([{ name: 'demo-first', value: '58 s', line: 18 }, { name: 'npm-test', value: '', line: 18 }]);
    expect(parsed.outputs).toEqual([{ name: 'bench-signal', inputs: 'sha256:abc', start: 18, end: 22, line: 19 }]);
    expect(parsed.problems).toEqual([]);
  });

  it('reports misplaced and unknown directives and unclosed markers with their lines', () => {
    const bad = parseDocument(['```console', '$ true', '```', '<!-- docs-check: published -->', '<!-- docs-check: served -->', '', '<!-- docs-check: serve -->', 'prose', '<!-- output:bench-pipeline:start -->'].join('\n'));
    expect(bad.problems).toEqual([
      { line: 4, message: expect.stringMatching(/published comes after a console block/) },
      { line: 5, message: 'unknown directive docs-check: served' },
      { line: 7, message: 'a docs-check directive belongs right before a console block' },
      { line: 9, message: '<!-- output:bench-pipeline:start --> without its end marker' },
    ]);
  });

  it('reads which document a document continues, and refuses it misplaced, without one document, or beside published', () => {
    const continued = parseDocument(['<!-- docs-check: continues README.md -->', '```console', '$ true', '```'].join('\n'));
    expect([continued.continues, continued.published, continued.problems]).toEqual([{ file: 'README.md', line: 1 }, false, []]);
    expect(parseDocument('```console\n$ true\n```\n').continues).toBeNull();
    const bad = parseDocument(
      ['<!-- docs-check: published -->', '<!-- docs-check: continues README.md -->', '<!-- docs-check: continues -->', '```console', '$ true', '```', '<!-- docs-check: continues a.md -->'].join('\n'),
    );
    expect(bad.problems).toEqual([
      { line: 2, message: expect.stringMatching(/published and continues together/) },
      { line: 3, message: expect.stringMatching(/published and continues together/) },
      { line: 3, message: 'docs-check: continues needs one document, not ""' },
      { line: 7, message: expect.stringMatching(/published and continues together/) },
      { line: 7, message: expect.stringMatching(/continues comes after a console block/) },
    ]);
  });
});

describe('parseEnvAssignments', () => {
  it.each([
    ['A=1', { A: '1' }],
    ["A='x y' B=\"z\" C=", { A: 'x y', B: 'z', C: '' }],
    ['not an assignment', null],
  ])('%s', (text, env) => {
    expect(parseEnvAssignments(text)).toEqual(env);
  });
});
