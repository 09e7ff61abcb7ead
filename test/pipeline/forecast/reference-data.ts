/**
 * Loads the reference data of test/pipeline/forecast/fixtures/ (fixtures/README.md gives the source of every
 * number): gretl's exact-ML ARMA(1,1) fits of statsmodels' simulated series `y_arma11` (no mean) and
 * `y_arma11c` (with a mean), with gretl's forecasts and their standard errors; and Stata's `arima, arima(1,1,1)`
 * fits, that is ARMA(1,1) fits of the first differences, of the wholesale price index `wpi1` and of the US CPI.
 */
import fs from 'node:fs';
import gretl from './fixtures/gretl_y_arma11.json' with { type: 'json' };
import stata from './fixtures/stata_arima111.json' with { type: 'json' };

export { gretl, stata };

export const fixturePath = (name: string): string => new URL(`./fixtures/${name}`, import.meta.url).pathname;

/** One column of a fixture CSV (no quotes, no empty cells), as numbers. */
export function fixtureColumn(file: string, column: string): number[] {
  const [header, ...lines] = fs.readFileSync(fixturePath(file), 'utf8').trim().split('\n');
  const at = header!.split(',').indexOf(column);
  if (at < 0) throw new Error(`${file} has no column ${column}`);
  return lines.map((line) => Number(line.split(',')[at]));
}

/** x_t − x_{t−1}, t = 2…n: Stata's `D.` operator, which `arima, arima(1,1,1)` fits an ARMA(1,1) to. */
export const difference = (x: readonly number[]): Float64Array => Float64Array.from(x.slice(1), (v, i) => v - x[i]!);

/**
 * The values as Stata held them: `insheet` and the `wpi1` dataset store these variables as `float`, so Stata
 * differenced the single-precision numbers (in double precision). At Stata's estimates, our log-likelihood of
 * the single-precision differences equals Stata's to 5e−12; of the decimal ones it is 2e−4 off for the CPI.
 */
export const asStataFloat = (x: readonly number[]): number[] => x.map(Math.fround);
