import { Flags } from '@oclif/core';
import { TradesealCommand } from '../../src/cli/base-command.js';
import { chartsWanted, lineChart } from '../../src/cli/charts.js';
import { checkRequest } from '../../src/cli/engine-input.js';
import { callService, remoteFlags, remoteOf } from '../../src/cli/signals-client.js';
import { renderTable } from '../../src/cli/table.js';
import { reportFlags, reportStyle } from '../../src/cli/table-flags.js';
import { wrapText } from '../../src/cli/wrap.js';
import { TradesealError, validationError } from '../../src/core/errors.js';
import { forecastQuery } from '../../src/signals/inputs.js';
import { latestForecast } from '../../src/signals/store/quant.js';
import { compactHistory } from '../../src/signals/store/history.js';
import { sliceForecast, type ForecastEnvelope } from '../../pipeline/reports/forecast.js';
import { forecastTable } from '../../pipeline/reports/forecast-table.js';
import { EXPORT_FORMATS, encodeTable, type ExportFormat } from '../../pipeline/reports/columnar/formats.js';
import { refuseTerminal, toStdout, writeOut } from '../../src/cli/export-output.js';
import { checkOutputFile } from '../../src/core/file-errors.js';

export default class SignalsForecast extends TradesealCommand {
  static override summary = "The published regime forecast: the next business days' probabilities, regime, confidence and risk score";
  static override description =
    'The nightly run fits an ARIMA(1,0,1) with a mean, by exact maximum likelihood, to each probability column and to the risk score over the whole published history, and forecasts 10 NYSE trading days after the newest day; probabilities are clipped to [0, 1] and renormalised, confidence is 1 − normalised entropy. --horizon takes the first 1 to 10 days (default 5). With --json the envelope of the interface {horizon, generated_at, forecast: [...]}; on a terminal also a chart of the probabilities over the last 60 days and the forecast. --format csv|arrow|parquet writes the forecast rows instead (the columns of the JSON forecast array, typed: date a date, regime a string, the rest 64-bit floats) to standard output (arrow and parquet only when it is not a terminal) or, with --out FILE, to a file atomically.';
  static override examples = [
    '<%= config.bin %> signals forecast',
    '<%= config.bin %> signals forecast --horizon 10 --json',
    '<%= config.bin %> signals forecast --horizon 10 --format parquet --out forecast.parquet',
  ];
  static override flags = {
    horizon: Flags.string({ summary: 'Business days ahead, 1 to 10 (default 5)', helpValue: '1..10' }),
    format: Flags.string({
      summary: 'Write the forecast rows as csv, arrow (Apache Arrow IPC file) or parquet instead of the table',
      options: [...EXPORT_FORMATS],
    }),
    out: Flags.string({ summary: 'Write the forecast rows to this file (csv unless --format says otherwise)', aliases: ['output'], helpValue: 'FILE' }),
    ...remoteFlags,
    ...reportFlags,
  };

  async run(): Promise<ForecastEnvelope> {
    const { flags } = await this.parse(SignalsForecast);
    const { horizon } = checkRequest<{ horizon: number }>(forecastQuery, flags.horizon === undefined ? {} : { horizon: flags.horizon }, 'querystring');
    const format = (flags.format ?? (flags.out === undefined ? undefined : 'csv')) as ExportFormat | undefined;
    if (format !== undefined) {
      refuseTerminal(format, flags.out);
      if (flags.out === undefined && this.jsonEnabled()) {
        throw validationError([{ field: '--json', message: 'needs --out FILE with --format: the rows go to the file, the JSON answer to standard output' }]);
      }
      if (flags.out !== undefined) await checkOutputFile(flags.out, '--out');
    }
    const remote = await remoteOf(flags, this.settings);
    const { envelope, base, recent } = remote
      ? { envelope: await callService<ForecastEnvelope>(remote, 'GET', '/v1/forecast', { query: { horizon } }), base: null, recent: [] }
      : await this.withStore(async (store) => {
          const published = await latestForecast(store.sql);
          if (!published) throw new TradesealError('not_found', 'no forecast is published yet', { hint: 'run the pipeline: `tradeseal pipeline run`' });
          return {
            envelope: sliceForecast(published, horizon),
            base: published.base_date,
            recent: chartsWanted(this.jsonEnabled()) ? (await compactHistory(store.sql, {})).slice(-60) : [],
          };
        });
    if (format !== undefined) {
      const bytes = await encodeTable(format, forecastTable(envelope.forecast));
      if (flags.out === undefined) {
        await toStdout(bytes);
        return envelope;
      }
      const out = flags.out;
      await writeOut(out, (append) => append(bytes));
      this.logToStderr(`wrote ${envelope.forecast.length} days to ${out}`);
      return envelope;
    }
    const f = (x: number): string => x.toFixed(4);
    const style = reportStyle(flags);
    this.log(wrapText(`forecast${base ? ` from ${base}` : ''}, generated ${envelope.generated_at} (ARIMA(1,0,1) per column, exact ML)`, style.width));
    // Confidence is read off the four probabilities (1 − normalised entropy): at a narrow width it gives way first.
    this.log(
      renderTable(
        ['date', 'regime', { name: 'confidence', priority: 'normal' }, 'risk_score', 'expansion', 'recovery', 'tightening', 'risk_off'],
        envelope.forecast.map((r) => [
          r.date,
          r.regime,
          f(r.confidence),
          f(r.risk_score),
          f(r.prob_expansion),
          f(r.prob_recovery),
          f(r.prob_tightening),
          f(r.prob_risk_off),
        ]),
        style,
      ),
    );
    if (recent.length > 0) {
      const days = [...recent, ...envelope.forecast];
      this.log(
        `\n${lineChart(
          [
            { label: 'expansion', values: days.map((d) => d.prob_expansion) },
            { label: 'recovery', values: days.map((d) => d.prob_recovery) },
            { label: 'tightening', values: days.map((d) => d.prob_tightening) },
            { label: 'risk_off', values: days.map((d) => d.prob_risk_off) },
          ],
          {
            title: `probabilities: the last ${recent.length} published days, then the forecast`,
            from: days[0]!.date,
            to: days.at(-1)!.date,
            format: (x) => x.toFixed(2),
          },
        )}`,
      );
    }
    return envelope;
  }
}
