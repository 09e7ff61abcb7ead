/**
 * The benchmark blocks of the documentation (`<!-- output:NAME:start inputs=sha256:… -->`): which npm script
 * makes each, and which files decide its deterministic figures (the days, the regimes, the Sharpe ratios; not
 * its timings). A benchmark takes minutes, so the check does not rerun it: it recomputes the digest of those
 * files and fails when it differs from the one recorded when the block was last regenerated
 * (`npm run docs:update -- --benchmarks`).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export interface Benchmark {
  /** The marker name: `output:NAME:start`. */
  name: string;
  /** The npm script a reader runs, shown as the block's command line. */
  script: string;
  /** Its entry file, run through tsx. */
  file: string;
  /** Globs relative to the package root (`*` within a directory, `**` any depth) of the files its figures depend on. */
  inputs: readonly string[];
}

/** What every signal-quality figure is computed from: the pipeline on the bundled data, and how it is printed. */
const SIGNAL_INPUTS = ['pipeline/**', 'data/macro/**', 'data/research/**', 'src/core/vocabulary.ts', 'src/cli/evaluation-view.ts', 'src/cli/table.ts'];

export const BENCHMARKS: readonly Benchmark[] = [
  { name: 'bench-signal', script: 'bench:signal', file: 'bench/signal.ts', inputs: ['bench/signal.ts', 'bench/support/result-file.ts', ...SIGNAL_INPUTS] },
  { name: 'bench-signal-seeds', script: 'bench:signal-seeds', file: 'bench/signal-seeds.ts', inputs: ['bench/signal-seeds.ts', 'bench/support/seed-spread.ts', 'bench/support/result-file.ts', ...SIGNAL_INPUTS] },
  // Its figures are timings; what is deterministic (the days published, the last day) follows the pipeline, the data and the store's schema.
  // A month of nights on simulated time: what it shows follows the pipeline, the data, the replay and the services it calls.
  { name: 'replay-month', script: 'replay', file: 'scripts/replay.ts', inputs: ['scripts/replay.ts', 'replay/**', 'pipeline/**', 'data/macro/**', 'src/**'] },
  // The run is the signal service's publishing (src/signals/publish/) over the pipeline's stages, from the build of src/.
  // Its figures are timings; which commands it runs, and how, follow the CLI's sources, its entry points and the build.
  { name: 'bench-cli', script: 'bench:cli', file: 'bench/cli.ts', inputs: ['bench/cli.ts', 'bench/support/result-file.ts', 'bin/**', 'commands/**', 'src/**', 'scripts/build.js', 'scripts/build-sources.js', 'package.json'] },
  // Its figures are timings; which loads it runs, and how, follow its scripts, the server it starts and the engine's sources.
  {
    name: 'bench-hot-agent',
    script: 'bench:hot-agent',
    file: 'bench/hot-agent.ts',
    inputs: ['bench/hot-agent.ts', 'bench/irl/**', 'bench/support/hot-agent-report.ts', 'bench/support/server.ts', 'bench/support/pg.ts', 'bench/engine-server.ts', 'data/policy/**', 'src/**'],
  },
  { name: 'bench-pipeline', script: 'bench:pipeline', file: 'bench/pipeline.ts', inputs: ['bench/pipeline.ts', 'bench/support/pg.ts', 'bench/support/result-file.ts', 'pipeline/**', 'data/macro/**', 'src/**'] },
];

const IGNORED_DIRS = new Set(['node_modules', 'dist', '.git']);

function globRegExp(glob: string): RegExp {
  const re = glob
    .split('/')
    .map((part) => (part === '**' ? '(?:.+)' : part.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]')))
    .join('/');
  return new RegExp(`^${re}$`);
}

function walk(root: string, dir: string, out: string[]): void {
  let entries;
  try {
    entries = readdirSync(path.join(root, dir), { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const rel = dir ? `${dir}/${e.name}` : e.name;
    if (e.isDirectory()) {
      if (!IGNORED_DIRS.has(e.name)) walk(root, rel, out);
    } else if (e.isFile()) out.push(rel);
  }
}

/** The files under `root` matching any of the globs, sorted, as `/`-separated paths relative to `root`. */
export function matchFiles(root: string, globs: readonly string[]): string[] {
  const files = new Set<string>();
  for (const glob of globs) {
    // Walk only the directory before the first wildcard.
    const fixed = glob.split('/');
    const stop = fixed.findIndex((p) => /[*?]/.test(p));
    const base = stop < 0 ? fixed.slice(0, -1).join('/') : fixed.slice(0, stop).join('/');
    const re = globRegExp(glob);
    const found: string[] = [];
    if (stop < 0) {
      try {
        if (statSync(path.join(root, glob)).isFile()) found.push(glob);
      } catch {
        // a file that is not there has no digest
      }
    } else walk(root, base, found);
    for (const f of found) if (re.test(f)) files.add(f);
  }
  return [...files].sort();
}

/**
 * `sha256:<hex>` over the sorted files: for each, its path, a NUL, the SHA-256 of its content, a newline. A
 * renamed, added or removed file changes it as an edited one does.
 */
export function inputsDigest(root: string, globs: readonly string[]): string {
  const hash = createHash('sha256');
  for (const f of matchFiles(root, globs)) hash.update(`${f}\0${createHash('sha256').update(readFileSync(path.join(root, f))).digest('hex')}\n`);
  return `sha256:${hash.digest('hex')}`;
}

/**
 * Runs a benchmark as `npm run <script>` does, its result file in `scratchDir`, and returns the block to show:
 * a fenced transcript under the npm command line, without the line naming the (temporary) result file.
 */
export function runBenchmark(root: string, b: Benchmark, scratchDir: string, env: NodeJS.ProcessEnv): string {
  const printed = execFileSync(process.execPath, ['--import', 'tsx', path.join(root, b.file), '--out', path.join(scratchDir, `${b.name}.json`)], {
    cwd: root,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 16 << 20,
  });
  const output = printed.split('\n').filter((line) => !line.startsWith('written: ')).join('\n').trimEnd();
  return ['```', `$ npm run ${b.script}`, output, '```'].join('\n');
}
