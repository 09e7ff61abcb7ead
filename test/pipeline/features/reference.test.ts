/**
 * The DuckDB feature frame against an independent plain-TypeScript computation from the raw CSV files
 * (reference.ts): same calendar, and every column on every day, levels exactly and windowed statistics to
 * within floating-point rounding (the two sum in different orders). A few dates are also pinned by value.
 */
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { FEATURE_COLUMNS } from '../../../pipeline/features/columns.js';
import { loadFeatureFrame, type FeatureFrame } from '../../../pipeline/features/frame.js';
import { referenceFrame, type ReferenceFrame } from './reference.js';

const DATA_DIR = fileURLToPath(new URL('../../../data/macro/', import.meta.url));
const EXACT = new Set([
  'walcl_mn',
  'wtregen_mn',
  'rrp_bn',
  'net_liq_bn',
  'ust10y_pct',
  'curve_10y2y_pp',
  'hy_spread_pct',
  'vix',
  'dollar',
  'equity_close',
  'spy_close',
  'spy_open',
  'gold_close',
  'net_liq_trend',
]);

let frame: FeatureFrame;
let ref: ReferenceFrame;
beforeAll(async () => {
  frame = await loadFeatureFrame(DATA_DIR);
  ref = referenceFrame(DATA_DIR);
});

const at = (name: string, date: string): number => {
  const i = frame.dates.indexOf(date);
  if (i < 0) throw new Error(`${date} not in the calendar`);
  return (frame.columns[name] as Float64Array)[i] as number;
};

describe('feature frame vs the independent computation', () => {
  it('has the same calendar', () => {
    expect(frame.dates).toEqual(ref.dates);
  });

  it.each(FEATURE_COLUMNS.map((c) => [c.name]))('%s agrees on every day', (name) => {
    const mine = frame.columns[name] as Float64Array;
    const expected = ref.columns[name] as number[];
    expect(expected, `reference has no ${name}`).toBeDefined();
    expect(mine.length).toBe(expected.length);
    let worst = 0;
    const mismatches: string[] = [];
    for (let i = 0; i < mine.length; i++) {
      const a = mine[i] as number;
      const b = expected[i] as number;
      if (Number.isNaN(a) || Number.isNaN(b)) {
        if (Number.isNaN(a) !== Number.isNaN(b)) mismatches.push(`${frame.dates[i]}: ${a} vs ${b}`);
        continue;
      }
      if (EXACT.has(name) && a !== b) mismatches.push(`${frame.dates[i]}: ${a} vs ${b} (exact)`);
      worst = Math.max(worst, Math.abs(a - b) / Math.max(1, Math.abs(b)));
    }
    expect(mismatches.slice(0, 5)).toEqual([]);
    expect(worst).toBeLessThan(1e-9);
  });
});

describe('pinned values', () => {
  it.each([
    // date, column, value (read off the raw files by hand, see the comments)
    // Friday 2008-10-10 is published Monday 2008-10-13 06:30: H.4.1 of Wednesday 2008-10-08 (out Thursday), no RRP
    // operation released that Friday (2008-10-09's row is empty)
    ['2008-10-10', 'net_liq_bn', (1591587 - 0 - 7910) / 1000],
    // the ICE spread of Thursday 2008-10-09 (out Friday 16:30). Friday's 15.36 is out on the next Fed business day:
    // Monday 2008-10-13 is Columbus Day (the Fed closed, the NYSE open), so Tuesday, together with Monday's 15.38;
    // Tuesday's regime sees the later of the two
    ['2008-10-10', 'hy_spread_pct', 13.91],
    ['2008-10-13', 'hy_spread_pct', 13.91],
    ['2008-10-14', 'hy_spread_pct', 15.38],
    // Wednesday 2005-06-15: H.10 of the week to Friday 2005-06-10 (out Monday 2005-06-13), DTWEXB 2005-06-10 rescaled
    ['2005-06-15', 'dollar', 111.8686 * (101.4155 / 111.6954)],
    // Tuesday 2006-01-03: the H.10 week to 2005-12-30 is out that day (Monday 2006-01-02 is New Year's Day
    // observed), so DTWEXB 2005-12-30 rescaled; DTWEXBGS's first week (2006-01-02 to 01-06) is out Monday 2006-01-09
    ['2006-01-03', 'dollar', 111.7024 * (101.4155 / 111.6954)],
    ['2006-01-06', 'dollar', 111.7024 * (101.4155 / 111.6954)],
    ['2006-01-09', 'dollar', 100.0241],
    ['2020-03-16', 'ret_equity', 2386.1298828125 / 2711.02001953125 - 1], // GSPC closes 2020-03-16 and 2020-03-13
  ])('%s %s', (date, name, value) => {
    expect(at(name, date)).toBeCloseTo(value, 10);
  });
});
