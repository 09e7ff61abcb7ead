/**
 * A backtest's daily series as a typed table, for `tradeseal signals backtest --format csv|arrow|parquet`:
 * one row per trading day of the window with a return, oldest first, as pipeline/reports/strategy.ts
 * executes it: `date`, `held` (the regime whose exposure was taken at the day's open), `exposure`,
 * `exposure_gap` (held overnight into the day), `traded` (|exposure − exposure_gap|), `strategy_return`
 * (net of the cost), `benchmark_return` (buy-and-hold SPY executed the same way), `gold_return` (GLD close
 * to close, a reference; null where a close is missing), and `strategy_value` / `benchmark_value` (the value
 * of 100 invested at the base day's close, after the day's close). The performance figures of the backtest
 * are computed from exactly these returns.
 */
import { REGIMES } from '../../src/core/vocabulary.js';
import { columnarTable, type ColumnarTable, type ColumnSpec } from './columnar/table.js';
import { cumulative, type StrategyDay } from './strategy.js';

interface SeriesRow extends StrategyDay {
  strategy_value: number;
  benchmark_value: number;
}

const finite = (x: number): number | null => (Number.isFinite(x) ? x : null);

const SERIES_SPEC: ColumnSpec<SeriesRow>[] = [
  { name: 'date', type: 'date', value: (d) => d.date },
  { name: 'held', type: 'category', categories: REGIMES, value: (d) => d.held },
  { name: 'exposure', type: 'float64', value: (d) => d.exposure },
  { name: 'exposure_gap', type: 'float64', value: (d) => d.exposure_gap },
  { name: 'traded', type: 'float64', value: (d) => d.traded },
  { name: 'strategy_return', type: 'float64', value: (d) => finite(d.strategy) },
  { name: 'benchmark_return', type: 'float64', value: (d) => finite(d.market) },
  { name: 'gold_return', type: 'float64', value: (d) => finite(d.gold) },
  { name: 'strategy_value', type: 'float64', value: (d) => d.strategy_value },
  { name: 'benchmark_value', type: 'float64', value: (d) => d.benchmark_value },
];

export const SERIES_COLUMNS = SERIES_SPEC.map((c) => c.name);

export function backtestSeries(days: readonly StrategyDay[]): ColumnarTable {
  const strategy = cumulative(days.map((d) => d.strategy));
  const benchmark = cumulative(days.map((d) => d.market));
  return columnarTable(
    SERIES_SPEC,
    days.map((d, i) => ({ ...d, strategy_value: strategy[i + 1]!, benchmark_value: benchmark[i + 1]! })),
  );
}
