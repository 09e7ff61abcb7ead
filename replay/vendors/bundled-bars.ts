/**
 * The bundled market files (`data/macro/GSPC.csv`, `SPY.csv`, `GLD.csv`) as `DailyBar`s, the rows a market
 * vendor's server serves: the tests check that a source hands back exactly these numbers, and the replay tool
 * reveals them day by day. `GSPC.csv` (layout `ohlcv`) has no action columns: an index pays no dividend and
 * never splits, so its bars carry dividend 0 and split 1.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LAYOUTS, seriesSpec } from '../../pipeline/ingest/catalogue.js';
import type { DailyBar } from '../../pipeline/sources/market-source.js';

export const MARKET_SERIES = ['GSPC', 'SPY', 'GLD'] as const;

export const BUNDLED_DIR = fileURLToPath(new URL('../../data/macro/', import.meta.url));

/** What a market vendor has at the moment: the as-traded bars of a series, or `undefined` for one it lacks. */
export interface BarProvider {
  bars(series: string): readonly DailyBar[] | undefined;
}

/** The bars of a market file's text (header checked against the catalogue's layout). */
export function barsFromCsv(series: string, text: string): DailyBar[] {
  const spec = seriesSpec(series);
  if (spec.layout !== 'ohlcv' && spec.layout !== 'ohlcv_actions') throw new RangeError(`${series} is not a market series`);
  const [header, ...lines] = text.trimEnd().split('\n');
  const expected = LAYOUTS[spec.layout].header(series).join(',');
  if (header !== expected) throw new Error(`${spec.file}: header ${JSON.stringify(header)}, expected ${JSON.stringify(expected)}`);
  return lines.map((line) => {
    const [date = '', open, high, low, close, volume, dividend = '0', split = '1'] = line.split(',');
    return {
      date,
      open: Number(open),
      high: Number(high),
      low: Number(low),
      close: Number(close),
      volume: Number(volume),
      dividend: Number(dividend),
      split: Number(split),
    };
  });
}

/** Every market series of `dir` (default: the bundled `data/macro`), by series id. */
export async function loadBundledBars(dir: string = BUNDLED_DIR): Promise<Map<string, DailyBar[]>> {
  const out = new Map<string, DailyBar[]>();
  for (const series of MARKET_SERIES) out.set(series, barsFromCsv(series, await readFile(path.join(dir, seriesSpec(series).file), 'utf8')));
  return out;
}

/** A provider that serves fixed bars. */
export const fixedProvider = (bars: ReadonlyMap<string, readonly DailyBar[]>): BarProvider => ({ bars: (series) => bars.get(series) });
