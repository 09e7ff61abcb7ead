/**
 * Loads the reference data of test/pipeline/hmm/fixtures/ (see the README there for the exact sources): the
 * quarterly federal funds rate 1954Q3–2010Q4, Stata's predicted, filtered and smoothed probabilities of the
 * two-regime switching-mean model, and statsmodels' regression-test values for the same model.
 */
import fs from 'node:fs';
import reference from './fixtures/statsmodels_fedfunds.json' with { type: 'json' };

export { reference };

const fixture = (name: string): string => fs.readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

export interface Quarter {
  quarter: string;
  rate: number;
}

/** The 226 quarters of `fedfunds.csv`. */
export function fedfunds(): Quarter[] {
  return fixture('fedfunds.csv')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => {
      const [quarter, rate] = line.split(',');
      return { quarter: quarter!, rate: Number(rate) };
    });
}

/** One row per quarter of Stata's `predict` output, keyed by the CSV's column names (numbers; NaN if empty). */
export function stataPredictions(): Record<string, number>[] {
  const [header, ...lines] = fixture('stata_fedfunds_predict.csv').trim().split('\n');
  const names = header!.split(',');
  return lines.map((line) => {
    const cells = line.split(',');
    return Object.fromEntries(names.map((name, i) => [name, cells[i] === '' ? Number.NaN : Number(cells[i])]));
  });
}
