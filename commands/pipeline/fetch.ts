import { Flags } from '@oclif/core';
import { checkInputDir } from '../../src/file-errors.js';
import { TradesealCommand } from '../../src/cli/base-command.js';
import { renderTable } from '../../src/cli/table.js';
import { reportStyle } from '../../src/cli/table-flags.js';
import { TradesealError } from '../../src/errors.js';
import { updateDataDir, type UpdateResult } from '../../pipeline/fred.js';

export default class PipelineFetch extends TradesealCommand {
  static override summary = 'Refresh the FRED series in the data directory from the FRED API (needs FRED_API_KEY)';
  static override description = 'Fetches each FRED series the pipeline uses and rewrites its CSV in the same layout as the bundled files (atomically), keeping older rows FRED no longer serves. Market series (GSPC, SPY, GLD) are not on FRED and are left as they are.';
  static override examples = ['FRED_API_KEY=… <%= config.bin %> pipeline fetch', 'FRED_API_KEY=… <%= config.bin %> pipeline fetch --series WALCL --series WTREGEN'];
  static override flags = {
    'data-dir': Flags.string({ summary: 'Directory to update (default: PIPELINE_DATA_DIR)' }),
    series: Flags.string({ summary: 'Only this FRED series id (repeatable)', multiple: true }),
  };

  async run(): Promise<{ updated: UpdateResult[] }> {
    const { flags } = await this.parse(PipelineFetch);
    if (!this.settings.fredApiKey) {
      throw new TradesealError('precondition_failed', 'FRED_API_KEY is not set', { hint: 'get a free key at the FRED website and set FRED_API_KEY; without one the pipeline runs on the bundled files' });
    }
    const dataDir = flags['data-dir'] ?? this.settings.pipelineDataDir;
    await checkInputDir(dataDir, flags['data-dir'] === undefined ? 'PIPELINE_DATA_DIR' : '--data-dir');
    const updated = await updateDataDir(this.settings, dataDir, flags.series ? { series: flags.series } : {});
    this.log(renderTable(['series', 'fetched', 'kept', 'rows', 'last_date'], updated.map((u) => [u.id, u.fetched, u.kept, u.rows, u.lastDate]), reportStyle({}, undefined, '--json')));
    return { updated };
  }
}
