import { Flags } from '@oclif/core';
import { TradesealCommand } from '../../src/cli/base-command.js';
import { TradesealError } from '../../src/core/errors.js';
import { assertNoProblems, checkDataDir } from '../../pipeline/ingest/check-dir.js';
import { describeChanges } from '../../pipeline/publish/input-digests.js';
import { checkInputs, type InputCheck } from '../../src/signals/publish/input-record.js';
import { RECOMPUTE_HINT } from '../../pipeline/publish/plan.js';

interface CheckedFile {
  series: string;
  file: string;
  rows: number;
  first_date: string | null;
  last_date: string | null;
}

export default class PipelineCheck extends TradesealCommand {
  static override summary = "Validate the pipeline's input files without running anything, and compare them with what is published";
  static override description =
    'Checks every input CSV file against the rules of its series (data/macro/PROVENANCE.md): its header, numbers within plausible bounds, dates valid and strictly increasing, a row for every day of its publication rhythm (weekdays, Wednesdays or NYSE trading days), no long run of missing values. Prints one line per file when all pass; otherwise fails with data_invalid (exit 2) and one line per problem, naming the file, the line, the value and the rule. `pipeline run` applies the same check before it computes anything.\n\nThen it compares the files with what the published history was computed from (the input digests of the newest published run): when a row usable on or before the last published day changed, was removed or was inserted, the files still pass but a run could not extend the history, and the check fails as `pipeline run` would, with history_not_extendable (exit 4), naming the series and the first changed date.';
  static override examples = [
    '<%= config.bin %> pipeline check',
    '<%= config.bin %> pipeline check --data-dir ./my-fred-files',
    '<%= config.bin %> pipeline check --json',
  ];
  static override flags = {
    'data-dir': Flags.string({ summary: 'Directory of the input CSV files (default: PIPELINE_DATA_DIR)' }),
  };

  async run(): Promise<{ data_dir: string; files: CheckedFile[]; published: InputCheck }> {
    const { flags } = await this.parse(PipelineCheck);
    // The pipeline (DuckDB) loads when the command runs, not when the CLI starts.
    const { loadInputRows } = await import('../../pipeline/ingest/input-rows.js');
    const dataDir = flags['data-dir'] ?? this.settings.pipelineDataDir;
    const reports = await checkDataDir(dataDir);
    assertNoProblems(reports, `the data files in ${dataDir} break their rules`);
    const width = Math.max(...reports.map((r) => r.file.length));
    for (const r of reports) this.log(`${r.file.padEnd(width)}  ${String(r.rows).padStart(6)} rows  ${r.firstDate ?? '-'} to ${r.lastDate ?? '-'}`);
    this.log(`all ${reports.length} files in ${dataDir} pass`);
    // The files load while the store opens; a store that cannot be opened is the error, not the load.
    const rows = loadInputRows(dataDir);
    rows.catch(() => {});
    const published = await this.withStore(async (store) => checkInputs(store.sql, await rows, null));
    if (published.status === 'changed') {
      throw new TradesealError(
        'history_not_extendable',
        `the files pass, but a run cannot extend the published history: ${describeChanges(published.changes, published.through)}`,
        {
          hint: RECOMPUTE_HINT,
          extra: { input_changes: published.changes },
        },
      );
    }
    this.log(
      published.status === 'unchanged'
        ? `the rows of the published days (through ${published.through}) are as they were published`
        : published.status === 'not_recorded'
          ? 'the published history records no input digests yet (published before they were kept): the next run records them'
          : 'nothing is published yet: nothing to compare with',
    );
    return {
      data_dir: dataDir,
      files: reports.map((r) => ({ series: r.id, file: r.file, rows: r.rows, first_date: r.firstDate, last_date: r.lastDate })),
      published,
    };
  }
}
