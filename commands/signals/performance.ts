import { TradesealCommand } from '../../src/cli/base-command.js';
import { chartsWanted, lineChart } from '../../src/cli/charts.js';
import { checkRequest } from '../../src/cli/engine-input.js';
import { calendarDateFlag } from '../../src/cli/instant.js';
import { renderPerformance } from '../../src/cli/quant-view.js';
import { reportFlags, reportStyle } from '../../src/cli/table-flags.js';
import { wrapText } from '../../src/cli/wrap.js';
import { TradesealError, validationError } from '../../src/core/errors.js';
import { callService, remoteFlags, remoteOf } from '../../src/cli/signals-client.js';
import { dateRangeQuery, performanceQuery, RECORD_BASES, type RecordBasis } from '../../src/signals/inputs.js';
import { windowStrategy } from '../../src/signals/ops/backtest.js';
import { performanceOn } from '../../src/signals/ops/track-record.js';
import { Flags } from '@oclif/core';
import { latestReports } from '../../src/signals/store/quant.js';
import { performanceReport, type PerformanceReport } from '../../pipeline/reports/performance.js';

export default class SignalsPerformance extends TradesealCommand {
  static override summary = 'Performance of the published regimes: the regime strategy against buy-and-hold SPY, overall and by regime';
  static override description =
    "sharpe (annualised, risk-free 0), max_drawdown (≤ 0), total_return, alpha (geometric, annualised, against buy-and-hold) and annual return of the regime strategy (each published regime's weight taken as SPY exposure at the first open after its publication at 06:30 New York on the next trading day, marked to market at the closes, net of cost_bps per unit of exposure change), next to buy-and-hold executed the same way; by_regime: for each regime, the days whose exposure was taken from it and SPY's mean daily return, annualised return and hit rate on them. empyrical's conventions. Without --start/--end, the report the nightly run published over the whole history; with them, the same figures over that window. With --record live, the figures over the days whose regimes were logged live in the track log (not backfilled); every answer says how many days it rests on (record).";
  static override examples = [
    '<%= config.bin %> signals performance',
    '<%= config.bin %> signals performance --record live',
    '<%= config.bin %> signals performance --start 2020-01-02 --end 2020-12-31 --json',
  ];
  static override flags = {
    record: Flags.string({
      summary: 'all: every published day; live: the days resting on regimes logged live in the track log',
      options: [...RECORD_BASES],
      default: 'all',
    }),
    start: calendarDateFlag({ summary: 'First day, YYYY-MM-DD (inclusive)' }),
    end: calendarDateFlag({ summary: 'Last day, YYYY-MM-DD (inclusive)' }),
    ...remoteFlags,
    ...reportFlags,
  };

  async run(): Promise<PerformanceReport> {
    const { flags } = await this.parse(SignalsPerformance);
    const range = checkRequest<{ start?: string; end?: string }>(
      dateRangeQuery,
      {
        ...(flags.start === undefined ? {} : { start: flags.start }),
        ...(flags.end === undefined ? {} : { end: flags.end }),
      },
      'querystring',
    );
    const { record } = checkRequest<{ record: RecordBasis }>(performanceQuery, { record: flags.record }, 'querystring', { record: '--record' });
    if (record === 'live' && (range.start !== undefined || range.end !== undefined)) {
      throw validationError([
        { field: '--record', message: 'the live record is computed over the whole history; --start and --end are for every published day' },
      ]);
    }
    const remote = await remoteOf(flags, this.settings);
    if (remote && (range.start !== undefined || range.end !== undefined)) {
      throw validationError([
        { field: '--start', message: 'a window is computed from the local store; the service (GET /v1/performance) answers the whole history' },
      ]);
    }
    const { report, chart } = remote
      ? { report: await callService<PerformanceReport>(remote, 'GET', '/v1/performance', { query: { record } }), chart: null }
      : await this.withStore(async (store) => {
          if (range.start === undefined && range.end === undefined) {
            const published = await latestReports(store.sql);
            if (!published)
              throw new TradesealError('not_found', 'no performance report is published yet', { hint: 'run the pipeline: `tradeseal pipeline run`' });
            return { report: await performanceOn(store.sql, published.performance, record), chart: record === 'live' ? null : published.chart_data };
          }
          return {
            report: performanceReport((await windowStrategy(store.sql, range, this.settings.signalCostBps)).strategy, this.settings.signalCostBps),
            chart: null,
          };
        });
    const style = reportStyle(flags);
    this.log(wrapText(renderPerformance(report, style), style.width));
    if (chart && chart.series.length > 1 && chartsWanted(this.jsonEnabled())) {
      const s = chart.series;
      this.log(
        `\n${lineChart(
          [
            { label: 'regime strategy', values: s.map((r) => r.strategy) },
            { label: 'SPY', values: s.map((r) => r.equity500) },
            { label: 'gold (GLD)', values: s.map((r) => r.gold) },
          ],
          {
            title: `the last ${chart.days} published days, value of 100 invested (the published chart data)`,
            from: s[0]!.date,
            to: s.at(-1)!.date,
            format: (x) => x.toFixed(0),
          },
        )}`,
      );
    }
    return report;
  }
}
