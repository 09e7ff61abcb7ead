/**
 * Benchmark of the regime method's dependence on its seed (`npm run bench:signal-seeds`): the walk-forward a
 * full pipeline run makes on the bundled data (data/macro), once per seed (1 to 8 unless `--seeds` says
 * otherwise), and for each seed the regimes it would publish (`assemble`) and their evaluation as `npm run
 * bench:signal` makes it (`evaluate`, pipeline/reports/evaluate.ts; called, not copied, so the figures follow
 * the evaluation wherever it goes). Printed: the share of days on which every pair of seeds publishes the same
 * regime (the lowest pair, and each seed against the pipeline's default seed), each fit's log-likelihood
 * against the best any seed found for the same refit, and the in-sample and out-of-sample Sharpe and Calmar of
 * each seed with their spread (largest minus smallest). The verdict line states the target: every pair agrees
 * on at least 99 % of the days and each spread is at most 0.02; it is information, the exit code is 0.
 *
 * `--options JSON` overrides walk-forward options (research: another method's spread). Each seed runs in the
 * pipeline's model thread (walk-forward-thread.ts), whose fits screen their restarts on a second thread.
 * The figures also go to `--out FILE` as JSON (default bench/results/signal-seeds-latest.json).
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadFeatureFrame } from '../pipeline/features/frame.js';
import { DEFAULT_WALK_FORWARD, type WalkForwardOptions } from '../pipeline/model/walk-forward.js';
import { walkForwardOffThread } from '../pipeline/model/walk-forward-thread.js';
import { assemble } from '../pipeline/publish/assemble.js';
import { evaluate } from '../pipeline/reports/evaluate.js';
import { MODEL_VERSION } from '../pipeline/model/version.js';
import { renderTable } from '../src/cli/table.js';
import { SIGNAL_COST_BPS_DEFAULT } from '../src/core/config.js';
import { resultPath, writeResult } from './support/result-file.js';
import { agreement, fitShortfalls, spread, type SeedRun } from './support/seed-spread.js';

const { values } = parseArgs({ options: { out: { type: 'string' }, seeds: { type: 'string' }, options: { type: 'string' } } });
const out = resultPath('signal-seeds', values.out);
const seeds = (values.seeds ?? '1,2,3,4,5,6,7,8').split(',').map(Number);
if (seeds.some((s) => !Number.isInteger(s) || s < 0) || seeds.length < 2)
  throw new Error(`--seeds: expected at least two seeds, comma-separated, got ${values.seeds}`);
const overrides = JSON.parse(values.options ?? '{}') as Partial<WalkForwardOptions>;
const dataDir = path.resolve('data/macro');
const reference = DEFAULT_WALK_FORWARD.seed;

const started = performance.now();
const frame = await loadFeatureFrame(dataDir);
console.error(`[bench] feature frame: ${frame.dates.length} trading days; the walk-forward with seeds ${seeds.join(', ')}…`);
const runs: SeedRun[] = [];
for (const seed of seeds) {
  const t0 = performance.now();
  const model = await walkForwardOffThread(frame, { ...overrides, seed });
  const { signals, market } = assemble(frame, model.days);
  const evaluation = evaluate(signals, market, {}, SIGNAL_COST_BPS_DEFAULT);
  const w = evaluation.windows;
  runs.push({
    seed,
    regimes: new Map(signals.map((s) => [s.date, s.regime])),
    fits: model.fits.map((f) => ({ date: f.fit_date, logLikelihood: f.log_likelihood })),
    in_sample: { sharpe: w.in_sample.strategies.regime.sharpe, calmar: w.in_sample.strategies.regime.calmar },
    out_of_sample: { sharpe: w.out_of_sample.strategies.regime.sharpe, calmar: w.out_of_sample.strategies.regime.calmar },
  });
  console.error(`[bench] seed ${seed}: ${model.fits.length} refits, ${signals.length} days in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}
const seconds = (performance.now() - started) / 1000;

const pairs = agreement(runs, reference);
const shortfalls = fitShortfalls(runs);
const spreads = spread(runs);
const f2 = (x: number | null): string => (x === null ? '-' : x.toFixed(2));
const pct = (x: number): string => `${(100 * x).toFixed(2)} %`;

console.log(
  `tradeseal seed-spread benchmark: the regimes a full pipeline run on ${path.relative(process.cwd(), dataDir)} would publish with seeds ${seeds.join(', ')}, ${pairs.days} days, in ${seconds.toFixed(1)} s`,
);
console.log(`method: ${MODEL_VERSION}${values.options ? `, with ${values.options}` : ''}`);
console.log('');
console.log(
  renderTable(
    [
      'seed',
      `same regime as seed ${runs.some((r) => r.seed === reference) ? reference : '-'}`,
      'fits below the best',
      'worst shortfall (nats)',
      'IS sharpe',
      'IS calmar',
      'OOS sharpe',
      'OOS calmar',
    ],
    runs.map((r) => [
      String(r.seed),
      pairs.withReference.has(r.seed) ? pct(pairs.withReference.get(r.seed)!) : '-',
      `${shortfalls.get(r.seed)!.below} of ${r.fits.length}`,
      shortfalls.get(r.seed)!.worst.toFixed(2),
      f2(r.in_sample.sharpe),
      f2(r.in_sample.calmar),
      f2(r.out_of_sample.sharpe),
      f2(r.out_of_sample.calmar),
    ]),
  ),
);
console.log('');
console.log(
  `every pair of seeds: the same regime on at least ${pct(pairs.lowestPair.share)} of the days (lowest: seeds ${pairs.lowestPair.seeds.join(' and ')})`,
);
console.log(
  `refits on which some seed's fit is below the best any seed found (by more than 0.01 nats): ${shortfalls.refitsWithShortfall} of ${runs[0]!.fits.length}`,
);
console.log(
  `spread (largest − smallest): in-sample Sharpe ${f2(spreads.in_sample.sharpe)}, Calmar ${f2(spreads.in_sample.calmar)}; out-of-sample Sharpe ${f2(spreads.out_of_sample.sharpe)}, Calmar ${f2(spreads.out_of_sample.calmar)}`,
);
const holds = pairs.lowestPair.share >= 0.99 && [spreads.out_of_sample.sharpe, spreads.out_of_sample.calmar].every((s) => s !== null && s <= 0.02);
console.log(`target (every pair ≥ 99 %, out-of-sample Sharpe and Calmar within 0.02): ${holds ? 'met' : 'not met'}`);
console.log(
  `written: ${writeResult(out, {
    model_version: MODEL_VERSION,
    walk_forward: { ...DEFAULT_WALK_FORWARD, ...overrides },
    seeds,
    seconds,
    days: pairs.days,
    lowest_pair: pairs.lowestPair,
    with_reference: Object.fromEntries(pairs.withReference),
    refits_with_shortfall: shortfalls.refitsWithShortfall,
    runs: runs.map((r) => ({ seed: r.seed, in_sample: r.in_sample, out_of_sample: r.out_of_sample, fits_below_best: shortfalls.get(r.seed)!.below })),
    spread: spreads,
    target_met: holds,
  })}`,
);
