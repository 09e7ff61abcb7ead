/**
 * The equity trend, a model input: ln(close / the mean of the 200 closes ending on the day), checked against
 * the same arithmetic done here from the frame's own GSPC closes, on the bundled history.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadFeatureFrame, type FeatureFrame } from '../../../pipeline/features/frame.js';
import { TREND_DAYS } from '../../../pipeline/features/params.js';
import { DATA_DIR } from './data-dir.js';

let frame: FeatureFrame;
beforeAll(async () => {
  frame = await loadFeatureFrame(DATA_DIR);
});

describe('equity_trend_200d', () => {
  it('is NaN until 200 closes exist, then ln(close / their mean) on every day', () => {
    const close = frame.columns.equity_close as Float64Array;
    const trend = frame.columns.equity_trend_200d as Float64Array;
    for (let t = 0; t < TREND_DAYS - 1; t++) expect(trend[t], frame.dates[t]).toBeNaN();
    for (let t = TREND_DAYS - 1; t < frame.dates.length; t++) {
      let sum = 0;
      for (let k = t - TREND_DAYS + 1; k <= t; k++) sum += close[k] as number;
      expect(trend[t], frame.dates[t]).toBeCloseTo(Math.log((close[t] as number) / (sum / TREND_DAYS)), 12);
    }
  });

  it('reads the bear markets: below its 200-day mean at the lows of 2008–09 and March 2020, above it in calm 2017', () => {
    const on = (date: string): number => (frame.columns.equity_trend_200d as Float64Array)[frame.dates.indexOf(date)] as number;
    expect(on('2008-11-20')).toBeLessThan(-0.3);
    expect(on('2009-03-09')).toBeLessThan(-0.2);
    expect(on('2020-03-23')).toBeLessThan(-0.2);
    expect(on('2017-12-29')).toBeGreaterThan(0.05);
  });
});
