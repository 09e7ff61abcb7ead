/**
 * Regenerates the README's sample outputs from a real run (`npm run docs:outputs`): a fresh embedded store in a
 * temporary `TRADESEAL_HOME`, a full pipeline run on the bundled data with the default seed, then each tour
 * command as a new user types it. Each output goes between `<!-- output:NAME:start -->` and
 * `<!-- output:NAME:end -->` markers as a fenced block under its command line, exactly as printed (run ids,
 * times and durations are the run's own). Then the signal benchmarks (`npm run bench:signal` and
 * `bench:signal-seeds`), whose printed tables go into the "Benchmarks" section the same way. Takes about five
 * minutes on two cores; run it after any change to what the pipeline publishes or how the commands print it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { replaceSections } from '../src/docs/readme-sections.js';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/** Each sample: its marker name and the commands shown in it, in order. */
const SAMPLES: ReadonlyArray<{ name: string; commands: string[][]; lines?: number }> = [
  { name: 'output:quant-tour', commands: [['signals', 'latest'], ['signals', 'forecast'], ['signals', 'backtest', '--start', '2017-01-01', '--end', '2025-11-26']] },
  { name: 'output:cron-status', commands: [['pipeline', 'status', '--limit', '1']] },
  { name: 'output:analyst-export', commands: [['signals', 'export', '--limit', '3']] },
];

const home = mkdtempSync(path.join(tmpdir(), 'tradeseal-readme-'));
// The embedded store of a new user: no DATABASE_URL, whatever the shell has.
const { DATABASE_URL: _ignored, ...inherited } = process.env;
const env = { ...inherited, TRADESEAL_HOME: home, NO_COLOR: '1', COLUMNS: '120' };

const tradeseal = (args: string[]): string =>
  execFileSync(process.execPath, [path.join(root, 'bin/dev.js'), ...args], { cwd: root, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** Each benchmark: its marker name, its npm script and its file; the results go to the temporary home, not bench/results. */
const BENCHES: ReadonlyArray<{ name: string; script: string; file: string }> = [
  { name: 'output:bench-signal', script: 'bench:signal', file: 'bench/signal.ts' },
  { name: 'output:bench-signal-seeds', script: 'bench:signal-seeds', file: 'bench/signal-seeds.ts' },
  { name: 'output:bench-pipeline', script: 'bench:pipeline', file: 'bench/pipeline.ts' },
];

const bench = (file: string, out: string): string =>
  execFileSync(process.execPath, ['--import', 'tsx', path.join(root, file), '--out', out], { cwd: root, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 16 << 20 })
    // The line naming the result file names a temporary path.
    .split('\n').filter((line) => !line.startsWith('written: ')).join('\n');

try {
  process.stderr.write(`a full pipeline run on a fresh store in ${home} …\n`);
  tradeseal(['pipeline', 'run', '--full', '--json']);
  const sections: Record<string, string> = {};
  for (const sample of SAMPLES) {
    const blocks = sample.commands.map((args) => `$ tradeseal ${args.join(' ')}\n${tradeseal(args).trimEnd()}`);
    sections[sample.name] = ['```', ...blocks, '```'].join('\n');
  }
  for (const b of BENCHES) {
    process.stderr.write(`npm run ${b.script} …\n`);
    sections[b.name] = ['```', `$ npm run ${b.script}`, bench(b.file, path.join(home, `${b.script}.json`)).trimEnd(), '```'].join('\n');
  }
  const readme = path.join(root, 'README.md');
  const before = readFileSync(readme, 'utf8');
  const after = replaceSections(before, sections);
  if (after !== before) writeFileSync(readme, after);
  console.log(after === before ? 'README.md outputs are up to date' : 'README.md outputs regenerated');
} finally {
  rmSync(home, { recursive: true, force: true });
}
