/**
 * The CSV export of the interface: one row per published day, newest first, in the interface's column order
 * `date, regime, risk_score, equity_exposure, prob_expansion, prob_recovery, prob_tightening, prob_risk_off`,
 * then `available_at` (when the day was published, ISO-8601 UTC; empty for days published before release-time
 * data), added last so readers of the interface's columns by position are unaffected; `equity_exposure` as a
 * number (the exposure the day's regime suggests: 1, 0.75, 0.25 or 0; docs/decisions/0022-equity-exposure.md).
 * Numbers are written in full (JavaScript's shortest round-trip form), so the file reloads to the same
 * doubles. Written with csv-stringify, RFC 4180, `\n` line ends, a header row.
 */
import { stringify } from 'csv-stringify/sync';
import { REGIMES, type Regime } from '../../src/core/vocabulary.js';
import { EXPOSURE } from '../regime/signals.js';
import { columnarTable, type ColumnarTable, type ColumnSpec } from './columnar/table.js';

export const EXPORT_COLUMNS = [
  'date',
  'regime',
  'risk_score',
  'equity_exposure',
  'prob_expansion',
  'prob_recovery',
  'prob_tightening',
  'prob_risk_off',
  'available_at',
] as const;

/** How many rows an export has unless asked otherwise (the interface's default). */
export const EXPORT_DEFAULT_LIMIT = 730;

export interface ExportSource {
  date: string;
  regime: Regime;
  risk_score: number;
  prob_expansion: number;
  prob_recovery: number;
  prob_tightening: number;
  prob_risk_off: number;
  available_at: string | null;
}

/** One CSV line per row (no header), in the given order. */
export function exportLines(rows: readonly ExportSource[]): string {
  return stringify(
    rows.map((r) => [
      r.date,
      r.regime,
      r.risk_score,
      EXPOSURE[r.regime],
      r.prob_expansion,
      r.prob_recovery,
      r.prob_tightening,
      r.prob_risk_off,
      r.available_at ?? '',
    ]),
    {
      cast: { number: (n) => String(n) },
      record_delimiter: 'unix',
    },
  );
}

export const exportHeader = (): string => `${EXPORT_COLUMNS.join(',')}\n`;

/** The whole file: the header, then the rows. */
export const exportCsv = (rows: readonly ExportSource[]): string => exportHeader() + exportLines(rows);

/**
 * The same rows and columns as a typed table, for the Arrow and Parquet exports: `date` a date, `regime` a
 * category, the numbers float64, `available_at` a UTC timestamp (null where the CSV has it empty).
 */
const EXPORT_SPEC: ColumnSpec<ExportSource>[] = [
  { name: 'date', type: 'date', value: (r) => r.date },
  { name: 'regime', type: 'category', categories: REGIMES, value: (r) => r.regime },
  { name: 'risk_score', type: 'float64', value: (r) => r.risk_score },
  { name: 'equity_exposure', type: 'float64', value: (r) => EXPOSURE[r.regime] },
  { name: 'prob_expansion', type: 'float64', value: (r) => r.prob_expansion },
  { name: 'prob_recovery', type: 'float64', value: (r) => r.prob_recovery },
  { name: 'prob_tightening', type: 'float64', value: (r) => r.prob_tightening },
  { name: 'prob_risk_off', type: 'float64', value: (r) => r.prob_risk_off },
  { name: 'available_at', type: 'timestamp', value: (r) => r.available_at },
];

export const exportTable = (rows: readonly ExportSource[]): ColumnarTable => columnarTable(EXPORT_SPEC, rows);
