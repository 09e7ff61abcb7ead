/**
 * The published forecast as a typed table, for `tradeseal signals forecast --format csv|arrow|parquet`: one
 * row per forecast business day, in the order and with the names of the interface's `forecast` array
 * (`date`, `regime`, `confidence`, `risk_score`, `prob_expansion`, `prob_recovery`, `prob_tightening`,
 * `prob_risk_off`); `date` a date, `regime` a category, the rest float64.
 */
import { REGIMES } from '../../src/core/vocabulary.js';
import { columnarTable, type ColumnarTable, type ColumnSpec } from './columnar/table.js';
import type { ForecastRow } from './forecast.js';

const FORECAST_SPEC: ColumnSpec<ForecastRow>[] = [
  { name: 'date', type: 'date', value: (r) => r.date },
  { name: 'regime', type: 'category', categories: REGIMES, value: (r) => r.regime },
  { name: 'confidence', type: 'float64', value: (r) => r.confidence },
  { name: 'risk_score', type: 'float64', value: (r) => r.risk_score },
  { name: 'prob_expansion', type: 'float64', value: (r) => r.prob_expansion },
  { name: 'prob_recovery', type: 'float64', value: (r) => r.prob_recovery },
  { name: 'prob_tightening', type: 'float64', value: (r) => r.prob_tightening },
  { name: 'prob_risk_off', type: 'float64', value: (r) => r.prob_risk_off },
];

export const forecastTable = (rows: readonly ForecastRow[]): ColumnarTable => columnarTable(FORECAST_SPEC, rows);
