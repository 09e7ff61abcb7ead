/**
 * A real day, every day: June 2025 replayed night by night on simulated time (replay/month.ts, the scenario in
 * replay/scenario.ts), with the local FRED and Yahoo servers revealing each value when its release rule says it
 * was out. What a demanding operator and a sceptical subscriber check of the month:
 *
 * - every trading day published exactly once, at the instant it was due, its track-log leaf live, but for the days
 *   a source was down (published the next night or three days later, after the first open that would have traded
 *   them: backfills by the rule);
 * - a late night: nothing published, each late series named with the row it lacks, the source's failure named;
 * - the revised value of a published day refused with the series and the first changed date, the operator's full
 *   recompute republishing only the days it changed, and the nights going on;
 * - the H.4.1 of 06-18 used from 06-20 (Juneteenth delayed it), SPY's ex-dividend day without a rewrite;
 * - the engine accepting an order every trading morning on a fresh regime carried by a signed heartbeat;
 * - the replayed days equal, bit for bit, to a full run over the same data;
 * - the live-record performance covering the month.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith } from '../../src/core/config.js';
import { recentNights } from '../../src/signals/nightly/night-store.js';
import { tradingDaysBetween } from '../../src/signals/nightly/due.js';
import { availableAt } from '../../pipeline/release/publication.js';
import { compareWithFullRun, liveRecord } from '../../replay/checks.js';
import { replayMonth, type ReplayResult } from '../../replay/month.js';
import { JUNE_2025 } from '../../replay/scenario.js';
import { testStore, type TestStore } from '../helpers/db.js';
import { BUNDLED_DATA } from '../helpers/macro-data.js';

let store: TestStore;
let work: string;
let result: ReplayResult;
const MONTH = tradingDaysBetween('2025-05-30', '2025-07-03');

beforeAll(async () => {
  store = await testStore();
  work = await mkdtemp(path.join(os.tmpdir(), 'tradeseal-replay-'));
  result = await replayMonth({ sql: store.sql, config: configWith({ logLevel: 'silent' }), workDir: work, scenario: JUNE_2025 });
}, 600_000);

afterAll(async () => {
  await store?.close();
  await rm(work, { recursive: true, force: true });
});

interface Leaf {
  date: string;
  kind: string;
  logged_at_ms: number;
  leaf_index: number;
}
const leaves = (): Promise<Leaf[]> => store.sql<Leaf[]>`
  select date::text as date, kind, logged_at_ms::float8 as logged_at_ms, leaf_index::int as leaf_index from signal_log_leaves
  where date >= '2025-06-02' order by leaf_index`;

describe('the month, day by day', () => {
  it('has 23 trading days (Juneteenth and Independence Day closed), each published exactly once: its first leaf', async () => {
    expect(MONTH).toHaveLength(23);
    expect(MONTH).not.toContain('2025-06-19');
    const firsts = (await leaves()).filter((l) => l.kind !== 'republication');
    expect(firsts.map((l) => l.date)).toEqual(MONTH);
  });

  it('logs each day live at the instant it was due, but the days the source was down (published after their first open: backfills) and the day the operator published', async () => {
    const byDate = new Map((await leaves()).filter((l) => l.kind !== 'republication').map((l) => [l.date, l]));
    for (const day of MONTH) {
      const leaf = byDate.get(day)!;
      const lag = leaf.logged_at_ms - availableAt(day);
      if (day === '2025-06-03') {
        // A night late: the 09:30 open of 06-04, when a subscriber would first have traded it, went by.
        expect([leaf.kind, lag], day).toEqual(['backfill', 24 * 3_600_000]);
      } else if (day === '2025-06-12') {
        expect([leaf.kind, lag], day).toEqual(['backfill', 72 * 3_600_000]);
      } else if (day === '2025-06-24') {
        // The night of 06-25 refused; the operator's recompute at 07:15 published the day, 45 minutes after it was due.
        expect([leaf.kind, lag], day).toEqual(['live', 45 * 60_000]);
      } else {
        expect([leaf.kind, lag], day).toEqual(['live', 0]);
      }
    }
  });

  it("runs a night every weekday: a holiday's finds nothing due and publishes nothing", () => {
    const quiet = result.nights.filter((n) => n.status === 'up_to_date').map((n) => n.at.slice(0, 10));
    expect(quiet).toEqual(['2025-06-19', '2025-07-04']);
    expect(
      result.nights
        .filter((n) => n.status === 'published')
        .flatMap((n) => n.published)
        .sort(),
    ).toEqual(MONTH.filter((d) => d !== '2025-06-24'));
  });
});

describe('a night with the market source down', () => {
  it("publishes nothing by its deadline, names each late series with the row it lacks and the source's failure, and is recorded", async () => {
    const night = result.nights.find((n) => n.at.startsWith('2025-06-13'))!;
    expect([night.due, night.status, night.error_code, night.published]).toEqual(['2025-06-12', 'late', 'data_late', []]);
    expect(night.attempts).toBeGreaterThan(5);
    for (const file of ['GSPC.csv', 'SPY.csv', 'GLD.csv'])
      expect(night.reason).toContain(`${file} lacks the row of 2025-06-12 (released 2025-06-12T20:30:00.000Z`);
    expect(night.reason).toContain('Yahoo Finance, SPY: no useful answer after 3 attempts (last: HTTP 503');
    const [row] = (await recentNights(store.sql, 100)).filter((n) => n.due_day === '2025-06-12');
    expect(row).toMatchObject({ status: 'late', attempts: night.attempts, error_code: 'data_late' });
    expect(row!.late!.map((l) => [l.series, l.needed_row])).toEqual([
      ['GSPC', '2025-06-12'],
      ['SPY', '2025-06-12'],
      ['GLD', '2025-06-12'],
    ]);
    expect(new Date(row!.deadline).toISOString()).toBe('2025-06-13T13:00:00.000Z');
  });

  it('the next night publishes the day owed with its own, the owed one a backfill', () => {
    const next = result.nights.find((n) => n.at.startsWith('2025-06-16'))!;
    expect([next.status, next.published]).toEqual(['published', ['2025-06-12', '2025-06-13']]);
    expect(next.track_log).toMatchObject({ live: 1, backfill: 1, republication: 0 });
    const wednesday = result.nights.find((n) => n.at.startsWith('2025-06-04'))!;
    expect([wednesday.due, wednesday.status]).toEqual(['2025-06-03', 'late']);
    const thursday = result.nights.find((n) => n.at.startsWith('2025-06-05'))!;
    expect([thursday.status, thursday.published, thursday.track_log?.backfill]).toEqual(['published', ['2025-06-03', '2025-06-04'], 1]);
  });
});

describe('a revised value of a published day', () => {
  it('is refused by the next night, naming the series and the first changed date; nothing is published', () => {
    const night = result.nights.find((n) => n.at.startsWith('2025-06-25'))!;
    expect([night.due, night.status, night.error_code, night.published]).toEqual(['2025-06-24', 'refused', 'history_not_extendable', []]);
    expect(night.reason).toContain(
      'the input DGS10 changed on or before the last published day 2025-06-23: its first changed row is 2025-06-16 (revised: 4.46 then, 4.48 now)',
    );
  });

  it("the operator's recompute republishes only the days the revision changed, then the nights go on", async () => {
    const [step] = result.operator;
    expect(step?.what).toBe('tradeseal pipeline run --full --yes');
    // DGS10 of 06-16 is first used by the regime of 06-17: that day and every later published one changed.
    expect(step?.summary.plan).toMatchObject({ mode: 'full', changed: 4, changed_first: '2025-06-17', removed: 0 });
    const republished = (await leaves()).filter((l) => l.kind === 'republication').map((l) => l.date);
    expect(republished).toEqual(['2025-06-17', '2025-06-18', '2025-06-20', '2025-06-23']);
    expect(result.nights.filter((n) => n.at > '2025-06-26').every((n) => n.status === 'published' || n.status === 'up_to_date')).toBe(true);
  });
});

describe('the data vintage of each run', () => {
  it('records, per file, its source, when it was fetched and its digest, and whether the file is still as fetched', async () => {
    const [run] = await store.sql<Array<{ vintage: { series: Record<string, { sha256: string; fetched: Record<string, unknown> | null }> } }>>`
      select data_vintage as vintage from model_runs where status = 'published' and last_day = '2025-07-03' and as_of = '2025-07-03'`;
    const spy = run!.vintage.series.SPY!;
    expect(spy.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(spy.fetched).toMatchObject({ source: 'yahoo', fetched_at: '2025-07-07T10:30:00.000Z', as_fetched: true });
    expect(String(spy.fetched!.source_url)).toMatch(/\/v8\/finance\/chart\/SPY\?/);
    expect(run!.vintage.series.DGS10!.fetched).toMatchObject({ source: 'fred', fetched_at: '2025-07-07T10:30:00.000Z', as_fetched: true });
  });
});

describe('the cases of the calendar', () => {
  it('the H.4.1 of Wednesday 06-18, delayed by Juneteenth to Friday 06-20, is first used by the regime of 06-20', async () => {
    const vintages = await store.sql<Array<{ last_day: string; walcl: string }>>`
      select last_day::text as last_day, data_vintage->'series'->'WALCL'->>'lastDate' as walcl from model_runs
      where status = 'published' and last_day in ('2025-06-17', '2025-06-18', '2025-06-20') and as_of is not null order by last_day`;
    // The night's run reads the data as of its due day: on 06-18 the newest H.4.1 was the week of 06-11.
    expect(vintages.map((v) => [v.last_day, v.walcl])).toEqual([
      ['2025-06-17', '2025-06-11'],
      ['2025-06-18', '2025-06-11'],
      ['2025-06-20', '2025-06-18'],
    ]);
  });

  it("SPY's ex-dividend day (06-20) neither rewrites the history nor stops a night; the performance counts the cash", async () => {
    const bundled = (await readFile(path.join(BUNDLED_DATA, 'SPY.csv'), 'utf8')).split('\n');
    const fetched = (await readFile(path.join(result.dataDir, 'SPY.csv'), 'utf8')).split('\n');
    // The rows the data directory started with are as they were, byte for byte, after every night's fetch.
    const start = bundled.findIndex((l) => l.startsWith('2025-06-02,'));
    expect(fetched.slice(0, start)).toEqual(bundled.slice(0, start));
    // The rows the nights fetched are the vendor's numbers for the same days (written in their shortest form).
    const through = fetched.findIndex((l) => l.startsWith('2025-07-03,'));
    const numbers = (lines: string[]) => lines.map((l) => l.split(',').map((f, i) => (i === 0 ? f : Number(f))));
    expect(numbers(fetched.slice(start, through + 1))).toEqual(numbers(bundled.slice(start, through + 1)));
    expect(fetched.find((l) => l.startsWith('2025-06-20,'))).toBe(
      '2025-06-20,598.3800048828125,599.4600219726562,592.8599853515625,594.280029296875,94051400,1.761,1',
    );
    const [day] = await store.sql<Array<{ spy_dividend: number }>>`select spy_dividend from market_days where date = '2025-06-20'`;
    expect(day?.spy_dividend).toBe(1.761);
    expect(result.nights.find((n) => n.due === '2025-06-20')?.status).toBe('published');
  });

  it('the month end and the first day of July: the model refitted on the first trading day of the month', async () => {
    const [fit] = await store.sql<Array<{ hmm_fit_date: string }>>`select hmm_fit_date::text as hmm_fit_date from signal_days where date = '2025-07-01'`;
    const [june] = await store.sql<Array<{ hmm_fit_date: string }>>`select hmm_fit_date::text as hmm_fit_date from signal_days where date = '2025-06-30'`;
    expect([june?.hmm_fit_date, fit?.hmm_fit_date]).toEqual(['2025-06-02', '2025-07-01']);
  });
});

describe('the next morning', () => {
  it("the engine accepted the agent's order every trading morning, on a regime not stale, carried by a signed heartbeat", () => {
    expect(result.mornings.map((m) => m.day)).toEqual(tradingDaysBetween('2025-06-02', '2025-07-07'));
    for (const m of result.mornings) {
      expect([m.day, m.authorize, m.stale], JSON.stringify(m)).toEqual([m.day, '200', false]);
      expect(m.heartbeat_regime_id).not.toBeNull();
    }
    // The morning after a late night still ran on the day before's regime: two days old, within the policy's week.
    expect(result.mornings.find((m) => m.day === '2025-06-13')?.regime_date).toBe('2025-06-11');
    expect(result.mornings.find((m) => m.day === '2025-06-04')?.regime_date).toBe('2025-06-02');
    expect(result.mornings.find((m) => m.day === '2025-07-07')?.regime_date).toBe('2025-07-03');
  });
});

describe('what a subscriber checks', () => {
  it('the replayed days equal, bit for bit, what a full run over the same data publishes', async () => {
    const fresh = await testStore();
    try {
      const comparison = await compareWithFullRun(store.sql, fresh.sql, result.dataDir, JUNE_2025.last);
      expect(comparison.days).toBeGreaterThan(4600);
      expect(comparison.differing).toEqual([]);
      expect(comparison.market_differing).toEqual([]);
    } finally {
      await fresh.close();
    }
  }, 120_000);

  it("the live record's performance (signals performance --record live) covers the month and says what it rests on", async () => {
    const live = await liveRecord(store.sql);
    expect(live.record.basis).toBe('live');
    expect(live.first_day! >= '2025-06-03' && live.last_day === '2025-07-03').toBe(true);
    // Every day of the month's but those resting on the backfilled regimes of 06-03 and 06-12.
    expect(live.record.live_days).toBe(live.days);
    expect(live.days).toBeGreaterThanOrEqual(17);
    expect(live.record.backfill_days).toBeGreaterThan(4600);
  });
});
