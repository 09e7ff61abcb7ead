/**
 * What `npm start` (`tradeseal serve --pipeline-if-empty --fetch`) does before it listens, so that a new user's
 * first start serves a real day when they gave it the keys, and says in one line what to set when not:
 *
 * - with the sources configured (FRED_API_KEY, MARKET_DATA_SOURCE and its key) and a data directory of the
 *   operator's own (`PIPELINE_DATA_DIR`; the bundled one is never written): fetch every series, then run the
 *   pipeline, which publishes every day the data are complete for (an empty store: the whole history);
 * - otherwise: one line naming what to set, then, on an empty store, the pipeline on the files as they are (the
 *   bundled data by default).
 *
 * A source that fails, or a run that refuses (a revised input of a published day), does not stop the start: the
 * server serves what is published, and the line says why nothing new was; `tradeseal pipeline status` and the
 * engine's health say the rest.
 */
import type { Config } from '../config.js';
import { isTradesealError } from '../errors.js';
import type { Sql } from '../store/driver.js';
import { hasPublishedSignals } from '../signals/store/history.js';
import { isBundledDataDir } from '../../pipeline/fetch/data-dir.js';
import { fetchFromSettings, sourcesMissing } from '../../pipeline/nightly/from-settings.js';
import { runPipeline, type PipelineHooks, type RunSummary } from '../../pipeline/run.js';
import { renderFetch } from './fetch-view.js';

export interface StartData {
  say: (line: string) => void;
  warn: (line: string) => void;
  runner: PipelineHooks['runner'];
}

/** Why the start does not fetch, or null when it does. */
export function whyNotFetching(settings: Config): string | null {
  const missing = sourcesMissing(settings);
  if (missing) return `not fetching: ${missing}; set it and \`npm start\` fetches every series before it serves (docs/operations.md, "Running it every day")`;
  if (isBundledDataDir(settings.pipelineDataDir)) return 'not fetching: PIPELINE_DATA_DIR is the bundled data/macro, which a fetch never changes; set it to a directory of your own (`tradeseal pipeline fetch --init` seeds it) and `npm start` fetches before it serves';
  return null;
}

export async function prepareData(settings: Config, sql: Sql, out: StartData, fetch: boolean): Promise<RunSummary | null> {
  const run = (): Promise<RunSummary> => runPipeline(sql, {
    dataDir: settings.pipelineDataDir, asOf: null, seed: settings.pipelineSeed, costBps: settings.signalCostBps, trackLogSigningKey: settings.signalLogSigningKey,
  }, out.runner ? { runner: out.runner } : {});
  const why = fetch ? whyNotFetching(settings) : 'not asked to fetch';
  if (why === null) {
    out.say(`fetching every series into ${settings.pipelineDataDir} (FRED, ${settings.marketDataSource})`);
    const outcome = await fetchFromSettings(settings)(Date.now());
    out.say(renderFetch(outcome));
    if (outcome.failed.length > 0) out.warn(`${outcome.failed.length} series could not be refreshed; the run publishes only the days their data are complete for`);
    try {
      return await run();
    } catch (err) {
      if (!isTradesealError(err)) throw err;
      out.warn(`the pipeline published nothing new: ${err.code}: ${err.message}`);
      return null;
    }
  }
  if (fetch) out.say(why);
  if (await hasPublishedSignals(sql)) return null;
  out.say(`nothing is published yet: running the pipeline on ${isBundledDataDir(settings.pipelineDataDir) ? 'the bundled data' : settings.pipelineDataDir} first`);
  return run();
}
