import { Flags } from '@oclif/core';
import { TradesealCommand } from '../../src/cli/base-command.js';
import { chartsWanted, lineChart } from '../../src/cli/charts.js';
import { regimeRibbon } from '../../src/cli/regime-ribbon.js';
import { tableFlags, tableStyle } from '../../src/cli/table-flags.js';
import { terminalOf } from '../../src/cli/terminal.js';
import { calendarDateFlag } from '../../src/cli/instant.js';
import { renderTable } from '../../src/cli/table.js';
import { validationError } from '../../src/core/errors.js';
import { callService, remoteFlags, remoteOf } from '../../src/cli/signals-client.js';
import { checkRequest } from '../../src/cli/engine-input.js';
import { signalHistoryQuery } from '../../src/signals/inputs.js';
import { compactHistory, type CompactHistoryRow } from '../../src/signals/store/history.js';

/** The days the table shows by default: about three months of trading days. */
const TABLE_DAYS = 60;

const date = (name: string) => calendarDateFlag({ summary: `${name} date, YYYY-MM-DD (inclusive)` });

export default class SignalsHistory extends TradesealCommand {
  static override summary = 'Print the published regime history: date, regime, risk_score and the four probabilities';
  static override examples = [
    '<%= config.bin %> signals history --start 2020-02-15 --end 2020-04-30',
    '<%= config.bin %> signals history --start 2008-09-01 --json',
  ];
  static override description = `On a terminal, a regime ribbon and a chart of the risk score over the whole range come first, then the table of the newest --limit days (default ${TABLE_DAYS}); --csv and --json give every day of the range.`;
  static override flags = {
    start: date('First'),
    end: date('Last'),
    limit: Flags.integer({
      summary: `How many of the newest days the table shows (default ${TABLE_DAYS}; --csv and --json give every day)`,
      min: 1,
      helpValue: 'N',
    }),
    days: Flags.string({
      summary: `With --url: the newest N published days the service sends (${signalHistoryQuery.properties.days.minimum}-${signalHistoryQuery.properties.days.maximum}, default ${signalHistoryQuery.properties.days.default}; the key's tier may allow fewer), which --start and --end then narrow`,
      helpValue: 'N',
    }),
    ...tableFlags,
    ...remoteFlags,
  };

  async run(): Promise<CompactHistoryRow[]> {
    const { flags } = await this.parse(SignalsHistory);
    if (flags.start && flags.end && flags.start > flags.end)
      throw validationError([{ field: '--start', message: `${flags.start} is after --end ${flags.end}` }]);
    const remote = await remoteOf(flags, this.settings);
    if (!remote && flags.days !== undefined)
      throw validationError([{ field: '--days', message: 'is for a remote service (--url); on the store, --start and --end choose the days' }]);
    const rows = remote
      ? (
          await callService<CompactHistoryRow[]>(remote, 'GET', '/v1/signals/history', {
            query: {
              days: checkRequest<{ days: number }>(signalHistoryQuery, flags.days === undefined ? {} : { days: flags.days }, 'querystring', { days: '--days' })
                .days,
            },
          })
        ).filter((r) => (!flags.start || r.date >= flags.start) && (!flags.end || r.date <= flags.end))
      : await this.withStore((store) => compactHistory(store.sql, { start: flags.start ?? null, end: flags.end ?? null }));
    if (rows.length === 0) {
      this.log('no published days in that range (has the pipeline run? `tradeseal pipeline status`)');
      return rows;
    }
    const style = tableStyle(flags);
    if (!style.csv && chartsWanted(this.jsonEnabled()) && rows.length > 1) {
      const terminal = terminalOf();
      const span = { from: rows[0]!.date, to: rows[rows.length - 1]!.date };
      this.log(regimeRibbon(rows, (terminal.width ?? 80) - 1, terminal.color));
      this.log(
        `\n${lineChart([{ label: 'risk_score', values: rows.map((r) => r.risk_score) }], { title: 'risk score (0 calm, 1 stress)', height: 8, ...span, format: (x) => x.toFixed(2) })}\n`,
      );
    }
    const limit = style.csv ? rows.length : (flags.limit ?? TABLE_DAYS);
    const shown = rows.slice(-limit);
    const f = (x: number): string => x.toFixed(4);
    this.log(
      renderTable(
        ['date', 'regime', 'risk_score', 'expansion', 'recovery', 'tightening', 'risk_off'],
        shown.map((r) => [r.date, r.regime, f(r.risk_score), f(r.prob_expansion), f(r.prob_recovery), f(r.prob_tightening), f(r.prob_risk_off)]),
        style,
      ),
    );
    if (!style.csv && shown.length < rows.length) {
      this.log(`the newest ${shown.length} of ${rows.length} days; older ones: --end ${rows[rows.length - shown.length - 1]!.date}, or --limit ${rows.length}`);
    }
    return rows;
  }
}
