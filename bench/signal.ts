/**
 * Benchmark of the signal's quality (`npm run bench:signal`): the regimes a full pipeline run over the bundled
 * data (data/macro) would publish, judged as `tradeseal quant evaluate` judges the published ones
 * (pipeline/reports/evaluate.ts): the regime strategy against buy-and-hold SPY and the 200-day moving-average
 * rule on the same days, each regime taken at the first SPY open after its publication and every figure net of
 * the default cost per unit of exposure change (`SIGNAL_COST_BPS`'s default, 5 bp; pipeline/reports/execution.ts),
 * over the full window, in-sample 2007–2016, out-of-sample 2017–2025 and each calendar year, with the share of
 * days in each regime; then how sure the leads are (pipeline/reports/evaluation-uncertainty.ts: the stationary
 * bootstrap of the Sharpe and Calmar leads, and the deflated Sharpe ratio against data/research/variants.json).
 *
 * The regimes come from the functions a pipeline run uses, with their defaults: the feature frame
 * (`loadFeatureFrame`), the walk-forward (`walkForward`) and the published rows (`assemble`: each day's
 * `regime`, and the SPY opens and closes of `market`), so a change of the pipeline's method shows here without a change
 * of this file. No store, no database. The verdict line is information; the exit code is 0 whatever it says.
 * The figures also go to `--out FILE` as JSON (default bench/results/signal-latest.json).
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadFeatureFrame } from '../pipeline/features/frame.js';
import { DEFAULT_WALK_FORWARD, walkForward } from '../pipeline/model/walk-forward.js';
import { assemble } from '../pipeline/publish/assemble.js';
import { evaluate } from '../pipeline/reports/evaluate.js';
import { EVALUATION_WINDOWS } from '../pipeline/reports/evaluation-windows.js';
import { loadResearchTrials } from '../pipeline/reports/research-trials.js';
import { MODEL_VERSION } from '../pipeline/model/version.js';
import { renderEvaluation } from '../src/cli/evaluation-view.js';
import { SIGNAL_COST_BPS_DEFAULT } from '../src/core/config.js';
import { resultPath, writeResult } from './support/result-file.js';

const { values } = parseArgs({ options: { out: { type: 'string' } } });
const out = resultPath('signal', values.out);
const dataDir = path.resolve('data/macro');

const started = performance.now();
const frame = await loadFeatureFrame(dataDir);
console.error(
  `[bench] feature frame: ${frame.dates.length} trading days, ${frame.dates[0]} to ${frame.dates.at(-1)}; the walk-forward with its default options…`,
);
const model = walkForward(frame);
const { signals, market } = assemble(frame, model.days);
const evaluated = performance.now();
const evaluation = evaluate(signals, market, {}, SIGNAL_COST_BPS_DEFAULT, { trials: loadResearchTrials() });
const statisticsSeconds = (performance.now() - evaluated) / 1000;
const seconds = (performance.now() - started) / 1000;

console.log(
  `tradeseal signal-quality benchmark: the regimes a full pipeline run on ${path.relative(process.cwd(), dataDir)} would publish, ${signals.length} days (${signals[0]?.date ?? '-'} to ${signals.at(-1)?.date ?? '-'}), ${model.fits.length} refits in ${seconds.toFixed(1)} s`,
);
console.log(`method: ${MODEL_VERSION}`);
console.log(`evaluation with its bootstrap and deflated Sharpe ratio: ${statisticsSeconds.toFixed(1)} s`);
console.log('');
console.log(renderEvaluation(evaluation));
console.log(
  `written: ${writeResult(out, {
    model_version: MODEL_VERSION,
    walk_forward: DEFAULT_WALK_FORWARD,
    data: {
      dir: path.relative(process.cwd(), dataDir),
      input_sha256: frame.vintage.inputSha256,
      published_days: signals.length,
      first_day: signals[0]?.date ?? null,
      last_day: signals.at(-1)?.date ?? null,
    },
    windows: EVALUATION_WINDOWS,
    seconds,
    statistics_seconds: statisticsSeconds,
    evaluation,
  })}`,
);
