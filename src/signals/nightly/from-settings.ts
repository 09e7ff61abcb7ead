/**
 * A night's parts from the settings: fetch from FRED (`FRED_API_KEY`) and the market source
 * (`MARKET_DATA_SOURCE`) into `PIPELINE_DATA_DIR`, run the pipeline as of the due day with the seed, cost and
 * track-log key of the settings, give up at `PIPELINE_DEADLINE` in `PIPELINE_TIMEZONE`, and try again every
 * `PIPELINE_RETRY_SECONDS`. `pipeline nightly`, `pipeline schedule` and `npm start` build their nights here;
 * the replay builds its own with a simulated clock.
 */
import type { Config } from '../../core/config.js';
import type { KeySettings } from '../../secrets/kms/from-config.js';
import { TradesealError } from '../../core/errors.js';
import type { Sql } from '../../store/driver.js';
import { assertFetchable } from '../../../pipeline/fetch/data-dir.js';
import { fetchAll, type FetchOutcome } from '../../../pipeline/fetch/fetch-all.js';
import { runPipeline } from '../publish/run.js';
import { marketSource } from '../../../pipeline/sources/index.js';
import { deadlineAfter } from './deadline.js';
import type { NightDeps } from './night.js';

export type NightSettings = Pick<
  Config,
  | 'pipelineDataDir'
  | 'pipelineSeed'
  | 'signalCostBps'
  | 'signalLogSigningKey'
  | 'fredApiKey'
  | 'fredBaseUrl'
  | 'marketDataSource'
  | 'yahooBaseUrl'
  | 'eodhdApiToken'
  | 'eodhdBaseUrl'
  | 'pipelineDeadline'
  | 'pipelineTimezone'
  | 'pipelineRetrySeconds'
> &
  KeySettings;

/** Why the sources cannot all be fetched with these settings, or null when they can. */
export function sourcesMissing(settings: NightSettings): string | null {
  if (settings.fredApiKey === null) return 'FRED_API_KEY is not set, so the FRED series cannot be fetched';
  if (settings.marketDataSource === 'eodhd' && settings.eodhdApiToken === null) return 'MARKET_DATA_SOURCE is eodhd and EODHD_API_TOKEN is not set';
  return null;
}

/** The fetch of every source with these settings; throws `precondition_failed` when a source has no key. */
export function fetchFromSettings(
  settings: NightSettings,
  dataDir: string = settings.pipelineDataDir,
): (nowMs: number, series?: readonly string[]) => Promise<FetchOutcome> {
  const missing = sourcesMissing(settings);
  if (missing)
    throw new TradesealError('precondition_failed', `${missing}: a night fetches every series before it runs`, {
      hint: 'set FRED_API_KEY (free at fred.stlouisfed.org) and, for EODHD, EODHD_API_TOKEN; or pass --no-fetch when the files are brought up to date another way',
    });
  assertFetchable(dataDir, dataDir === settings.pipelineDataDir ? 'PIPELINE_DATA_DIR' : '--data-dir');
  const market = marketSource(settings);
  return (nowMs, series) => fetchAll(dataDir, { nowMs, market, fred: settings, ...(series ? { series } : {}) });
}

/** A sleep that ends early when `signal` is aborted. */
const sleepUnless =
  (signal: AbortSignal | undefined) =>
  (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const stop = (): void => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', stop);
        resolve();
      }, ms);
      signal?.addEventListener('abort', stop, { once: true });
    });

export function nightFromSettings(
  settings: NightSettings,
  sql: Sql,
  options: { fetch: boolean; log: NightDeps['log']; dataDir?: string; signal?: AbortSignal },
): NightDeps {
  const dataDir = options.dataDir ?? settings.pipelineDataDir;
  const fetch = options.fetch ? fetchFromSettings(settings, dataDir) : async (): Promise<FetchOutcome> => ({ fetched: [], failed: [] });
  return {
    sql,
    dataDir,
    fetch,
    log: options.log,
    now: Date.now,
    sleep: sleepUnless(options.signal),
    ...(options.signal ? { signal: options.signal } : {}),
    run: (due) =>
      runPipeline(sql, {
        dataDir,
        asOf: due,
        publish: true,
        seed: settings.pipelineSeed,
        costBps: settings.signalCostBps,
        trackLogSigningKey: settings.signalLogSigningKey,
        keySettings: settings,
      }),
    deadline: (started) =>
      settings.pipelineDeadline.kind === 'after'
        ? started + settings.pipelineDeadline.ms
        : deadlineAfter(started, settings.pipelineDeadline.time, settings.pipelineTimezone),
    retryMs: settings.pipelineRetrySeconds * 1000,
  };
}
