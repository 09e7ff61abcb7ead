import { Flags } from '@oclif/core';
import { TradesealCommand } from '../../src/cli/base-command.js';
import { TradesealError } from '../../src/core/errors.js';
import type { NightResult } from '../../src/signals/nightly/night.js';

export default class PipelineNightly extends TradesealCommand {
  static override storeWork = 'long' as const;
  static override summary =
    'Run one night: fetch every source, check, and publish the trading day that is due, or nothing (for cron, a systemd timer or a Kubernetes CronJob)';
  static override description = `The day due is the newest trading day whose regime is published by now (06:30 New York on the next trading day). The night fetches every series (pipeline fetch), checks that each holds the rows its release rule says are out by the day's publication, and runs the pipeline as of that day, which publishes it and every day a late night left, and logs each day in the track log.

When a series is late or a source is down, it tries again every PIPELINE_RETRY_SECONDS until PIPELINE_DEADLINE, then gives up without publishing anything and exits 6 (data_late), naming each late series and the row it lacks. A run that refuses (a revised row of a published day: history_not_extendable, exit 4) ends the night at once: that needs an operator. Every try is recorded in the store; \`tradeseal pipeline status\` shows the nights, and /metrics counts the days due and not published. When the due day is published already it does nothing and exits 0.

Each event is one JSON line on standard output: night_started, source_failed, waiting, published, late, refused, up_to_date.`;
  static override examples = ['<%= config.bin %> pipeline nightly', '<%= config.bin %> pipeline nightly --no-fetch'];
  static override flags = {
    fetch: Flags.boolean({
      summary: 'Fetch every source first (--no-fetch: check and run on the files as they are, brought up to date another way)',
      default: true,
      allowNo: true,
    }),
    'data-dir': Flags.string({ summary: 'Directory of the input CSV files (default: PIPELINE_DATA_DIR)' }),
  };

  async run(): Promise<NightResult> {
    const { flags } = await this.parse(PipelineNightly);
    // The pipeline (DuckDB) loads when the command runs, not when the CLI starts.
    const { fetchFromSettings, nightFromSettings } = await import('../../src/signals/nightly/from-settings.js');
    const { runNight } = await import('../../src/signals/nightly/night.js');
    // A source without its key, or a data directory a fetch may not write, stops the night before the store is
    // opened (made, when the embedded store is new, which takes seconds): nothing was tried, so nothing is recorded.
    if (flags.fetch) fetchFromSettings(this.settings, flags['data-dir'] ?? this.settings.pipelineDataDir);
    const line = (event: Record<string, unknown>): void => this.log(JSON.stringify({ at: new Date().toISOString(), ...event }));
    // SIGTERM (a CronJob's deadline, systemd stopping the unit) while the night waits to try again: it gives up at once, recorded as late.
    const stopping = new AbortController();
    const stop = (): void => stopping.abort();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    const result = await this.withStore(
      (store) =>
        runNight(
          nightFromSettings(this.settings, store.sql, {
            fetch: flags.fetch,
            log: line,
            signal: stopping.signal,
            ...(flags['data-dir'] ? { dataDir: flags['data-dir'] } : {}),
          }),
        ),
      { creates: true },
    ).finally(() => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    });
    // A late or refused night is the command's failure: cron sees the exit code, the log the error.
    if (result.status === 'late' || result.status === 'refused' || result.status === 'failed') {
      throw result.error ?? new TradesealError('internal', result.reason ?? `the night ended ${result.status}`);
    }
    return result;
  }
}
