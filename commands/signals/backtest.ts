import { Flags } from '@oclif/core';
import { TradesealCommand } from '../../src/cli/base-command.js';
import { refuseTerminal, toStdout, writeOut } from '../../src/cli/export-output.js';
import { checkOutputFile } from '../../src/core/file-errors.js';
import { validationError } from '../../src/core/errors.js';
import { EXPORT_FORMATS, encodeTable, type ExportFormat } from '../../pipeline/reports/columnar/formats.js';
import { backtestSeries, SERIES_COLUMNS } from '../../pipeline/reports/backtest-series.js';
import { chartsWanted, lineChart } from '../../src/cli/charts.js';
import { checkRequest } from '../../src/cli/engine-input.js';
import { callService, remoteFlags, remoteOf } from '../../src/cli/signals-client.js';
import { renderPerformance, renderRegimeDistribution } from '../../src/cli/quant-view.js';
import { reportFlags, reportStyle } from '../../src/cli/table-flags.js';
import { wrapText } from '../../src/cli/wrap.js';
import { calendarDateFlag } from '../../src/cli/instant.js';
import { backtestBody } from '../../src/signals/inputs.js';
import { backtest, type Backtest } from '../../src/signals/ops/backtest.js';

export default class SignalsBacktest extends TradesealCommand {
  static override summary = 'Backtest the published regimes between two dates: the summary, and the regime strategy against buy-and-hold';
  static override description = `The interface's summary over the regimes published in the window (total_days, transitions, avg_persistence_days, mean_risk_score, regime_distribution in percent), and the regime strategy (the weight of each published regime, expansion 1, recovery 0.75, tightening 0.25, risk_off 0, taken as SPY exposure at the first open after its publication at 06:30 New York on the next trading day, marked to market at the closes, net of SIGNAL_COST_BPS per unit of exposure change) against buy-and-hold SPY executed the same way over the same days, with empyrical's figures. On a terminal, a chart of both from 100. Both dates are inclusive and required, as the API requires them. --format csv|arrow|parquet writes the daily series instead (${SERIES_COLUMNS.join(', ')}; oldest first, the figures are computed from these returns) to standard output (arrow and parquet only when it is not a terminal); --out FILE writes it to a file atomically (csv unless --format says otherwise) and still shows the summary. The daily series is computed from the local store (not with --url).`;
  static override examples = [
    '<%= config.bin %> signals backtest --start 2020-01-02 --end 2020-12-31',
    '<%= config.bin %> signals backtest --start 2007-01-03 --end 2025-11-26 --json',
    '<%= config.bin %> signals backtest --start 2007-01-03 --end 2025-11-26 --format parquet --out backtest.parquet',
  ];
  static override flags = {
    start: calendarDateFlag({ summary: 'First day, YYYY-MM-DD (inclusive)', required: true }),
    end: calendarDateFlag({ summary: 'Last day, YYYY-MM-DD (inclusive)', required: true }),
    format: Flags.string({
      summary: 'Write the daily series as csv, arrow (Apache Arrow IPC file) or parquet instead of the summary',
      options: [...EXPORT_FORMATS],
    }),
    out: Flags.string({ summary: 'Write the daily series to this file (and show the summary)', aliases: ['output'], helpValue: 'FILE' }),
    ...remoteFlags,
    ...reportFlags,
  };

  async run(): Promise<Omit<Backtest, 'days'>> {
    const { flags } = await this.parse(SignalsBacktest);
    const range = checkRequest<{ start: string; end: string }>(backtestBody, { start: flags.start, end: flags.end }, 'body');
    const format = (flags.format ?? (flags.out === undefined ? undefined : 'csv')) as ExportFormat | undefined;
    if (format !== undefined) {
      refuseTerminal(format, flags.out);
      if (flags.out === undefined && this.jsonEnabled()) {
        throw validationError([
          { field: '--json', message: 'needs --out FILE with --format: the series goes to the file, the JSON answer to standard output' },
        ]);
      }
      if (flags.out !== undefined) await checkOutputFile(flags.out, '--out');
    }
    const remote = await remoteOf(flags, this.settings);
    if (remote && format !== undefined) {
      throw validationError([
        {
          field: flags.format === undefined ? '--out' : '--format',
          message: 'the daily series is computed from the local store; the service (POST /v1/backtest) answers the summary and the figures',
        },
      ]);
    }
    // The service answers the summary and the figures; the curve for the chart is computed here only locally.
    const result: Backtest = remote
      ? {
          ...(await callService<Omit<Backtest, 'curve' | 'days'>>(remote, 'POST', '/v1/backtest', { body: range })),
          curve: { dates: [], strategy: [], buy_and_hold: [] },
          days: [],
        }
      : await this.withStore((store) => backtest(store.sql, range, this.settings.signalCostBps));
    const { days, ...answer } = result;
    if (format !== undefined) {
      const bytes = await encodeTable(format, backtestSeries(days));
      if (flags.out === undefined) {
        await toStdout(bytes);
        return answer;
      }
      const out = flags.out;
      await writeOut(out, (append) => append(bytes));
      this.logToStderr(`wrote ${days.length} days to ${out}`);
    }
    const s = result.summary;
    const style = reportStyle(flags);
    this.log(
      wrapText(
        `backtest ${result.start} to ${result.end}: ${s.total_days} trading days, ${s.transitions} transitions, persistence ${s.avg_persistence_days.toFixed(1)} days on average, mean risk score ${s.mean_risk_score.toFixed(3)}`,
        style.width,
      ),
    );
    this.log(wrapText(renderRegimeDistribution(s.regime_distribution), style.width));
    this.log(`\n${wrapText(renderPerformance(result.performance, style), style.width)}`);
    if (chartsWanted(this.jsonEnabled()) && result.curve.dates.length > 1) {
      this.log(
        `\n${lineChart(
          [
            { label: 'regime strategy', values: result.curve.strategy },
            { label: 'buy-and-hold SPY', values: result.curve.buy_and_hold },
          ],
          { title: 'value of 100 invested', from: result.curve.dates[0]!, to: result.curve.dates.at(-1)!, format: (x) => x.toFixed(0) },
        )}`,
      );
    }
    return answer;
  }
}
