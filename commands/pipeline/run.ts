import { Flags } from '@oclif/core';
import { cliActor } from '../../src/cli/actor.js';
import { TradesealCommand } from '../../src/cli/base-command.js';
import { calendarDateFlag } from '../../src/cli/instant.js';
import type { RunSummary } from '../../src/signals/publish/run.js';

export default class PipelineRun extends TradesealCommand {
  static override storeWork = 'long' as const;
  static override summary = 'Run the regime pipeline once: extend the published history, or compute a what-if as of a past date';
  static override description = `By default a run extends the published history from the last published day with the stored fits (the same numbers a full run gives) and broadcasts the newest day's regime, unless an operator's manual broadcast is in force (it holds until \`tradeseal regime release\`). A run never rewrites or removes published days on its own: when it cannot extend the history (another seed, or the data up to the last published day changed: any row revised, removed or inserted, checked against the digests the last run recorded) it stops with exit code 4, naming the series and the first changed date.

--as-of D computes what a run on that evening would have published and reports it, writing nothing (a what-if); add --publish to write it to the live history (a backfill), which is refused when it would remove published days unless --force is given too.

--full recomputes every day. A run that would rewrite published days with other numbers, or remove published days, shows what it would change and asks for confirmation on a terminal (elsewhere: --yes). Input files are validated as they load; a bad file stops the run in its first stage, with every problem listed. A second run while one is going stops with exit code 4.`;
  static override examples = [
    '<%= config.bin %> pipeline run',
    '<%= config.bin %> pipeline run --as-of 2020-03-31',
    '<%= config.bin %> pipeline run --full --seed 11',
    '<%= config.bin %> pipeline run --as-of 2020-03-31 --publish --force --yes --json',
    '<%= config.bin %> pipeline run --data-dir ./my-fred-files --json',
  ];
  static override flags = {
    'as-of': calendarDateFlag({ summary: 'Compute as of this date (YYYY-MM-DD): data usable after it are ignored; nothing is written without --publish' }),
    publish: Flags.boolean({ summary: 'With --as-of: write the run to the live history (a backfill)', dependsOn: ['as-of'] }),
    full: Flags.boolean({ summary: 'Recompute every day instead of extending the published history (asks before rewriting published days)' }),
    force: Flags.boolean({ summary: 'Allow a publication that removes published days (it still asks for confirmation)' }),
    yes: Flags.boolean({ summary: 'Confirm a publication that rewrites or removes published days without asking (for scripts)' }),
    'data-dir': Flags.string({ summary: 'Directory of the input CSV files (default: PIPELINE_DATA_DIR)' }),
    seed: Flags.integer({
      summary: 'Seed recorded with the run (default: PIPELINE_SEED); it has no effect on the regimes since tradeseal-regime-5',
      min: 0,
      max: 4_294_967_295,
    }),
  };

  async run(): Promise<RunSummary> {
    const { flags } = await this.parse(PipelineRun);
    // The pipeline (DuckDB) loads when the command runs, not when the CLI starts.
    const { runPipeline } = await import('../../src/signals/publish/run.js');
    const { listrRunner, renderRunSummary } = await import('../../src/cli/pipeline-view.js');
    const summary = await this.withStore(
      (store) =>
        runPipeline(
          store.sql,
          {
            dataDir: flags['data-dir'] ?? this.settings.pipelineDataDir,
            asOf: flags['as-of'] ?? null,
            seed: flags.seed ?? this.settings.pipelineSeed,
            full: flags.full,
            publish: flags.publish,
            force: flags.force,
            costBps: this.settings.signalCostBps,
            trackLogSigningKey: this.settings.signalLogSigningKey,
            keySettings: this.settings,
          },
          {
            runner: listrRunner(this.jsonEnabled()),
            confirm: async (_plan, sentence) => {
              await this.confirmDestructive(`${sentence} Publish it?`, flags.yes);
              return cliActor();
            },
          },
        ),
      { creates: true },
    );
    this.log(renderRunSummary(summary));
    return summary;
  }
}
