/**
 * Benchmark of the CLI's start (`npm run bench:cli`): how long `tradeseal --version`, `--help`, `signals latest`
 * and `engine traces list` take as whole processes, from the compiled build (`node bin/run.js`, as an installed
 * `tradeseal` runs), next to the floor measured in the same run: `node -e 0`, the start of Node itself.
 * The two read commands run on an embedded store of their own (a fresh TRADESEAL_HOME, DATABASE_URL unset),
 * made and migrated by an unmeasured first run; `signals latest` answers not_found there (nothing published).
 * The commands and the floor are run in turns, round after round, so a machine that slows down slows them all.
 * Targets (the CLI start issue): `--version` and `--help` under 0.3 s, a local read command under 1 s, at the
 * median. The figures also go to `--out FILE` as JSON (default bench/results/cli-latest.json).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { renderTable } from '../src/cli/table.js';
import { EXIT } from '../src/core/errors.js';
import { resultPath, writeResult } from './support/result-file.js';

interface Case {
  name: string;
  argv: string[];
  /** Seconds, at the median; null for the floor. */
  target: number | null;
  /** The exit codes that mean the command did what is measured. */
  exits: number[];
}

const CASES: Case[] = [
  { name: 'floor: node -e 0', argv: ['-e', '0'], target: null, exits: [0] },
  { name: 'tradeseal --version', argv: ['bin/run.js', '--version'], target: 0.3, exits: [0] },
  { name: 'tradeseal --help', argv: ['bin/run.js', '--help'], target: 0.3, exits: [0] },
  { name: 'tradeseal signals latest', argv: ['bin/run.js', 'signals', 'latest'], target: 1, exits: [0, EXIT.notFound] },
  { name: 'tradeseal engine traces list', argv: ['bin/run.js', 'engine', 'traces', 'list'], target: 1, exits: [0] },
];

const { values } = parseArgs({ options: { runs: { type: 'string' }, out: { type: 'string' } } });
const runs = Number(values.runs ?? process.env.BENCH_RUNS ?? 7);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a whole number of at least 1, not ${values.runs}`);
const out = resultPath('cli', values.out);

const built = spawnSync(process.execPath, ['scripts/build-if-stale.js'], { stdio: 'inherit' });
if (built.status !== 0) throw new Error(`building dist/ for the CLI benchmark failed (exit ${built.status ?? built.signal})`);
// Without the manifest oclif loads every command at each start: the figures would not be those of the build.
if (!existsSync('oclif.manifest.json')) throw new Error('oclif.manifest.json is missing: `npm run build` makes it');

const home = mkdtempSync(path.join(os.tmpdir(), 'tradeseal-bench-cli-'));
const env: NodeJS.ProcessEnv = { ...process.env, TRADESEAL_HOME: home, NO_COLOR: '1' };
delete env.DATABASE_URL;

/** One run of `c` in its own process; its wall time in seconds. */
function once(c: Case): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, c.argv, { env, encoding: 'utf8', maxBuffer: 16 << 20 });
  const seconds = (performance.now() - t0) / 1000;
  if (!c.exits.includes(r.status ?? -1)) throw new Error(`${c.name} exited ${r.status ?? r.signal}: ${(r.stderr || r.stdout).slice(0, 500)}`);
  return seconds;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

try {
  // Unmeasured: the store made and migrated, files in the page cache.
  for (const c of CASES) once(c);
  const times = new Map<Case, number[]>(CASES.map((c) => [c, []]));
  for (let i = 0; i < runs; i++) for (const c of CASES) times.get(c)!.push(once(c));

  const floor = median(times.get(CASES[0]!)!);
  const rows = CASES.map((c) => {
    const t = times.get(c)!;
    const m = median(t);
    const verdict = c.target === null ? '' : m < c.target ? 'MET' : 'NOT MET';
    return { c, min: Math.min(...t), median: m, max: Math.max(...t), verdict };
  });
  console.log(`tradeseal CLI start benchmark: ${os.cpus().length} cores, Node ${process.version}, ${runs} runs of each after one unmeasured, in turns`);
  console.log(
    renderTable(
      ['command', 'median s', 'min s', 'max s', 'x floor', 'target', ''],
      rows.map((r) => [
        r.c.name,
        r.median.toFixed(3),
        r.min.toFixed(3),
        r.max.toFixed(3),
        (r.median / floor).toFixed(1),
        r.c.target === null ? '' : `< ${r.c.target} s`,
        r.verdict,
      ]),
    ),
  );
  console.log(
    `written: ${writeResult(out, {
      runs,
      floor_s: floor,
      commands: rows.map((r) => ({ command: r.c.name, median_s: r.median, min_s: r.min, max_s: r.max, target_s: r.c.target, verdict: r.verdict || null })),
    })}`,
  );
} finally {
  rmSync(home, { recursive: true, force: true });
}
