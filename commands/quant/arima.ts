import fs from 'node:fs';
import path from 'node:path';
import { Args, Flags } from '@oclif/core';
import { TradesealCommand } from '../../src/cli/base-command.js';
import { renderTable } from '../../src/cli/table.js';
import { reportStyle } from '../../src/cli/table-flags.js';
import { wrapText } from '../../src/cli/wrap.js';
import { dataInvalidError } from '../../pipeline/ingest/problems.js';
import { arimaOfCsv, chooseColumn, DEFAULT_HORIZON, MAX_HORIZON, type ArimaReport } from '../../pipeline/quant/arima.js';

/** Seven significant digits (the table's columns line up). */
const num = (x: number): string => x.toPrecision(7);

export default class QuantArima extends TradesealCommand {
  static override summary = 'Fit an ARMA(1,1) to a column of a CSV file by exact maximum likelihood, and forecast it';
  static override description = `Fits y_t − μ = φ(y_{t−1} − μ) + ε_t + θε_{t−1} (ARIMA(1,0,1); σ² the innovation variance) by exact Gaussian maximum likelihood, the Kalman-filter likelihood of every observation that gretl, Stata and statsmodels maximise, and forecasts 1 to --horizon steps past the last row with their standard errors. The file needs a header row and one row per observation in time order: with a date column (date, time, timestamp or datetime) it may be oldest or newest first (as \`tradeseal signals export\` writes it; the rows are then read backwards, said on stderr), and dates out of order or repeated are data_invalid naming the lines; the column must have a number on every row (at least 10, not all equal). Prints the estimates and a table of forecasts; --json prints {n, mean, phi, theta, sigma2, loglik, forecast, forecast_se}. An unusable file is data_invalid or validation_failed (exit 2), naming the line or the column.`;
  static override examples = [
    '<%= config.bin %> quant arima returns.csv',
    '<%= config.bin %> quant arima prices.csv --column spread --horizon 20',
    '<%= config.bin %> quant arima residuals.csv --no-mean --json',
  ];
  static override args = { file: Args.string({ description: 'The CSV file: a header row, then one row per observation', required: true }) };
  static override flags = {
    column: Flags.string({ summary: 'The column to fit (default: the first column not named date or time)' }),
    mean: Flags.boolean({ summary: 'Estimate the mean μ; --no-mean fixes it at 0', default: true, allowNo: true }),
    horizon: Flags.integer({ summary: `Forecast steps, 1 to ${MAX_HORIZON}`, default: DEFAULT_HORIZON, min: 1, max: MAX_HORIZON }),
  };

  async run(): Promise<ArimaReport> {
    const { args, flags } = await this.parse(QuantArima);
    const name = path.basename(args.file);
    let text: string;
    try {
      text = fs.readFileSync(args.file, 'utf8');
    } catch (err) {
      const reason = (err as NodeJS.ErrnoException).code ?? 'error';
      throw dataInvalidError(
        [{ file: name, line: 0, subject: 'file', text: args.file, date: null, rule: 'unreadable', message: `cannot be read (${reason})` }],
        `${args.file} cannot be read`,
        'check the path',
      );
    }
    const column = chooseColumn(name, text, flags.column);
    const { report, newestFirst } = arimaOfCsv(name, text, { column, withMean: flags.mean, horizon: flags.horizon });
    // On stderr even under --json: it says how the answer was computed, and stdout carries the answer alone.
    if (newestFirst) process.stderr.write('rows sorted by date (the file is newest first)\n');
    const style = reportStyle({}, undefined, '--json');
    this.log(
      wrapText(
        `ARMA(1,1) ${flags.mean ? 'with a mean' : 'without a mean'}, exact maximum likelihood: ${report.n} observations of "${column}" in ${name}`,
        style.width,
      ),
    );
    this.log(
      wrapText(
        `  mean ${num(report.mean)}  phi ${num(report.phi)}  theta ${num(report.theta)}  sigma2 ${num(report.sigma2)}  loglik ${num(report.loglik)}`,
        style.width,
      ),
    );
    this.log('');
    this.log(
      renderTable(
        ['step', 'forecast', 'std. error'],
        report.forecast.map((f, i) => [i + 1, num(f), num(report.forecast_se[i]!)]),
        style,
      ),
    );
    return report;
  }
}
