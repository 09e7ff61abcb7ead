/**
 * `npm run docs:check` and `npm run docs:update`: every `console` block of README.md and docs/*.md run and
 * compared, the timing markers and benchmark blocks checked (scripts/docs/check/; docs/testing.md, "Documented
 * outputs").
 *
 *   docs:check                          fails with a diff per differing command, naming file:line
 *   docs:update                         rewrites the outputs with what the commands print, measures the timings
 *   docs:update -- --benchmarks         also reruns the benchmark blocks whose inputs changed, and records their digests
 *   docs:update -- --all-benchmarks     also reruns every benchmark block
 *   docs:update -- --npm-test           also measures `npm test` (minutes)
 *   docs:update -- --no-timings         the outputs only (with --npm-test: and the suite's time)
 *   --cli dev                           run `tradeseal` from the sources (tsx) instead of the compiled build
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { checkDocuments, documentedPages } from './docs/check/check.js';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    benchmarks: { type: 'boolean', default: false },
    'all-benchmarks': { type: 'boolean', default: false },
    'npm-test': { type: 'boolean', default: false },
    'no-timings': { type: 'boolean', default: false },
    cli: { type: 'string', default: 'dist' },
  },
});
const mode = positionals[0];
if (mode !== 'check' && mode !== 'update') {
  process.stderr.write('usage: tsx scripts/docs-check.ts check|update [--benchmarks | --all-benchmarks] [--npm-test] [--no-timings] [--cli dist|dev]\n');
  process.exit(2);
}
if (values.cli !== 'dist' && values.cli !== 'dev') {
  process.stderr.write(`--cli is dist or dev, not ${values.cli}\n`);
  process.exit(2);
}

const started = performance.now();
const result = await checkDocuments({
  packageRoot: root,
  documents: documentedPages(root),
  update: mode === 'update',
  benchmarks: values['all-benchmarks'] ? 'all' : values.benchmarks ? 'stale' : false,
  timings: !values['no-timings'],
  npmTest: values['npm-test'],
  requireMarkers: true,
  cli: values.cli,
  log: (line) => process.stderr.write(`${line}\n`),
});
const seconds = ((performance.now() - started) / 1000).toFixed(0);
for (const f of result.failures) process.stdout.write(`${f}\n\n`);
for (const f of result.updated) process.stdout.write(`${f} updated\n`);
process.stdout.write(`docs:${mode}: ${result.commands} commands, ${result.failures.length} failures, ${seconds} s\n`);
process.exit(result.failures.length === 0 ? 0 : 1);
