import { Flags } from '@oclif/core';
import { TradesealCommand } from '../../src/cli/base-command.js';
import { renderTable } from '../../src/cli/table.js';
import { reportFlags, reportStyle } from '../../src/cli/table-flags.js';
import { checkRequest } from '../../src/cli/engine-input.js';
import { askService, remoteFlags, remoteOf } from '../../src/cli/signals-client.js';
import { pipelineRunsQuery } from '../../src/signals/inputs.js';
import { recentRuns, type RunSummaryRow } from '../../src/signals/publish/run-lock.js';
import { recentNights, type NightRow } from '../../src/signals/nightly/night-store.js';

export default class PipelineStatus extends TradesealCommand {
  static override jsonLinesRows = 'runs';
  static override summary = "Show the nightly job's recent nights (the day due, published or late and why) and the pipeline's recent runs";
  static override description =
    "First the nights of `pipeline nightly` / `pipeline schedule`, newest first: the trading day due, the status (running, published, late, refused, failed), the tries, and for a night that did not publish, why: each late series with the row it lacks and when that row was released, or the source's error, or the refusal. Then the runs: when, status, days published, what each did to the history, fit dates, timings.";
  static override examples = ['<%= config.bin %> pipeline status', '<%= config.bin %> pipeline status --limit 30 --json'];
  static override flags = {
    limit: Flags.string({
      summary: `How many runs (${pipelineRunsQuery.properties.limit.minimum}-${pipelineRunsQuery.properties.limit.maximum}, default ${pipelineRunsQuery.properties.limit.default})`,
      helpValue: 'N',
    }),
    ...remoteFlags,
    ...reportFlags,
  };

  async run(): Promise<{ runs: RunSummaryRow[]; nights: NightRow[] }> {
    const { flags } = await this.parse(PipelineStatus);
    const { limit } = checkRequest<{ limit: number }>(pipelineRunsQuery, flags.limit === undefined ? {} : { limit: flags.limit }, 'querystring', {
      limit: '--limit',
    });
    const remote = await remoteOf(flags, this.settings);
    // Against a remote signal service: its store's runs, through its operator API (an owner key).
    const { runs, nights } = remote
      ? await askService<{ runs: RunSummaryRow[]; nights: NightRow[] }>(remote, 'GET', '/v1/admin/pipeline-runs', { query: { limit } })
      : await this.withStore(async (store) => ({ runs: await recentRuns(store.sql, limit), nights: await recentNights(store.sql, limit) }));
    if (nights.length > 0) {
      this.log(
        renderTable(
          ['started_at', 'due_day', 'status', 'tries', { name: 'why', priority: 'keep' }],
          nights.map((n) => [new Date(n.started_at).toISOString(), n.due_day, n.status, n.attempts, n.status === 'published' ? null : n.reason]),
          reportStyle(flags),
        ),
      );
      this.log('');
    }
    if (runs.length === 0) this.log('no pipeline run yet: `tradeseal pipeline run`');
    else {
      // What each publication did to the history: +added ~rewritten -removed, and who confirmed a rewrite.
      const changes = (r: RunSummaryRow): string | null =>
        r.publish_plan
          ? `+${r.publish_plan.added} ~${r.publish_plan.changed} -${r.publish_plan.removed}${r.confirmed_by ? ` (confirmed by ${r.confirmed_by})` : ''}`
          : null;
      // At a narrow width the fit date and the timing give way before what the run did to the history.
      this.log(
        renderTable(
          [
            'started_at',
            'status',
            'days',
            'last_day',
            { name: 'changes', priority: 'keep' },
            { name: 'hmm_fit_date', priority: 'normal' },
            { name: 'seconds', priority: 'normal' },
            { name: 'run_id', priority: 'normal' },
            'error',
          ],
          runs.map((r) => [
            r.started_at.toISOString(),
            r.status,
            r.days,
            r.last_day,
            changes(r),
            r.hmm_fit_date,
            r.finished_at ? ((r.finished_at.getTime() - r.started_at.getTime()) / 1000).toFixed(1) : null,
            r.run_id,
            r.error ?? null,
          ]),
          reportStyle(flags),
        ),
      );
    }
    return { runs, nights };
  }
}
