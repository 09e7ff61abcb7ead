import { TradesealCommand } from '../../src/cli/base-command.js';
import { calendarDateFlag } from '../../src/cli/instant.js';
import { renderTable } from '../../src/cli/table.js';
import { validationError } from '../../src/errors.js';
import { compactHistory, type CompactHistoryRow } from '../../src/signals/store/history.js';

const date = (name: string) => calendarDateFlag({ summary: `${name} date, YYYY-MM-DD (inclusive)` });

export default class SignalsHistory extends TradesealCommand {
  static override summary = 'Print the published regime history: date, regime, risk_score and the four probabilities';
  static override examples = [
    '<%= config.bin %> signals history --start 2020-02-15 --end 2020-04-30',
    '<%= config.bin %> signals history --start 2008-09-01 --json',
  ];
  static override flags = { start: date('First'), end: date('Last') };

  async run(): Promise<CompactHistoryRow[]> {
    const { flags } = await this.parse(SignalsHistory);
    if (flags.start && flags.end && flags.start > flags.end) throw validationError([{ field: '--start', message: `${flags.start} is after --end ${flags.end}` }]);
    const rows = await this.withStore((store) => compactHistory(store.sql, { start: flags.start ?? null, end: flags.end ?? null }));
    if (rows.length === 0) this.log('no published days in that range (has the pipeline run? `tradeseal pipeline status`)');
    else {
      const f = (x: number): string => x.toFixed(4);
      this.log(renderTable(['date', 'regime', 'risk_score', 'expansion', 'recovery', 'tightening', 'risk_off'],
        rows.map((r) => [r.date, r.regime, f(r.risk_score), f(r.prob_expansion), f(r.prob_recovery), f(r.prob_tightening), f(r.prob_risk_off)])));
    }
    return rows;
  }
}
