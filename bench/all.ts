/**
 * Every benchmark, one after another, then one table (`npm run bench`): bench/engine.ts, bench/hot-agent.ts, bench/pipeline.ts,
 * bench/signals.ts, bench/quant.ts, bench/signal.ts and bench/dropcopy.ts each run in a process of their own, print
 * their own report and write their JSON (`--out`, into `--results DIR`); then each route or stage is listed with its
 * figure, the floor measured in the same run, the ratio to that floor and the target where one exists
 * (bench/support/summary.ts), and the table goes to `all-latest.json` too. The signal-quality benchmark's floor is
 * the 200-day moving-average rule, evaluated on the same days; the drop copy's, its rows inserted in batches, and
 * authorize without the stream.
 *
 *   npm run bench                                  # every benchmark, each with its defaults
 *   npm run bench -- --seconds 5                   # shorter load runs (engine, signals, dropcopy)
 *   npm run bench -- --only engine,signals --seconds 5 --modes non-durable
 *
 * Flags: `--only LIST` (default engine,hot-agent,pipeline,signals,quant,signal,dropcopy), `--results DIR` (default
 * bench/results); the rest are passed through: `--seconds` and `--connections` to engine, hot-agent, signals and
 * dropcopy, `--pool` to engine, hot-agent and signals, every other flag (with its value) to the engine, which refuses one it does not know. A benchmark that fails is reported in the
 * table and makes the exit code 1; the others still run.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeResult } from './support/result-file.js';
import { planBenchmarks } from './support/all-flags.js';
import { renderSummary, summaryRows, type BenchmarkName, type BenchmarkOutcome } from './support/summary.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
function run(name: BenchmarkName, args: string[]): Promise<number> {
  process.stderr.write(`\n[bench] ===== ${name}: ${['bench/' + name + '.ts', ...args].join(' ')}\n`);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join('bench', `${name}.ts`), ...args], { cwd: REPO, stdio: 'inherit' });
    child.on('error', () => resolve(1));
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

async function main(): Promise<void> {
  const p = planBenchmarks(process.argv.slice(2), path.join(REPO, 'bench/results'));
  const outcomes: Array<[BenchmarkName, BenchmarkOutcome]> = [];
  const runs: Array<{ benchmark: BenchmarkName; exit_code: number; seconds: number; out: string }> = [];
  for (const name of p.only) {
    const out = path.join(p.results, `${name}-latest.json`);
    // A file left by an earlier run must not pass for this one's.
    rmSync(out, { force: true });
    const started = performance.now();
    const code = await run(name, ['--out', out, ...p.flags[name]]);
    runs.push({ benchmark: name, exit_code: code, seconds: (performance.now() - started) / 1000, out: path.relative(REPO, out) });
    if (!existsSync(out)) outcomes.push([name, { missing: code === 0 ? 'it wrote no JSON' : `it failed (exit code ${code})` }]);
    else outcomes.push([name, { json: JSON.parse(readFileSync(out, 'utf8')) as unknown }]);
  }
  const rows = summaryRows(outcomes);
  console.log('\ntradeseal benchmarks: every figure next to the floor measured in the same run, on the same machine');
  console.log(
    `machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), Node ${process.version}; ` +
      `durations: ${runs.map((r) => `${r.benchmark} ${r.seconds.toFixed(0)} s${r.exit_code === 0 ? '' : ` (exit ${r.exit_code})`}`).join(', ')}`,
  );
  console.log(renderSummary(rows));
  console.log(
    "x floor: req/s over the floor's req/s, or ms over the floor's ms (pipeline: no floor; signal: the 200-day rule on the same days, no ratio; dropcopy: fills/s over rows/s inserted, authorize with the stream over without). Targets are information, never a failure.",
  );
  console.log(`written: ${writeResult(path.join(p.results, 'all-latest.json'), { runs, rows })}`);
  if (runs.some((r) => r.exit_code !== 0)) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
