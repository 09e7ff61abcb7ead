/**
 * The feature stage's entry point: CSV files in, a point-in-time daily feature frame out, as typed arrays
 * for the TypeScript stages (PCA, HMM, backtest).
 *
 *   loadFeatureFrame(dataDir, asOf?) → { dates, columns, vintage, completeFrom, inputs }
 *
 * Steps, all in one in-memory DuckDB: load `obs` (ingest/load.ts) → view `pit` (rows usable as of the
 * cut) → `calendar` → `levels` → `liquidity` → `momentum`. `asOf` removes every row whose `usable_from`
 * is after it, so the frame is what a run on that evening would have computed; since every feature uses
 * trailing windows only, each day's row is the same whatever later data exist (the no-look-ahead tests).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { buildCalendar, type CalendarBounds } from '../calendar.js';
import { isIsoDate } from '../ingest/catalogue.js';
import { openDatabase, queryColumns, sqlDate } from '../ingest/duckdb.js';
import { readInputRows } from '../ingest/input-rows.js';
import { withObservations } from '../ingest/load.js';
import type { InputRows } from '../publish/input-digests.js';
import { FEATURE_COLUMNS } from './columns.js';
import { dollarSpliceWarning, LEVELS_SQL } from './levels.js';
import { LIQUIDITY_SQL } from './liquidity.js';
import { MOMENTUM_SQL } from './momentum.js';
import { TREND_SQL } from './trend.js';
import { describeVintage, type Vintage } from './vintage.js';
import { readFetchRecord } from '../fetch/fetch-record.js';

export interface FeatureFrame {
  /** Trading days, ISO `YYYY-MM-DD`, ascending. */
  dates: string[];
  /** One array per FEATURE_COLUMNS entry, aligned with `dates`; NaN where no value exists. */
  columns: Record<string, Float64Array>;
  vintage: Vintage;
  /** First date on which every non-optional column is a number (trailing windows full); null if none. */
  completeFrom: string | null;
  /** The input rows usable as of the cut, per series: what the run's input digests are made of. */
  inputs: InputRows;
}

/**
 * Creates `pit`, `calendar`, `levels`, `liquidity` and `momentum` from a loaded `obs` table. Returns the
 * calendar's bounds and the data warnings for the vintage.
 */
export async function buildFeatureTables(conn: DuckDBConnection, asOf: string | null): Promise<{ bounds: CalendarBounds; warnings: string[] }> {
  await conn.run(`CREATE OR REPLACE TEMP VIEW pit AS SELECT * FROM obs${asOf === null ? '' : ` WHERE usable_from <= ${sqlDate(asOf)}`}`);
  const bounds = await buildCalendar(conn);
  const splice = await dollarSpliceWarning(conn);
  await conn.run(LEVELS_SQL);
  await conn.run(LIQUIDITY_SQL);
  await conn.run(MOMENTUM_SQL);
  await conn.run(TREND_SQL);
  return { bounds, warnings: splice ? [splice] : [] };
}

/** SELECT of the frame's columns, in FEATURE_COLUMNS order. */
export const FRAME_SQL = `
SELECT strftime(date, '%Y-%m-%d') AS date,
       ${FEATURE_COLUMNS.map((c) => `${c.table}.${c.name} AS ${c.name}`).join(',\n       ')}
FROM levels JOIN liquidity USING (date) JOIN momentum USING (date) JOIN trend USING (date)
ORDER BY date`;

function firstComplete(dates: readonly string[], columns: Record<string, Float64Array>): string | null {
  const required = FEATURE_COLUMNS.filter((c) => !c.optional).map((c) => columns[c.name] as Float64Array);
  for (let i = 0; i < dates.length; i++) {
    if (required.every((values) => Number.isFinite(values[i]))) return dates[i] ?? null;
  }
  return null;
}

/** Reads the frame from the tables `buildFeatureTables` made. */
export async function readFeatureFrame(conn: DuckDBConnection): Promise<Pick<FeatureFrame, 'dates' | 'columns' | 'completeFrom'>> {
  const { numbers, strings } = await queryColumns(conn, FRAME_SQL, ['date']);
  const dates = strings.date ?? [];
  return { dates, columns: numbers, completeFrom: firstComplete(dates, numbers) };
}

export async function loadFeatureFrame(dataDir: string, asOf?: string): Promise<FeatureFrame> {
  if (asOf !== undefined && !isIsoDate(asOf)) throw new RangeError(`asOf must be an ISO date YYYY-MM-DD, got ${JSON.stringify(asOf)}`);
  const db = await openDatabase();
  // Where each file came from, read while the files load.
  const record = readFetchRecord(dataDir);
  record.catch(() => undefined);
  try {
    // The features are computed while the files are validated; the frame is returned only if they are valid.
    return await withObservations(db.conn, dataDir, async (inputs) => {
      const { bounds, warnings } = await buildFeatureTables(db.conn, asOf ?? null);
      const frame = await readFeatureFrame(db.conn);
      const vintage = await describeVintage(db.conn, inputs, bounds, asOf ?? null, warnings, await record);
      return { ...frame, vintage, inputs: await readInputRows(db.conn, 'pit') };
    });
  } finally {
    db.close();
  }
}
