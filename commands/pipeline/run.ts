import { Flags } from '@oclif/core';
import { TradesealCommand } from '../../src/cli/base-command.js';
import { calendarDateFlag } from '../../src/cli/instant.js';
import { listrRunner, renderRunSummary } from '../../src/cli/pipeline-view.js';
import { runPipeline, type RunSummary } from '../../pipeline/run.js';

export default class PipelineRun extends TradesealCommand {
  static override summary = 'Run the regime pipeline once and publish its results';
  static override description = 'By default a run extends the published history from the last published day with the stored fits (the same numbers a full run gives; it falls back to a full run when the data up to that day changed); --full recomputes everything. Ingests the macro series, builds point-in-time features in DuckDB, fits PCA and the 4-state HMM walking forward month by month, and publishes every trading day\'s signal package, net liquidity, the scorecard and the current regime broadcast in one transaction. A second run while one is going stops with exit code 4.';
  static override examples = [
    '<%= config.bin %> pipeline run',
    '<%= config.bin %> pipeline run --as-of 2020-03-31 --seed 7 --full',
    '<%= config.bin %> pipeline run --data-dir ./my-fred-files --json',
  ];
  static override flags = {
    'as-of': calendarDateFlag({ summary: 'Run as of this date (YYYY-MM-DD): data usable after it are ignored' }),
    'data-dir': Flags.string({ summary: 'Directory of the input CSV files (default: PIPELINE_DATA_DIR)' }),
    seed: Flags.integer({ summary: 'Seed of the model fits (default: PIPELINE_SEED)', min: 0, max: 4_294_967_295 }),
    full: Flags.boolean({ summary: 'Recompute every day instead of extending the published history' }),
  };

  async run(): Promise<RunSummary> {
    const { flags } = await this.parse(PipelineRun);
    const summary = await this.withStore(async (store) => {
      return runPipeline(store.sql, {
        dataDir: flags['data-dir'] ?? this.settings.pipelineDataDir,
        asOf: flags['as-of'] ?? null,
        seed: flags.seed ?? this.settings.pipelineSeed,
        full: flags.full,
      }, listrRunner(this.jsonEnabled()));
    });
    this.log(renderRunSummary(summary));
    return summary;
  }
}
