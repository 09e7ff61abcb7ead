/**
 * Test helper: an independent computation of the feature frame in plain TypeScript, straight from the CSV
 * text, sharing no code with pipeline/ (no DuckDB, no catalogue, no SQL). It restates the documented
 * definitions (pipeline/features/*.ts module comments, data/macro/PROVENANCE.md) in the most literal way:
 * linear scans, two-pass means and standard deviations, explicit loops over the trading days. The
 * point-in-time rule (a value is used from the first trading day published after its release) comes from the
 * second statement of the release rules in `../release/reference.ts`, with the GSPC file's dates as the NYSE
 * trading days.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { firstUsableDay, RELEASE_KIND, shiftDays } from '../release/reference.js';

interface Point {
  date: string;
  value: number | null;
}

const WINDOW = 252;
const MOMENTUM = 20;
/** The equity trend's window: the close over the mean of the 200 closes ending on the day. */
const TREND = 200;
const RRP_DAILY_FROM = '2013-09-23';
const SPLICE_RATIO = 101.4155 / 111.6954;

/** Rows of one file: `date` and the value column (`close` for the market layouts), empty → null. */
export function readPoints(dir: string, id: string): Point[] {
  const lines = readFileSync(path.join(dir, `${id}.csv`), 'utf8')
    .trimEnd()
    .split('\n');
  const header = (lines[0] ?? '').split(',');
  const col = header.includes('close') ? header.indexOf('close') : 1;
  return lines.slice(1).map((line) => {
    const fields = line.split(',');
    const text = fields[col] ?? '';
    return { date: fields[0] ?? '', value: text === '' ? null : Number(text) };
  });
}

type UsableFrom = (id: string, date: string) => string;

/**
 * `at(day)`: the latest non-missing point of `id` usable on `day` (of points usable from the same day, a week
 * of H.10 rates, the latest date). Days must be asked in increasing order (a cursor that only moves forward,
 * so a whole history costs one pass; release days never go back as dates go forward).
 */
function cursor(points: Point[], id: string, usableFrom: UsableFrom): (day: string) => (Point & { usable: string }) | null {
  let k = 0;
  let found: (Point & { usable: string }) | null = null;
  return (day) => {
    while (k < points.length && usableFrom(id, (points[k] as Point).date) <= day) {
      const p = points[k] as Point;
      if (p.value !== null) found = { ...p, usable: usableFrom(id, p.date) };
      k++;
    }
    return found;
  };
}

function mean(xs: number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

function sampleStd(xs: number[]): number {
  const m = mean(xs);
  let s = 0;
  for (const x of xs) s += (x - m) ** 2;
  return Math.sqrt(s / (xs.length - 1));
}

/** z of the 20-day change against the std of daily changes over the 252 days ending at i, × √20. */
function momentumZ(x: number[], i: number): number {
  if (i < WINDOW) return Number.NaN;
  const changes: number[] = [];
  for (let j = i - WINDOW + 1; j <= i; j++) changes.push((x[j] as number) - (x[j - 1] as number));
  if (changes.some((c) => !Number.isFinite(c))) return Number.NaN;
  return ((x[i] as number) - (x[i - MOMENTUM] as number)) / (sampleStd(changes) * Math.sqrt(MOMENTUM));
}

export interface ReferenceFrame {
  dates: string[];
  columns: Record<string, number[]>;
}

/** The whole frame, one trading day at a time. */
export function referenceFrame(dir: string): ReferenceFrame {
  const ids = ['WALCL', 'WTREGEN', 'RRPONTSYD', 'DGS10', 'DGS2', 'T10Y2Y', 'BAMLH0A0HYM2', 'VIXCLS', 'DTWEXBGS', 'DTWEXB', 'GSPC', 'SPY', 'GLD'];
  const s = Object.fromEntries(ids.map((id) => [id, readPoints(dir, id)])) as Record<string, Point[]>;
  // The NYSE trading days: the dates of the GSPC file (it has a row on every trading day); past its last
  // row, every weekday.
  const gspcDays = new Set((s.GSPC ?? []).map((p) => p.date));
  const lastGspc = (s.GSPC ?? []).at(-1)?.date ?? '0000-01-01';
  const isTradingDay = (d: string): boolean => (d <= lastGspc ? gspcDays.has(d) : ![0, 6].includes(new Date(`${d}T00:00:00Z`).getUTCDay()));
  const usableFrom: UsableFrom = (id, date) => firstUsableDay(RELEASE_KIND[id] ?? 'close', date, isTradingDay);
  const firstUsable = (id: string): string => {
    const p = (s[id] ?? []).find((q) => q.value !== null);
    return p ? usableFrom(id, p.date) : '9999-12-31';
  };
  // End: a series is current until its next row (by its rhythm) would be usable; the calendar ends before
  // the earliest such day, the dollar counting as its later member.
  const nextRow = (id: string, d: string): string => {
    if (id === 'WALCL' || id === 'WTREGEN') return shiftDays(d, 7);
    let next = shiftDays(d, 1);
    const ok = id === 'GSPC' ? isTradingDay : (x: string): boolean => ![0, 6].includes(new Date(`${x}T00:00:00Z`).getUTCDay());
    while (!ok(next)) next = shiftDays(next, 1);
    return next;
  };
  const currentBefore = (id: string): string => {
    const last = (s[id] ?? []).at(-1)?.date;
    return last === undefined ? '0000-01-01' : usableFrom(id, nextRow(id, last));
  };

  const starts = ['WALCL', 'WTREGEN', 'DGS10', 'DGS2', 'BAMLH0A0HYM2', 'VIXCLS', 'GSPC'].map(firstUsable);
  starts.push([firstUsable('DTWEXBGS'), firstUsable('DTWEXB')].sort()[0] as string);
  const ends = ['WALCL', 'WTREGEN', 'RRPONTSYD', 'DGS10', 'DGS2', 'BAMLH0A0HYM2', 'VIXCLS', 'GSPC'].map(currentBefore);
  ends.push([currentBefore('DTWEXBGS'), currentBefore('DTWEXB')].sort().at(-1) as string);
  const start = starts.sort().at(-1) as string;
  const endBefore = ends.sort()[0] as string;

  const dates = (s.GSPC ?? []).filter((p) => p.value !== null && p.date >= start && p.date < endBefore).map((p) => p.date);
  const c: Record<string, number[]> = {};
  const push = (name: string, v: number | null | undefined): void => {
    (c[name] ??= []).push(v === null || v === undefined ? Number.NaN : v);
  };
  const rowOf = Object.fromEntries(['GSPC', 'SPY', 'GLD'].map((id) => [id, new Map((s[id] ?? []).map((p, k) => [p.date, k]))]));
  // A share's open, dividend and split of each day, straight from its file (SPY, GLD: prices as traded).
  const actionsOf = (id: string): Map<string, { open: number; dividend: number; split: number }> => {
    const lines = readFileSync(path.join(dir, `${id}.csv`), 'utf8')
      .trimEnd()
      .split('\n');
    const head = (lines[0] ?? '').split(',');
    const [o, d, k] = ['open', 'dividend', 'split'].map((name) => head.indexOf(name));
    return new Map(
      lines
        .slice(1)
        .map((line) => line.split(','))
        .map((f) => [
          f[0] ?? '',
          {
            open: Number(f[o as number]),
            dividend: d === -1 ? 0 : Number(f[d as number]),
            split: k === -1 ? 1 : Number(f[k as number]),
          },
        ]),
    );
  };
  const actions: Record<string, Map<string, { open: number; dividend: number; split: number }>> = { SPY: actionsOf('SPY'), GLD: actionsOf('GLD') };
  // The close and the close-to-close total return: the holder of one share at the previous close has, at this
  // close, `split` shares and the dividend reinvested at the open (price as traded × split × (1 + D / open)).
  const closeAndReturn = (id: string, day: string): [number, number] => {
    const pts = s[id] ?? [];
    const k = rowOf[id]?.get(day);
    if (k === undefined) return [Number.NaN, Number.NaN];
    const close = pts[k]?.value as number;
    const prev = k > 0 ? (pts[k - 1]?.value as number) : Number.NaN;
    const a = actions[id]?.get(day) ?? { open: Number.NaN, dividend: 0, split: 1 };
    return [close, (close * a.split * (a.dividend === 0 ? 1 : 1 + a.dividend / a.open)) / prev - 1];
  };
  const cursors = Object.fromEntries(ids.map((id) => [id, cursor(s[id] ?? [], id, usableFrom)]));

  for (const day of dates) {
    const at = Object.fromEntries(ids.map((id) => [id, (cursors[id] as ReturnType<typeof cursor>)(day)]));
    const v = (id: string): number | null => at[id]?.value ?? null;
    const walcl = v('WALCL') as number;
    const tga = v('WTREGEN') as number;
    const rrpPoint = at.RRPONTSYD ?? null;
    // Before daily operations: the operation first usable on this very day, else none (0).
    const rrp = day < RRP_DAILY_FROM ? (rrpPoint?.usable === day ? (rrpPoint.value as number) : 0) : (rrpPoint?.value as number);
    push('walcl_mn', walcl);
    push('wtregen_mn', tga);
    push('fed_assets_bn', walcl / 1000);
    push('tga_bn', tga / 1000);
    push('rrp_bn', rrp);
    push('net_liq_bn', (walcl - rrp * 1000 - tga) / 1000);
    push('ust10y_pct', v('DGS10'));
    const t = at.T10Y2Y ?? null;
    const d10 = at.DGS10 ?? null;
    const d2 = at.DGS2 ?? null;
    const useT = t !== null && (d10 === null || d2 === null || (t.date >= d10.date && t.date >= d2.date));
    push('curve_10y2y_pp', useT ? t.value : Math.round(((d10?.value as number) - (d2?.value as number)) * 100) / 100);
    push('hy_spread_pct', v('BAMLH0A0HYM2'));
    push('vix', v('VIXCLS'));
    const bgs = v('DTWEXBGS');
    push('dollar', bgs ?? (v('DTWEXB') as number) * SPLICE_RATIO);
    const [eq, req] = closeAndReturn('GSPC', day);
    push('equity_close', eq);
    push('ret_equity', req);
    const [spy, rspy] = closeAndReturn('SPY', day);
    push('spy_close', spy);
    const spyDay = rowOf.SPY?.has(day) ? actions.SPY?.get(day) : undefined;
    push('spy_open', spyDay?.open ?? null);
    push('spy_dividend', spyDay?.dividend ?? null);
    push('spy_split', spyDay?.split ?? null);
    push('ret_spy', rspy);
    const [gold, rgold] = closeAndReturn('GLD', day);
    push('gold_close', gold);
    push('ret_gold', rgold);
  }

  const n = dates.length;
  const nl = c.net_liq_bn as number[];
  for (let i = 0; i < n; i++) {
    const change = i >= MOMENTUM ? (nl[i] as number) - (nl[i - MOMENTUM] as number) : Number.NaN;
    push('net_liq_change_4w_bn', change);
    const window = i >= WINDOW - 1 ? nl.slice(i - WINDOW + 1, i + 1) : [];
    const z = window.length === WINDOW ? ((nl[i] as number) - mean(window)) / sampleStd(window) : Number.NaN;
    push('net_liq_zscore', z);
    push('net_liq_trend', Number.isNaN(change) ? Number.NaN : Math.abs(change) < 0.005 * Math.abs(nl[i] as number) ? 0 : Math.sign(change));
    const zc = momentumZ(c.curve_10y2y_pp as number[], i);
    const z10 = momentumZ(c.ust10y_pct as number[], i);
    const zhy = momentumZ(c.hy_spread_pct as number[], i);
    const zvix = momentumZ(c.vix as number[], i);
    const zd = momentumZ(c.dollar as number[], i);
    push('mom_z_curve', zc);
    push('mom_z_ust10y', z10);
    push('mom_z_hy', zhy);
    push('mom_z_vix', zvix);
    push('mom_z_dollar', zd);
    push('financial_stress_z', -(zhy + zvix) / 2);
    push('growth_momentum', Math.tanh(zc / 2));
    push('inflation_momentum', Math.tanh(z10 / 2));
    push('liquidity', Math.tanh(z / 2));
    push('financial_stress', Math.tanh(-(zhy + zvix) / 2 / 2));
    push('dollar_strength', Math.tanh(zd / 2));
    const closes = c.equity_close as number[];
    const trendWindow = i >= TREND - 1 ? closes.slice(i - TREND + 1, i + 1) : [];
    push('equity_trend_200d', trendWindow.length === TREND ? Math.log((closes[i] as number) / mean(trendWindow)) : Number.NaN);
  }
  return { dates, columns: c };
}
