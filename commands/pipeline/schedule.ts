import { Flags } from '@oclif/core';
import cron from 'node-cron';
import { TradesealCommand } from '../../src/cli/base-command.js';
import { closest } from '../../src/cli/closest.js';
import { assertValid } from '../../src/cli/engine-input.js';
import type { FieldError } from '../../src/core/errors.js';

export default class PipelineSchedule extends TradesealCommand {
  static override storeWork = 'long' as const;
  static override summary = 'Run a night (fetch, check, publish the day due) at PIPELINE_CRON, as a long-running job (never two at once)';
  static override description =
    'At each tick of PIPELINE_CRON (in PIPELINE_TIMEZONE, 06:30 New York on weekdays by default) it runs what `tradeseal pipeline nightly` runs once: fetch every source, check that each series holds the rows its release rule says are out, publish the day due, or try again until PIPELINE_DEADLINE and give up without publishing. Each event is one JSON line on stdout (night_started, source_failed, waiting, published, late, refused, up_to_date; {event: "failed", error} for an unexpected fault); a late or refused night is logged and the job goes on to the next tick. Nights never overlap: a tick that comes while one is going is skipped, and across processes the pipeline\'s lock stops a second run. Stops on SIGINT or SIGTERM after the night in progress.';
  static override enableJsonFlag = false;
  static override baseFlags = {};
  static override examples = ['<%= config.bin %> pipeline schedule', '<%= config.bin %> pipeline schedule --cron "30 6 * * 1-5" --timezone America/New_York'];
  static override flags = {
    cron: Flags.string({ summary: 'Cron expression (default: PIPELINE_CRON, "30 6 * * 1-5")' }),
    timezone: Flags.string({ summary: 'IANA time zone of the expression (default: PIPELINE_TIMEZONE, America/New_York)' }),
    fetch: Flags.boolean({
      summary: 'Fetch every source at each night (--no-fetch: the files are brought up to date another way)',
      default: true,
      allowNo: true,
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(PipelineSchedule);
    const expression = flags.cron ?? this.settings.pipelineCron;
    const errors: FieldError[] = [];
    if (!cron.validate(expression))
      errors.push({
        field: flags.cron ? '--cron' : 'PIPELINE_CRON',
        message: `"${expression}" is not a cron expression of 5 or 6 fields, e.g. "30 6 * * 1-5" (06:30 on weekdays)`,
      });
    if (flags.timezone !== undefined && !isTimeZone(flags.timezone)) {
      const near = closest(flags.timezone, Intl.supportedValuesOf('timeZone'));
      errors.push({
        field: '--timezone',
        message: `"${flags.timezone}" is not an IANA time zone${near.length > 0 ? `; did you mean ${near.join(' or ')}?` : ' (e.g. America/New_York, Europe/London, UTC)'}`,
      });
    }
    assertValid(errors);
    const settings = this.settings;
    const line = (event: Record<string, unknown>): void => this.log(JSON.stringify({ at: new Date().toISOString(), ...event }));
    await this.withStore(
      async (store) => {
        // Built once: a missing key stops the job at its start, not at its first tick.
        const stopping = new AbortController();
        // The nightly run (the pipeline, DuckDB) loads when the command runs, not when the CLI starts.
        const { nightFromSettings } = await import('../../src/signals/nightly/from-settings.js');
        const { runNight } = await import('../../src/signals/nightly/night.js');
        const night = nightFromSettings(settings, store.sql, { fetch: flags.fetch, log: line, signal: stopping.signal });
        const task = cron.schedule(
          expression,
          async () => {
            try {
              await runNight(night);
            } catch (err) {
              line({ event: 'failed', code: (err as { code?: string }).code ?? 'internal', error: (err as Error).message });
            }
          },
          { noOverlap: true, name: 'tradeseal-pipeline', timezone: flags.timezone ?? settings.pipelineTimezone },
        );
        line({ event: 'scheduled', cron: expression, next_run: task.getNextRun()?.toISOString() ?? null });
        await new Promise<void>((resolve) => {
          const stop = (): void => {
            // A night waiting to try again gives up now (recorded as late); one running finishes its run.
            stopping.abort();
            void Promise.resolve(task.stop()).then(async () => {
              while (task.isBusy()) await new Promise((r) => setTimeout(r, 200));
              resolve();
            });
          };
          process.once('SIGINT', stop);
          process.once('SIGTERM', stop);
        });
        line({ event: 'stopped' });
      },
      { creates: true },
    );
  }
}

/** Whether `name` is a time zone this Node.js knows (IANA names, and UTC). */
function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
