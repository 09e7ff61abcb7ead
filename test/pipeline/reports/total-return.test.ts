/**
 * Total returns from prices as traded and the actions (pipeline/reports/total-return.ts): a day without an action
 * reads exactly as the plain price ratio did; an ex-dividend day counts the cash reinvested at the open and a split
 * the new shares; the 200-day rule sees through both. Checked against a published reference: the SPDR S&P 500
 * ETF Trust's total return for each fiscal year (to 30 September), as the trust's annual reports give them.
 */
import { readFile } from 'node:fs/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aboveMovingAverage } from '../../../pipeline/reports/moving-average.js';
import type { MarketDay } from '../../../pipeline/reports/strategy.js';
import { actionFactor, closeReturn, gapReturn, intradayReturn } from '../../../pipeline/reports/total-return.js';
import { BUNDLED_DATA } from '../../helpers/macro-data.js';

const price = fc.double({ min: 1, max: 10_000, noNaN: true, noDefaultInfinity: true });

describe('a day without an action', () => {
  it('is exactly the plain price ratio, bit for bit (so indexes and most days read as before)', () => {
    fc.assert(
      fc.property(price, price, price, (previous, open, close) => {
        const plain = { spy_open: open, spy_close: close };
        const explicit = { spy_open: open, spy_close: close, spy_dividend: 0, spy_split: 1 };
        for (const day of [plain, explicit]) {
          expect(Object.is(gapReturn(previous, day), open / previous - 1)).toBe(true);
          expect(Object.is(closeReturn(previous, day), close / previous - 1)).toBe(true);
          expect(actionFactor(day)).toBe(1);
        }
      }),
    );
  });
});

describe('an ex-dividend day and a split', () => {
  // SPY, 2025-06-20 (ex-dividend 1.761 USD), after a close of 597.44 on 2025-06-18 (2025-06-19 was a holiday).
  const exDay = { spy_open: 598.3800048828125, spy_close: 594.280029296875, spy_dividend: 1.761, spy_split: 1 };
  const previous = 597.4400024414062;

  it('counts the dividend overnight, as cash per share that went ex before the open', () => {
    expect(gapReturn(previous, exDay)).toBeCloseTo((598.3800048828125 + 1.761) / 597.4400024414062 - 1, 15);
    // The price fell 0.53 %; with the dividend the holder lost 0.24 %.
    expect(exDay.spy_close / previous - 1).toBeCloseTo(-0.005289, 6);
    expect(closeReturn(previous, exDay)).toBeCloseTo(-0.002362, 6);
  });

  it('chains: (1 + gap)(1 + intraday) − 1 is the close-to-close return (the cash reinvested at the open)', () => {
    fc.assert(
      fc.property(
        price,
        price,
        price,
        fc.double({ min: 0, max: 0.5, noNaN: true }),
        fc.constantFrom(1, 2, 4, 0.1, 1.5),
        (prev, open, close, yieldFraction, split) => {
          const day = { spy_open: open, spy_close: close, spy_dividend: open * yieldFraction, spy_split: split };
          const chained = (1 + gapReturn(prev, day)) * (1 + intradayReturn(day)) - 1;
          expect(Math.abs(chained - closeReturn(prev, day))).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(chained)));
        },
      ),
    );
  });

  it('a 4-for-1 split is no loss: four shares at a quarter of the price', () => {
    const day = { spy_open: 125.5, spy_close: 126, spy_dividend: 0, spy_split: 4 };
    expect(closeReturn(500, day)).toBeCloseTo((126 * 4) / 500 - 1, 15);
    expect(gapReturn(500, day)).toBeCloseTo(0.004, 15);
    expect(actionFactor(day)).toBe(4);
  });
});

describe("the published reference: SPY's fiscal-year total returns", () => {
  // "Returns of SPY by fiscal year per SEC EDGAR filings. The trust ends its fiscal year on September 30": the
  // trust's 1-year returns, as tabulated in Wikipedia's "SPDR S&P 500 Trust ETF" (Performance). They are the
  // trust's own figures (net asset value, distributions reinvested); ours are from closing market prices, so a
  // few tenths of a point apart is expected (the largest, 2008, when the close and the NAV parted most).
  const PUBLISHED: Record<number, number> = {
    2003: 24.13,
    2004: 13.62,
    2005: 12.11,
    2006: 10.64,
    2007: 16.31,
    2008: -21.84,
    2009: -6.9,
    2010: 10.08,
    2011: 1.01,
    2012: 29.96,
    2013: 19.09,
  };

  it('the bundled prices as traded and dividends give each year within 0.6 points; the prices alone miss every year by 1.5 or more', async () => {
    const lines = (await readFile(`${BUNDLED_DATA}/SPY.csv`, 'utf8')).trimEnd().split('\n').slice(1);
    const days = lines.map((line) => {
      const [date, open, , , close, , dividend, split] = line.split(',');
      return { date: date!, spy_open: Number(open), spy_close: Number(close), spy_dividend: Number(dividend), spy_split: Number(split) };
    });
    const lastOnOrBefore = (date: string): number => days.findLastIndex((d) => d.date <= date);
    for (const [year, published] of Object.entries(PUBLISHED)) {
      const from = lastOnOrBefore(`${Number(year) - 1}-09-30`);
      const to = lastOnOrBefore(`${year}-09-30`);
      let wealth = 1;
      for (let i = from + 1; i <= to; i++) wealth *= 1 + closeReturn(days[i - 1]!.spy_close, days[i]!);
      const total = (wealth - 1) * 100;
      const priceOnly = (days[to]!.spy_close / days[from]!.spy_close - 1) * 100;
      expect(Math.abs(total - published), `fiscal ${year}: ${total.toFixed(2)} % against ${published} %`).toBeLessThan(0.6);
      expect(Math.abs(priceOnly - published), `fiscal ${year}, prices alone`).toBeGreaterThan(1.5);
    }
  });
});

describe('the 200-day rule on prices as traded', () => {
  const days = (closes: number[], actions: Record<number, Partial<MarketDay>> = {}): MarketDay[] =>
    closes.map((close, i) => ({
      date: `2020-01-${String(i + 1).padStart(2, '0')}`,
      spy_open: close,
      spy_close: close,
      gld_close: null,
      ...actions[i],
    }));

  it('reads a window without an action exactly as the plain mean of closes did', () => {
    const closes = [10, 11, 12, 11.5, 11.9, 12.2, 11.1];
    const out = aboveMovingAverage(days(closes), 3);
    for (let i = 2; i < closes.length; i++) {
      const plain = closes[i]! > (closes[i - 2]! + closes[i - 1]! + closes[i]!) / 3 ? 1 : 0;
      expect(out.get(`2020-01-${String(i + 1).padStart(2, '0')}`)).toBe(plain);
    }
  });

  it("does not read a split or a dividend's drop as a fall: the earlier closes are put in the day's basis", () => {
    // A rising price, split 10-for-1 on day 4: as traded it "falls" from 104 to 10.5, in shares it rises on.
    const split = days([100, 102, 104, 10.5, 10.6], { 3: { spy_open: 10.45, spy_split: 10 } });
    expect([...aboveMovingAverage(split, 3).values()]).toEqual([1, 1, 1]);
    // The same series pre-adjusted by the split gives the same signals.
    expect([...aboveMovingAverage(days([10, 10.2, 10.4, 10.5, 10.6]), 3).values()]).toEqual([1, 1, 1]);
    // A flat price with a dividend of 2 going ex on day 4: the 2 % drop is the cash paid, not a fall.
    const paid = days([100, 100, 100, 98.1, 98.2], { 3: { spy_open: 98, spy_dividend: 2 } });
    expect([...aboveMovingAverage(paid, 3).values()]).toEqual([0, 1, 1]);
    // Without the dividend the same prices read as a fall.
    expect([...aboveMovingAverage(days([100, 100, 100, 98.1, 98.2]), 3).values()]).toEqual([0, 0, 0]);
  });
});
