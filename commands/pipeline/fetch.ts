import { Flags } from '@oclif/core';
import { TradesealCommand } from '../../src/cli/base-command.js';
import { renderFetch } from '../../src/cli/fetch-view.js';
import { TradesealError } from '../../src/core/errors.js';
import { checkInputDir } from '../../src/core/file-errors.js';
import { assertFetchable, seedDataDir } from '../../pipeline/fetch/data-dir.js';
import { fetchAll, type FetchOutcome } from '../../pipeline/fetch/fetch-all.js';
import { CATALOGUE } from '../../pipeline/ingest/catalogue.js';
import { marketSource } from '../../pipeline/sources/index.js';

export default class PipelineFetch extends TradesealCommand {
  static override summary = 'Refresh every input series in the data directory: FRED (FRED_API_KEY) and the market series (MARKET_DATA_SOURCE)';
  static override description = `Fetches each series the pipeline uses from its source: the FRED series from the FRED API, the market series (GSPC, SPY, GLD: daily bars as traded, with SPY's dividends and splits) from the source MARKET_DATA_SOURCE names (yahoo, no key; eodhd, EODHD_API_TOKEN). Each file is merged with what it holds (history a source no longer serves is kept; a market day the source serves again is compared field by field, and every difference is listed as a revision), checked against its series' rules, and only then replaced, atomically: a bad answer never lands on disk. FETCHED.json in the directory records, per file, its source, when it was fetched, its digest and its revisions; each pipeline run copies it into its data vintage.

A source that fails for one series leaves that file as it was; the others are still refreshed, and the command then exits non-zero with the failures listed. Without FRED_API_KEY only the market series can be fetched: name them with --series.`;
  static override examples = [
    'FRED_API_KEY=… <%= config.bin %> pipeline fetch',
    'PIPELINE_DATA_DIR=/srv/tradeseal/data FRED_API_KEY=… <%= config.bin %> pipeline fetch --init',
    '<%= config.bin %> pipeline fetch --series SPY --series GSPC',
    'MARKET_DATA_SOURCE=eodhd EODHD_API_TOKEN=… FRED_API_KEY=… <%= config.bin %> pipeline fetch --json',
  ];
  static override flags = {
    'data-dir': Flags.string({ summary: 'Directory to update (default: PIPELINE_DATA_DIR); never the bundled data/macro' }),
    init: Flags.boolean({ summary: 'First copy the bundled data/macro into the directory (made if need be): the files it lacks, never over one it has' }),
    series: Flags.string({ summary: 'Only this series (repeatable): a FRED id or GSPC, SPY, GLD', multiple: true, options: CATALOGUE.map((s) => s.id) }),
  };

  async run(): Promise<FetchOutcome> {
    const { flags } = await this.parse(PipelineFetch);
    const settings = this.settings;
    const wantsFred = CATALOGUE.some((s) => s.source === 'fred' && (flags.series === undefined || flags.series.includes(s.id)));
    if (wantsFred && !settings.fredApiKey) {
      throw new TradesealError('precondition_failed', 'FRED_API_KEY is not set, so the FRED series cannot be fetched', {
        hint: 'get a free key at fred.stlouisfed.org and set FRED_API_KEY, or fetch only the market series: --series GSPC --series SPY --series GLD',
      });
    }
    const wantsMarket = CATALOGUE.some((s) => s.source === 'market' && (flags.series === undefined || flags.series.includes(s.id)));
    const dataDir = flags['data-dir'] ?? settings.pipelineDataDir;
    const setting = flags['data-dir'] === undefined ? 'PIPELINE_DATA_DIR' : '--data-dir';
    assertFetchable(dataDir, setting);
    if (flags.init) {
      const copied = await seedDataDir(dataDir);
      this.log(copied.length > 0 ? `copied ${copied.length} bundled files into ${dataDir}` : `${dataDir} has every bundled file already`);
    }
    await checkInputDir(dataDir, setting);
    const outcome = await fetchAll(dataDir, {
      nowMs: Date.now(),
      market: wantsMarket ? marketSource(settings) : null,
      fred: wantsFred ? settings : { ...settings, fredApiKey: null },
      ...(flags.series ? { series: flags.series } : {}),
    });
    this.log(renderFetch(outcome));
    const [first] = outcome.failed;
    if (first) {
      throw new TradesealError(
        first.code === 'internal' ? 'source_unavailable' : first.code,
        `${outcome.failed.length} of ${outcome.failed.length + outcome.fetched.length} series could not be refreshed (their files are as they were): ${outcome.failed.map((f) => `${f.series}: ${f.message}`).join('; ')}`,
        {
          extra: { fetched: outcome.fetched, failed: outcome.failed },
          ...(first.errors ? { errors: first.errors } : {}),
        },
      );
    }
    return outcome;
  }
}
