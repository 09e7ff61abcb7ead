/**
 * What a subscriber checks of a replayed month, for the tests and `npm run replay` alike:
 *
 * - `compareWithFullRun`: the replayed store's published days against a full run over the same data directory on a
 *   fresh store, number by number (every field of each day's signal, and each day's prices and actions), as of
 *   the month's last day: the days a night published one at a time must be the days one run over the whole data
 *   publishes, bit for bit;
 * - `liveRecord`: the published performance over the days whose regimes were logged live (what
 *   `tradeseal signals performance --record live` shows).
 */
import type { Sql } from '../src/store/driver.js';
import { performanceOn, type PerformanceWithRecord } from '../src/signals/ops/track-record.js';
import { latestReports } from '../src/signals/store/quant.js';
import { sameSignal } from '../pipeline/publish/plan.js';
import { publishedSignals } from '../src/signals/publish/published.js';
import { runPipeline } from '../src/signals/publish/run.js';

export interface Comparison {
  /** Days compared (the whole published history). */
  days: number;
  /** Days whose signal differs in any field, and days whose prices or actions differ. */
  differing: string[];
  market_differing: string[];
}

type MarketRow = {
  date: string;
  spy_open: number | null;
  spy_close: number | null;
  spy_dividend: number | null;
  spy_split: number | null;
  gld_close: number | null;
};
const marketRows = (sql: Sql): Promise<MarketRow[]> =>
  sql<MarketRow[]>`select date::text as date, spy_open, spy_close, spy_dividend, spy_split, gld_close from market_days order by date`;

export async function compareWithFullRun(replayed: Sql, fresh: Sql, dataDir: string, last: string): Promise<Comparison> {
  await runPipeline(fresh, { dataDir, asOf: last, publish: true, seed: 7 });
  const [mine, full] = await Promise.all([publishedSignals(replayed), publishedSignals(fresh)]);
  const mineByDate = new Map(mine.map((d) => [d.date, d]));
  const byDate = new Map(full.map((d) => [d.date, d]));
  const differing = [...new Set([...mineByDate.keys(), ...byDate.keys()])].sort().filter((date) => {
    const a = mineByDate.get(date);
    const b = byDate.get(date);
    return !a || !b || !sameSignal(a, b);
  });
  const [myMarket, fullMarket] = await Promise.all([marketRows(replayed), marketRows(fresh)]);
  const fullByDate = new Map(fullMarket.map((m) => [m.date, m]));
  const fields = ['spy_open', 'spy_close', 'spy_dividend', 'spy_split', 'gld_close'] as const;
  const marketDiffering = myMarket
    .filter((m) => {
      const f = fullByDate.get(m.date);
      return !f || fields.some((k) => !Object.is(m[k], f[k]));
    })
    .map((m) => m.date);
  if (myMarket.length !== fullMarket.length) marketDiffering.push(`${myMarket.length} days against ${fullMarket.length}`);
  return { days: Math.max(mine.length, full.length), differing, market_differing: marketDiffering };
}

export async function liveRecord(sql: Sql): Promise<PerformanceWithRecord> {
  const published = await latestReports(sql);
  if (!published) throw new Error('nothing published: no performance report');
  return performanceOn(sql, published.performance, 'live');
}
