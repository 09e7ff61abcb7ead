import { Flags } from '@oclif/core';
import cron from 'node-cron';
import { TradesealCommand } from '../../src/cli/base-command.js';
import { closest } from '../../src/cli/closest.js';
import { assertValid } from '../../src/cli/engine-input.js';
import type { FieldError } from '../../src/errors.js';
import { runPipeline } from '../../pipeline/run.js';

export default class PipelineSchedule extends TradesealCommand {
  static override summary = 'Run the pipeline on a cron schedule, as a long-running job (never two runs at once)';
  static override description = 'Each run is logged as one JSON line on stdout ({event, run_id, regime, days, seconds} or {event: "failed", error}). Runs never overlap: a tick that comes while a run is going is skipped, and across processes the pipeline\'s lock stops a second run. Stops on SIGINT or SIGTERM after the run in progress.';
  static override enableJsonFlag = false;
  static override baseFlags = {};
  static override examples = ['<%= config.bin %> pipeline schedule', '<%= config.bin %> pipeline schedule --cron "30 6 * * 1-5"'];
  static override flags = {
    cron: Flags.string({ summary: 'Cron expression (default: PIPELINE_CRON, "30 6 * * 1-5")' }),
    timezone: Flags.string({ summary: 'IANA time zone of the expression (default: the machine\'s)' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(PipelineSchedule);
    const expression = flags.cron ?? this.settings.pipelineCron;
    const errors: FieldError[] = [];
    if (!cron.validate(expression)) errors.push({ field: flags.cron ? '--cron' : 'PIPELINE_CRON', message: `"${expression}" is not a cron expression of 5 or 6 fields, e.g. "30 6 * * 1-5" (06:30 on weekdays)` });
    if (flags.timezone !== undefined && !isTimeZone(flags.timezone)) {
      const near = closest(flags.timezone, Intl.supportedValuesOf('timeZone'));
      errors.push({ field: '--timezone', message: `"${flags.timezone}" is not an IANA time zone${near.length > 0 ? `; did you mean ${near.join(' or ')}?` : ' (e.g. America/New_York, Europe/London, UTC)'}` });
    }
    assertValid(errors);
    const settings = this.settings;
    const line = (event: Record<string, unknown>): void => this.log(JSON.stringify({ at: new Date().toISOString(), ...event }));
    await this.withStore(async (store) => {
      const task = cron.schedule(expression, async () => {
        const t0 = Date.now();
        line({ event: 'started' });
        try {
          const s = await runPipeline(store.sql, { dataDir: settings.pipelineDataDir, asOf: null, seed: settings.pipelineSeed, costBps: settings.signalCostBps, trackLogSigningKey: settings.signalLogSigningKey });
          line({ event: 'published', run_id: s.run_id, days: s.days, last_day: s.last_day, regime: s.latest?.regime ?? null, override: s.override?.regime ?? null, seconds: (Date.now() - t0) / 1000 });
        } catch (err) {
          line({ event: 'failed', code: (err as { code?: string }).code ?? 'internal', error: (err as Error).message, seconds: (Date.now() - t0) / 1000 });
        }
      }, { noOverlap: true, name: 'tradeseal-pipeline', ...(flags.timezone ? { timezone: flags.timezone } : {}) });
      line({ event: 'scheduled', cron: expression, next_run: task.getNextRun()?.toISOString() ?? null });
      await new Promise<void>((resolve) => {
        const stop = (): void => {
          void Promise.resolve(task.stop()).then(async () => {
            while (task.isBusy()) await new Promise((r) => setTimeout(r, 200));
            resolve();
          });
        };
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      line({ event: 'stopped' });
    });
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
