/**
 * The benchmark blocks' inputs digests and the timing markers, as `docs:check` judges them: no command is run
 * (the documents here have no console block), so no CLI or store is needed.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BENCHMARKS, inputsDigest, matchFiles } from '../../../scripts/docs/check/benchmarks.js';
import { benchmarkStale, checkDocuments } from '../../../scripts/docs/check/check.js';
import { TIMINGS } from '../../../scripts/docs/check/timings.js';

let root: string;

const write = (rel: string, text: string): void => {
  mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  writeFileSync(path.join(root, rel), text);
};

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'docs-check-bench-'));
  write('bench/signal.ts', 'bench');
  write('pipeline/run.ts', 'run');
  write('pipeline/model/hmm.ts', 'hmm');
  write('data/macro/a.csv', '1,2');
  write('node_modules/pipeline/x.ts', 'not an input');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const signal = BENCHMARKS.find((b) => b.name === 'bench-signal')!;

describe('matchFiles and inputsDigest', () => {
  it('match files at any depth under **, sorted, outside node_modules', () => {
    expect(matchFiles(root, ['pipeline/**', 'bench/signal.ts', 'bench/missing.ts', 'data/macro/*.csv'])).toEqual(['bench/signal.ts', 'data/macro/a.csv', 'pipeline/model/hmm.ts', 'pipeline/run.ts']);
  });

  it('change when an input is edited, added or renamed, and not when another file is', () => {
    const before = inputsDigest(root, signal.inputs);
    expect(before).toMatch(/^sha256:[0-9a-f]{64}$/);
    write('README.md', 'prose');
    write('src/http/app.ts', 'not an input of the signal benchmark');
    expect(inputsDigest(root, signal.inputs)).toBe(before);
    write('pipeline/model/hmm.ts', 'hmm, changed');
    const edited = inputsDigest(root, signal.inputs);
    expect(edited).not.toBe(before);
    write('data/macro/b.csv', '3,4');
    expect(inputsDigest(root, signal.inputs)).not.toBe(edited);
  });
});

const timings = TIMINGS.map((t) => `<!-- timing:${t} -->1 s<!-- /timing -->`).join(' ');
const block = (name: string, inputs: string | null): string =>
  [`<!-- output:${name}:start${inputs ? ` inputs=${inputs}` : ''} -->`, '```', `$ npm run ${name.replace('-', ':')}`, 'figures', '```', `<!-- output:${name}:end -->`].join('\n');

async function check(doc: string, requireMarkers = false): Promise<string[]> {
  write('docs/page.md', doc);
  return (await checkDocuments({ packageRoot: root, documents: ['docs/page.md'], update: false, requireMarkers })).failures;
}

describe('docs:check on benchmark blocks and timing markers', () => {
  it('passes a block whose recorded digest is current', async () => {
    expect(await check(`${timings}\n\n${block('bench-signal', inputsDigest(root, signal.inputs))}\n`)).toEqual([]);
  });

  it('fails a block whose inputs changed since, naming it and the command that regenerates it', async () => {
    const recorded = inputsDigest(root, signal.inputs);
    write('pipeline/run.ts', 'run, changed');
    expect(await check(`${timings}\n\n${block('bench-signal', recorded)}\n`)).toEqual([
      expect.stringMatching(/^docs\/page\.md:3: the benchmark block bench-signal is stale .*: run npm run docs:update -- --benchmarks$/),
    ]);
  });

  it('fails a block without a digest, and an output marker that is not a benchmark', async () => {
    expect(await check(`${block('bench-signal', null)}\n${block('quant-tour', null)}\n`)).toEqual([
      'docs/page.md:1: the benchmark block bench-signal records no inputs digest: run npm run docs:update -- --benchmarks',
      expect.stringMatching(/^docs\/page\.md:7: output:quant-tour is not a benchmark block/),
    ]);
  });

  it('fails an empty or unknown timing marker, and with every marker required, a missing one', async () => {
    const failures = await check('It takes <!-- timing:demo-first --><!-- /timing --> or <!-- timing:lunch -->1 h<!-- /timing -->.\n', true);
    expect(failures).toContain('docs/page.md:1: the timing marker timing:demo-first is empty: npm run docs:update measures it');
    expect(failures).toContain(`docs/page.md:1: unknown timing marker timing:lunch (known: ${TIMINGS.join(', ')})`);
    expect(failures).toContain('no document has the timing marker <!-- timing:npm-test -->…<!-- /timing -->');
    expect(failures).toContain('no document has the benchmark block <!-- output:bench-pipeline:start --> … <!-- output:bench-pipeline:end -->');
  });
});

describe('docs:update --benchmarks', () => {
  it('reruns a benchmark only when a block of it records no digest or another digest than its inputs have now', () => {
    write('src/store/migrations/0001.sql', 'create table t ()');
    const pipeline = BENCHMARKS.find((b) => b.name === 'bench-pipeline')!;
    const now = inputsDigest(root, pipeline.inputs);
    expect(benchmarkStale([now], now)).toBe(false);
    expect(benchmarkStale([now, now], now)).toBe(false);
    expect(benchmarkStale([null], now)).toBe(true);
    write('src/store/migrations/0002.sql', 'create table u ()');
    const after = inputsDigest(root, pipeline.inputs);
    expect(after).not.toBe(now);
    expect(benchmarkStale([now], after)).toBe(true);
    expect(benchmarkStale([after, now], after)).toBe(true);
  });
});
