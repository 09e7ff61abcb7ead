/**
 * An ARMA(1,1) fit and forecast of one column of a quant's own CSV file, for `tradeseal quant arima`: the
 * column read as numbers (columns.ts), checked as a series (../forecast/series.ts), fitted by exact maximum
 * likelihood (../forecast/fit.ts) and forecast with standard errors (../forecast/forecast.ts).
 *
 * A file that cannot be used says where: a missing (empty) or non-finite value is a `data_invalid` problem
 * naming the file, the line and the column, every one listed; a column too short or constant is a
 * `validation_failed` naming the file and the column, as is a fit that is not finite (values too far apart or
 * too close together for double precision); a column that is not there is columns.ts'
 * `data_invalid` with the header. The rows are fitted in date order (date-order.ts): a file that is newest
 * first is read backwards, one whose dates are out of order or repeated is `data_invalid`, naming the lines.
 * Pure: text in, values out; reading the file is the command's job.
 */
import { TradesealError, validationError } from '../../src/core/errors.js';
import { fitArma11 } from '../forecast/fit.js';
import { forecastArma11 } from '../forecast/forecast.js';
import { seriesProblems } from '../forecast/series.js';
import { readCsvRecords } from '../ingest/csv-records.js';
import { dataInvalidError, type Problem } from '../ingest/problems.js';
import { firstOtherColumn, readNumericColumns } from './columns.js';
import { dateOrder } from './date-order.js';

export const DEFAULT_HORIZON = 10;
export const MAX_HORIZON = 100;

export interface ArimaOptions {
  /** The column to fit; default: the first column not named date, time, timestamp, datetime or index. */
  column?: string;
  /** Estimate μ (default) or fix it at 0. */
  withMean?: boolean;
  /** Forecast steps, 1…MAX_HORIZON (default DEFAULT_HORIZON). */
  horizon?: number;
}

/** The command's answer: the fit and the forecasts (`mean` is 0 for a fit without a mean). */
export interface ArimaReport {
  n: number;
  mean: number;
  phi: number;
  theta: number;
  sigma2: number;
  loglik: number;
  forecast: number[];
  forecast_se: number[];
}

const HINT = 'the column must hold one number on every row (no empty cells), at least 10 of them, not all equal';
const RESCALE = 'rescale the column (multiply or divide it by a power of ten) so that its values and their differences lie between about 1e-100 and 1e100';

/** The column `arimaOfCsv` fits: `column` if given, else the first one that is not a date or time. */
export function chooseColumn(file: string, text: string, column?: string): string {
  if (column !== undefined) return column;
  const { header } = readNumericColumns(file, text, []);
  const chosen = firstOtherColumn(header);
  if (chosen === null) {
    throw validationError(
      [{ field: '--column', message: `${file} has no column other than a date or time (columns: ${header.join(', ') || 'none'})` }],
      `${file} has no column to fit`,
    );
  }
  return chosen;
}

/** The fit of a file, and whether its rows were read backwards (the file is newest first). */
export interface ArimaOfCsv {
  report: ArimaReport;
  newestFirst: boolean;
}

export function arimaOfCsv(file: string, text: string, options: ArimaOptions = {}): ArimaOfCsv {
  const horizon = options.horizon ?? DEFAULT_HORIZON;
  if (!Number.isInteger(horizon) || horizon < 1 || horizon > MAX_HORIZON) {
    throw validationError([{ field: '--horizon', message: `is ${horizon}; it must be a whole number from 1 to ${MAX_HORIZON}` }]);
  }
  const column = chooseColumn(file, text, options.column);
  const read = readNumericColumns(file, text, [column]).columns[column]!;
  assertUsable(file, text, column, read);
  const { newestFirst } = dateOrder(file, text);
  const y = newestFirst ? read.slice().reverse() : read;
  const fit = fitArma11(y, { withMean: options.withMean ?? true });
  assertFinite(file, column, y, fit);
  const fc = forecastArma11(y, fit, horizon);
  return {
    report: {
      n: fit.n,
      mean: fit.mean,
      phi: fit.phi,
      theta: fit.theta,
      sigma2: fit.sigma2,
      loglik: fit.loglik,
      forecast: Array.from(fc.mean),
      forecast_se: Array.from(fc.se),
    },
    newestFirst,
  };
}

/**
 * A fit whose numbers are not finite, or whose σ² is 0, says that the values' scale is beyond double
 * precision (the edge rule of series.ts bounds the large end; values so close together that their squared
 * differences underflow to 0 are the small end): said with the column's range and what to do, not as the
 * forecast's complaint about its model.
 */
function assertFinite(file: string, column: string, y: Float64Array, fit: { sigma2: number; loglik: number; mean: number }): void {
  if (fit.sigma2 > 0 && Number.isFinite(fit.sigma2) && Number.isFinite(fit.loglik) && Number.isFinite(fit.mean)) return;
  let min = Infinity;
  let max = -Infinity;
  for (const v of y) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const message = `its values (from ${min} to ${max}) give an innovation variance of ${fit.sigma2}: their scale is beyond what a double can fit`;
  throw new TradesealError('validation_failed', `${file}: column "${column}" cannot be fitted: ${message}`, {
    errors: [{ field: `${file} column "${column}"`, message }],
    hint: RESCALE,
  });
}

/** The series rules of ../forecast/series.ts, said in the file's terms (lines, the column). */
function assertUsable(file: string, text: string, column: string, y: Float64Array): void {
  const problems = seriesProblems(y);
  const atRows = problems.filter((p) => p.index !== null);
  if (atRows.length > 0) {
    // The lines and the cells as written: the data rows are the records after the header, in order.
    const { records } = readCsvRecords(text);
    const at = records[0]!.fields.map((h) => h.trim()).indexOf(column);
    const fileProblems: Problem[] = atRows.map((p) => {
      const record = records[p.index! + 1]!;
      const cell = (record.fields[at] ?? '').trim();
      const missing = Number.isNaN(p.value);
      const message = missing
        ? 'is empty (a missing value): an ARIMA fit needs a value on every row'
        : Number.isFinite(p.value)
          ? p.message
          : `is ${p.value} as a double, not a finite number`;
      return { file, line: record.line, subject: column, text: cell, date: null, rule: missing ? 'not_a_number' : 'out_of_bounds', message };
    });
    const tooLarge = atRows.some((p) => Number.isFinite(p.value));
    throw dataInvalidError(fileProblems, `${file}: column "${column}" cannot be fitted`, tooLarge ? RESCALE : HINT);
  }
  if (problems.length > 0) {
    const errors = problems.map((p) => ({ field: `${file} column "${column}"`, message: p.message }));
    throw new TradesealError('validation_failed', `${file}: column "${column}" cannot be fitted: it ${problems[0]!.message}`, { errors, hint: HINT });
  }
}
