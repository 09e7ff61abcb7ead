import { Flags } from '@oclif/core';
import { TradesealCommand } from '../../src/cli/base-command.js';
import { assertNoProblems, checkDataDir } from '../../pipeline/ingest/check-dir.js';

interface CheckedFile {
  series: string;
  file: string;
  rows: number;
  first_date: string | null;
  last_date: string | null;
}

export default class PipelineCheck extends TradesealCommand {
  static override summary = 'Validate the pipeline\'s input files without running anything';
  static override description = 'Checks every input CSV file against the rules of its series (data/macro/PROVENANCE.md): its header, numbers within plausible bounds, dates valid and strictly increasing, a row for every day of its publication rhythm (weekdays, Wednesdays or NYSE trading days), no long run of missing values. Prints one line per file when all pass; otherwise fails with data_invalid (exit 2) and one line per problem, naming the file, the line, the value and the rule. `pipeline run` applies the same check before it computes anything.';
  static override examples = [
    '<%= config.bin %> pipeline check',
    '<%= config.bin %> pipeline check --data-dir ./my-fred-files',
    '<%= config.bin %> pipeline check --json',
  ];
  static override flags = {
    'data-dir': Flags.string({ summary: 'Directory of the input CSV files (default: PIPELINE_DATA_DIR)' }),
  };

  async run(): Promise<{ data_dir: string; files: CheckedFile[] }> {
    const { flags } = await this.parse(PipelineCheck);
    const dataDir = flags['data-dir'] ?? this.settings.pipelineDataDir;
    const reports = await checkDataDir(dataDir);
    assertNoProblems(reports, `the data files in ${dataDir} break their rules`);
    const width = Math.max(...reports.map((r) => r.file.length));
    for (const r of reports) this.log(`${r.file.padEnd(width)}  ${String(r.rows).padStart(6)} rows  ${r.firstDate ?? '-'} to ${r.lastDate ?? '-'}`);
    this.log(`all ${reports.length} files in ${dataDir} pass`);
    return { data_dir: dataDir, files: reports.map((r) => ({ series: r.id, file: r.file, rows: r.rows, first_date: r.firstDate, last_date: r.lastDate })) };
  }
}
