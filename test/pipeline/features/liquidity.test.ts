/**
 * Net liquidity: values computed by hand from the raw files (units: WALCL and WTREGEN millions, RRP
 * billions, result billions), the release rules around a Wednesday, the RRP rules, and the trailing-window
 * statistics recomputed from the frame's own level column (so they can only use days up to each date).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadFeatureFrame, type FeatureFrame } from '../../../pipeline/features/frame.js';
import { trendLabel } from '../../../pipeline/features/params.js';
import { DATA_DIR } from './data-dir.js';

let frame: FeatureFrame;
beforeAll(async () => {
  frame = await loadFeatureFrame(DATA_DIR);
});

const column = (name: string): Float64Array => frame.columns[name] as Float64Array;
const row = (date: string): number => {
  const i = frame.dates.indexOf(date);
  if (i < 0) throw new Error(`${date} not in the calendar`);
  return i;
};
const at = (name: string, date: string): number => column(name)[row(date)] as number;

describe('net liquidity by hand', () => {
  it('Wednesday 2020-03-18 uses the H.4.1 week of 2020-03-11 and the RRP of 2020-03-17; Thursday 2020-03-19 the week of 2020-03-18 and the RRP of 2020-03-18', () => {
    // WALCL.csv 2020-03-11 4311911.0, 2020-03-18 4668212.0; WTREGEN.csv 380556.0, 362576.0;
    // RRPONTSYD.csv 2020-03-17 5.7, 2020-03-18 0.477. Wednesday's regime is published Thursday 06:30: the H.4.1
    // of that Wednesday comes out Thursday 16:30, FRED's RRP of Wednesday on Thursday too, so Wednesday sees
    // last week's H.4.1 and Tuesday's operation. Thursday's regime (published Friday 06:30) sees both.
    expect([at('walcl_mn', '2020-03-18'), at('wtregen_mn', '2020-03-18'), at('rrp_bn', '2020-03-18')]).toEqual([4311911, 380556, 5.7]);
    expect(at('net_liq_bn', '2020-03-18')).toBeCloseTo((4311911 - 5.7 * 1000 - 380556) / 1000, 9);
    expect(at('net_liq_bn', '2020-03-18')).toBeCloseTo(3925.655, 9);
    expect([at('walcl_mn', '2020-03-19'), at('wtregen_mn', '2020-03-19'), at('rrp_bn', '2020-03-19')]).toEqual([4668212, 362576, 0.477]);
    expect(at('net_liq_bn', '2020-03-19')).toBeCloseTo(4305.159, 9);
  });

  it('multiplies RRP (billions) by 1000 against the millions of WALCL and WTREGEN', () => {
    // Thursday 2022-12-29: WALCL 2022-12-28 8551169.0, WTREGEN 2022-12-28 427926.0 (out that Thursday), RRP of
    // Wednesday 2022-12-28 2293.003 bn (FRED's copy, out that Thursday).
    expect(at('net_liq_bn', '2022-12-29')).toBeCloseTo((8551169 - 2293003 - 427926) / 1000, 9);
    expect(at('net_liq_bn', '2022-12-29')).toBeCloseTo(5830.24, 9);
    expect(at('fed_assets_bn', '2022-12-29')).toBeCloseTo(8551.169, 9);
    expect(at('tga_bn', '2022-12-29')).toBeCloseTo(427.926, 9);
  });

  it('reads a missing RRP as 0 before daily operations (2013-09-23) and carries it over holidays after', () => {
    // RRPONTSYD.csv: 2013-08-19 5.0, 2013-08-20 5.0, 2013-08-21 empty. A day sees the operation released for it
    // (the one of the Fed business day before), else 0.
    expect(at('rrp_bn', '2013-08-20')).toBe(5);
    expect(at('rrp_bn', '2013-08-21')).toBe(5);
    expect(at('rrp_bn', '2013-08-22')).toBe(0);
    expect(at('rrp_bn', '2008-10-10')).toBe(0);
    // Columbus Day 2013-10-14: stocks trade, the Fed is closed. Friday 2013-10-11's operation (1.421) is out on the
    // next Fed business day, Tuesday, so Monday still sees Thursday's (1.997), Tuesday sees Friday's, and Monday's
    // empty row (no operation) leaves Friday's standing until Wednesday sees Tuesday's (2.096).
    expect(at('rrp_bn', '2013-10-14')).toBe(1.997);
    expect(at('rrp_bn', '2013-10-15')).toBe(1.421);
    expect(at('rrp_bn', '2013-10-16')).toBe(2.096);
  });
});

describe('windows', () => {
  it('the 4-week change is the change over 20 trading days', () => {
    const level = column('net_liq_bn');
    const change = column('net_liq_change_4w_bn');
    expect(change.slice(0, 20).every(Number.isNaN)).toBe(true);
    for (let i = 20; i < level.length; i++) {
      if (change[i] !== (level[i] as number) - (level[i - 20] as number)) throw new Error(`change on ${frame.dates[i]}`);
    }
  });

  it('the z-score uses the 252 trading days ending on the day, and nothing later', () => {
    const level = column('net_liq_bn');
    const z = column('net_liq_zscore');
    expect(Number.isNaN(z[250] as number)).toBe(true);
    expect(Number.isFinite(z[251] as number)).toBe(true);
    for (const i of [251, 1000, row('2020-03-18'), level.length - 1]) {
      const window = Array.from(level.slice(i - 251, i + 1));
      const mean = window.reduce((a, b) => a + b, 0) / 252;
      const sd = Math.sqrt(window.reduce((a, b) => a + (b - mean) ** 2, 0) / 251);
      expect(z[i]).toBeCloseTo(((level[i] as number) - mean) / sd, 9);
    }
  });

  it('the trend is FLAT within ±0.5 % of the level, else the sign of the 4-week change', () => {
    const level = column('net_liq_bn');
    const change = column('net_liq_change_4w_bn');
    const trend = column('net_liq_trend');
    const seen = new Set<string | null>();
    for (let i = 20; i < trend.length; i++) {
      const c = change[i] as number;
      const expected = Math.abs(c) < 0.005 * Math.abs(level[i] as number) ? 0 : Math.sign(c);
      if (trend[i] !== expected) throw new Error(`trend on ${frame.dates[i]}: ${trend[i]} vs ${expected}`);
      seen.add(trendLabel(trend[i] as number));
    }
    expect([...seen].sort()).toEqual(['CONTRACTING', 'EXPANDING', 'FLAT']);
    expect(trendLabel(Number.NaN)).toBeNull();
    expect(at('net_liq_trend', '2025-11-26')).toBe(-1);
  });

  it('maps the liquidity gauge from the z-score with tanh(z / 2), inside (−1, 1)', () => {
    const z = at('net_liq_zscore', '2020-03-19');
    expect(z).toBeGreaterThan(6);
    expect(at('liquidity', '2020-03-19')).toBeCloseTo(Math.tanh(z / 2), 12);
    for (const name of ['growth_momentum', 'inflation_momentum', 'liquidity', 'financial_stress', 'dollar_strength']) {
      const finite = Array.from(column(name)).filter(Number.isFinite);
      expect(finite.length, name).toBeGreaterThan(5000);
      expect(
        finite.every((g) => g > -1 && g < 1),
        name,
      ).toBe(true);
    }
  });
});
