/**
 * The input rows as a run reads them, per series, for the input digests (`publish/input-digests.ts`): from the
 * view `pit` of a loaded frame (what the run used), or from a data directory loaded on its own (what
 * `pipeline check` compares with the published history).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { InputRow, InputRows } from '../publish/input-digests.js';
import { openDatabase, queryColumns } from './duckdb.js';
import { loadObservations } from './load.js';

/** Every row of `relation` (`obs` or `pit`), per series, ascending by date. */
export async function readInputRows(conn: DuckDBConnection, relation: 'obs' | 'pit'): Promise<InputRows> {
  const { numbers, strings, rows } = await queryColumns(
    conn,
    `
    SELECT series, strftime(date, '%Y-%m-%d') AS date, value, strftime(usable_from, '%Y-%m-%d') AS usable_from,
           open, dividend, split, split IS NOT NULL AS has_actions
    FROM ${relation} ORDER BY series, date`,
    ['series', 'date', 'usable_from'],
  );
  const out: Record<string, InputRow[]> = {};
  const series = strings.series ?? [];
  const dates = strings.date ?? [];
  const usable = strings.usable_from ?? [];
  const values = numbers.value ?? new Float64Array(rows);
  const none = new Float64Array(rows).fill(Number.NaN);
  const [opens, dividends, splits, hasActions] = (['open', 'dividend', 'split', 'has_actions'] as const).map((c) => numbers[c] ?? none) as [
    Float64Array,
    Float64Array,
    Float64Array,
    Float64Array,
  ];
  const orNull = (x: number): number | null => (Number.isNaN(x) ? null : x);
  for (let i = 0; i < rows; i++) {
    const id = series[i] as string;
    const row: InputRow = { date: dates[i] as string, value: orNull(values[i] as number), usableFrom: usable[i] as string };
    // A share's open and actions (layout ohlcv_actions) are part of what its published performance is computed from.
    if (hasActions[i] === 1) row.actions = { open: orNull(opens[i] as number), dividend: dividends[i] as number, split: splits[i] as number };
    (out[id] ??= []).push(row);
  }
  return out;
}

/** Validates and loads the files of `dataDir` (as a run does) and returns their rows. */
export async function loadInputRows(dataDir: string): Promise<InputRows> {
  const db = await openDatabase();
  try {
    await loadObservations(db.conn, dataDir);
    return await readInputRows(db.conn, 'obs');
  } finally {
    db.close();
  }
}
