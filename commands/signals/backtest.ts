import { TradesealCommand } from '../../src/cli/base-command.js';
import { chartsWanted, lineChart } from '../../src/cli/charts.js';
import { checkRequest } from '../../src/cli/engine-input.js';
import { callService, remoteFlags, remoteOf } from '../../src/cli/signals-client.js';
import { renderPerformance, renderRegimeDistribution } from '../../src/cli/quant-view.js';
import { calendarDateFlag } from '../../src/cli/instant.js';
import { backtestBody } from '../../src/signals/inputs.js';
import { backtest, type Backtest } from '../../src/signals/ops/backtest.js';

export default class SignalsBacktest extends TradesealCommand {
  static override summary = 'Backtest the published regimes between two dates: the summary, and the regime strategy against buy-and-hold';
  static override description = 'The interface\'s summary over the regimes published in the window (total_days, transitions, avg_persistence_days, mean_risk_score, regime_distribution in percent), and the regime strategy (the weight of each published regime, expansion 1, recovery 0.75, tightening 0.25, risk_off 0, taken as SPY exposure at the first open after its publication at 06:30 New York on the next trading day, marked to market at the closes, net of SIGNAL_COST_BPS per unit of exposure change) against buy-and-hold SPY executed the same way over the same days, with empyrical\'s figures. On a terminal, a chart of both from 100. Both dates are inclusive and required, as the API requires them.';
  static override examples = ['<%= config.bin %> signals backtest --start 2020-01-02 --end 2020-12-31', '<%= config.bin %> signals backtest --start 2007-01-03 --end 2025-11-26 --json'];
  static override flags = {
    start: calendarDateFlag({ summary: 'First day, YYYY-MM-DD (inclusive)', required: true }),
    end: calendarDateFlag({ summary: 'Last day, YYYY-MM-DD (inclusive)', required: true }),
    ...remoteFlags,
  };

  async run(): Promise<Backtest> {
    const { flags } = await this.parse(SignalsBacktest);
    const range = checkRequest<{ start: string; end: string }>(backtestBody, { start: flags.start, end: flags.end }, 'body');
    const remote = await remoteOf(flags, this.settings);
    // The service answers the summary and the figures; the curve for the chart is computed here only locally.
    const result: Backtest = remote
      ? { ...(await callService<Omit<Backtest, 'curve'>>(remote, 'POST', '/v1/backtest', { body: range })), curve: { dates: [], strategy: [], buy_and_hold: [] } }
      : await this.withStore((store) => backtest(store.sql, range, this.settings.signalCostBps));
    const s = result.summary;
    this.log(`backtest ${result.start} to ${result.end}: ${s.total_days} trading days, ${s.transitions} transitions, persistence ${s.avg_persistence_days.toFixed(1)} days on average, mean risk score ${s.mean_risk_score.toFixed(3)}`);
    this.log(renderRegimeDistribution(s.regime_distribution));
    this.log(`\n${renderPerformance(result.performance)}`);
    if (chartsWanted(this.jsonEnabled()) && result.curve.dates.length > 1) {
      this.log(`\n${lineChart([
        { label: 'regime strategy', values: result.curve.strategy },
        { label: 'buy-and-hold SPY', values: result.curve.buy_and_hold },
      ], { title: 'value of 100 invested', from: result.curve.dates[0]!, to: result.curve.dates.at(-1)!, format: (x) => x.toFixed(0) })}`);
    }
    return result;
  }
}
