/**
 * What `npm start` (`tradeseal serve --pipeline-if-empty --fetch`) does before it listens, so that a new user's
 * first start serves a real day when they gave it the keys, and says in one line what to set when not:
 *
 * - with the sources configured (FRED_API_KEY, MARKET_DATA_SOURCE and its key) and a data directory of the
 *   operator's own (`PIPELINE_DATA_DIR`; the bundled one is never written): one night, tried once (the nightly
 *   job's, ../../pipeline/nightly/night.ts): fetch every series, and publish the day due (an empty store: the
 *   whole history to it) if every series has the rows its release rule says are out, else nothing, saying which
 *   series is late: a start never publishes a day early or without one of its rows;
 * - otherwise: one line naming what to set, then, on an empty store, the pipeline on the files as they are (the
 *   bundled data by default).
 *
 * A late series, a source that fails, or a run that refuses (a revised input of a published day) does not stop
 * the start: the server serves what is published, and a warning says why nothing new was; the night is recorded
 * (`tradeseal pipeline status`), and the engine's health says how old the regime in force is.
 */
import type { Config } from '../core/config.js';
import type { Sql } from '../store/driver.js';
import { hasPublishedSignals } from '../signals/store/history.js';
import { isBundledDataDir } from '../../pipeline/fetch/data-dir.js';
import { fetchFromSettings, nightFromSettings, sourcesMissing } from '../signals/nightly/from-settings.js';
import { runNight } from '../signals/nightly/night.js';
import { runPipeline, type PipelineHooks, type RunSummary } from '../signals/publish/run.js';
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
  if (isBundledDataDir(settings.pipelineDataDir))
    return 'not fetching: PIPELINE_DATA_DIR is the bundled data/macro, which a fetch never changes; set it to a directory of your own (`tradeseal pipeline fetch --init` seeds it) and `npm start` fetches before it serves';
  return null;
}

export async function prepareData(settings: Config, sql: Sql, out: StartData, fetch: boolean): Promise<RunSummary | null> {
  const run = (): Promise<RunSummary> =>
    runPipeline(
      sql,
      {
        dataDir: settings.pipelineDataDir,
        asOf: null,
        seed: settings.pipelineSeed,
        costBps: settings.signalCostBps,
        trackLogSigningKey: settings.signalLogSigningKey,
        keySettings: settings,
      },
      out.runner ? { runner: out.runner } : {},
    );
  const why = fetch ? whyNotFetching(settings) : 'not asked to fetch';
  if (why === null) {
    out.say(`fetching every series into ${settings.pipelineDataDir} (FRED, ${settings.marketDataSource})`);
    const fetch = fetchFromSettings(settings);
    const night = await runNight({
      ...nightFromSettings(settings, sql, { fetch: true, log: () => undefined }),
      fetch: async (nowMs, series) => {
        const outcome = await fetch(nowMs, series);
        out.say(renderFetch(outcome));
        return outcome;
      },
      run: (due) =>
        runPipeline(
          sql,
          {
            dataDir: settings.pipelineDataDir,
            asOf: due,
            publish: true,
            seed: settings.pipelineSeed,
            costBps: settings.signalCostBps,
            trackLogSigningKey: settings.signalLogSigningKey,
            keySettings: settings,
          },
          out.runner ? { runner: out.runner } : {},
        ),
      // One try: a start does not wait for a late series, the nightly job does.
      deadline: (started) => started,
    });
    if (night.status === 'up_to_date') out.say(`${night.due}, the day due, is published already`);
    else if (night.status !== 'published') out.warn(`nothing new was published (${night.error_code ?? night.status}): ${night.reason}`);
    return night.run;
  }
  if (fetch) out.say(why);
  if (await hasPublishedSignals(sql)) return null;
  out.say(
    `nothing is published yet: running the pipeline on ${isBundledDataDir(settings.pipelineDataDir) ? 'the bundled data' : settings.pipelineDataDir} first`,
  );
  return run();
}
