/**
 * Refreshing one market file (GSPC, SPY, GLD) from the market-data source: ask the source for the days from a
 * little before the file's last row (`OVERLAP_DAYS`, so that a vendor's correction of the last days is seen) to
 * today, keep only the bars whose close was out by now by the series' release rule (a session still trading has
 * a partial bar), merge them into the file comparing content (./merge-bars.ts), check the result with the
 * series' rules (the input validator, ../ingest/validate.ts) and only then replace the file, atomically. A bad
 * answer never lands on disk: it is a `source_answer_invalid` error naming the source, the series and every
 * problem, and the file is left as it was.
 *
 * The file must exist: the market files' history comes with the package (`data/macro`), and a source is asked
 * only for what is new. A deployment seeds `PIPELINE_DATA_DIR` with a copy of `data/macro`.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../src/core/atomic-file.js';
import { TradesealError } from '../../src/core/errors.js';
import { type SeriesSpec } from '../ingest/catalogue.js';
import { addDays } from '../../src/core/dates.js';
import { problemEntries, summarizeProblems } from '../ingest/problems.js';
import { validateSeriesTextOnce } from '../ingest/validated.js';
import { releasedAt } from '../release/rules.js';
import type { MarketSource, RequestOptions } from '../sources/market-source.js';
import type { FetchedFile } from './fetch-record.js';
import { mergeBars } from './merge-bars.js';

/** Calendar days before the file's last row that are asked again: two weeks of trading days and a holiday. */
export const OVERLAP_DAYS = 20;

export interface RefreshOptions {
  /** The instant of the refresh (ms): what was released by then is kept. */
  nowMs: number;
  request?: RequestOptions;
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The New York calendar day of an instant. */
const newYorkDay = (ms: number): string =>
  new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York', year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(ms));

/** The newest day on or before today (New York) whose close is released by `nowMs` under the series' rule. */
function newestReleased(spec: SeriesSpec, nowMs: number): string {
  let d = newYorkDay(nowMs);
  while (releasedAt(spec.release, d) > nowMs) d = addDays(d, -1);
  return d;
}

export async function refreshMarketSeries(source: MarketSource, dir: string, spec: SeriesSpec, options: RefreshOptions): Promise<FetchedFile> {
  const file = path.join(dir, spec.file);
  let before: string;
  try {
    before = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    throw new TradesealError('precondition_failed', `${file} does not exist: a market file's history is not fetched, only its new days`, {
      hint: 'seed PIPELINE_DATA_DIR with a copy of the bundled data/macro, then fetch',
    });
  }
  const last = before.trimEnd().split('\n').at(-1)?.slice(0, 10) ?? '';
  // Up to the newest day whose close is out: a session not closed yet is neither asked for nor kept.
  const newest = newestReleased(spec, options.nowMs);
  const from = /^\d{4}-\d{2}-\d{2}$/.test(last) ? addDays(last, -OVERLAP_DAYS) : '1990-01-01';
  if (from > newest)
    throw new TradesealError(
      'precondition_failed',
      `${spec.file} ends on ${last}, after the newest day whose close is out (${newest}): the clock or the file is wrong`,
    );
  const served = await source.bars({ series: spec.id, from, to: newest }, options.request);
  const where = `${source.name} (${source.symbol(spec.id)})`;
  if (spec.layout === 'ohlcv') {
    const action = served.find((b) => b.dividend !== 0 || b.split !== 1);
    if (action)
      throw new TradesealError(
        'source_answer_invalid',
        `${where} served a dividend or a split for ${spec.id} on ${action.date}; an index has neither. Nothing was written.`,
      );
  }
  // A source checks its own answer; whatever it is, the days must come once each and in order, or nothing is merged.
  const disorder = served.findIndex((b, i) => i > 0 && b.date <= served[i - 1]!.date);
  if (disorder > 0) {
    throw new TradesealError(
      'source_answer_invalid',
      `${where} served ${spec.id}'s day ${served[disorder]!.date} after ${served[disorder - 1]!.date}: days must come once each, oldest first. Nothing was written: ${spec.file} is as it was.`,
    );
  }
  const released = served.filter((b) => releasedAt(spec.release, b.date) <= options.nowMs);
  const merged = mergeBars(spec, before, released);
  const { problems } = validateSeriesTextOnce(spec, merged.text);
  if (problems.length > 0) {
    throw new TradesealError(
      'source_answer_invalid',
      `${where} answered ${spec.id} with rows its rules refuse (${summarizeProblems(problems)}; line numbers are those of the file as it would have been written). Nothing was written: ${spec.file} is as it was.`,
      {
        errors: problemEntries(problems),
      },
    );
  }
  if (merged.text !== before) await writeFileAtomic(file, merged.text);
  return {
    series: spec.id,
    file: spec.file,
    source: source.name,
    source_url: source.describe(spec.id),
    fetched_at: new Date(options.nowMs).toISOString(),
    changed_at: new Date(options.nowMs).toISOString(),
    sha256: sha256(merged.text),
    rows: merged.rows,
    last_date: merged.text.trimEnd().split('\n').at(-1)?.slice(0, 10) ?? null,
    added: merged.added,
    revisions: merged.revisions,
  };
}
