/**
 * Daily levels beyond "latest usable value": the dollar splice (DTWEXB rescaled before 2006, with the
 * link checked against the data), the 10Y−2Y fallback to DGS10 − DGS2 when T10Y2Y lags, and the returns.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadFeatureFrame, type FeatureFrame } from '../../../pipeline/features/frame.js';
import { DOLLAR_SPLICE } from '../../../pipeline/features/params.js';
import { copyDataDir, DATA_DIR } from './data-dir.js';

let frame: FeatureFrame;
beforeAll(async () => {
  frame = await loadFeatureFrame(DATA_DIR);
});

const value = (f: FeatureFrame, name: string, date: string): number => {
  const i = f.dates.indexOf(date);
  if (i < 0) throw new Error(`${date} not in the calendar`);
  return (f.columns[name] as Float64Array)[i] as number;
};

describe('dollar splice', () => {
  const ratio = 101.4155 / 111.6954; // DTWEXBGS / DTWEXB on 2006-01-02, their first common date

  it('uses the ratio of the first common date, as the raw files give it', () => {
    expect(DOLLAR_SPLICE).toEqual({ date: '2006-01-02', DTWEXBGS: 101.4155, DTWEXB: 111.6954 });
    expect(frame.vintage.warnings).toEqual([]);
  });

  it('rescales DTWEXB until the first DTWEXBGS week is out (Monday 2006-01-09) and is DTWEXBGS from then on', () => {
    // H.10 publishes a week's rates on the Monday after: Thursday 2002-12-19 sees the week to Friday 2002-12-13.
    expect(value(frame, 'dollar', '2002-12-19')).toBe(Number(rawLine('DTWEXB', '2002-12-13')) * ratio);
    // The week to 2005-12-23 is out Tuesday 2005-12-27 (Monday 12-26 is Christmas observed); Friday 12-30 sees it.
    expect(value(frame, 'dollar', '2005-12-30')).toBe(111.6065 * ratio);
    // The week to 2005-12-30 is out Tuesday 2006-01-03 (New Year's Day observed on Monday).
    expect(value(frame, 'dollar', '2006-01-06')).toBe(111.7024 * ratio);
    // DTWEXBGS's first week (2006-01-02 to 01-06) is out Monday 2006-01-09: its Friday, 100.0241, all week.
    expect(value(frame, 'dollar', '2006-01-09')).toBe(100.0241);
    expect(value(frame, 'dollar', '2006-01-13')).toBe(100.0241);
  });

  it('does not jump at the link: across it the dollar moves about as DTWEXB did', () => {
    // The two indices weigh currencies differently, so their moves differ by a few basis points; without
    // the rescaling the series would fall 10.5 % (111.7024 → 100.0241) at the link. Friday 2006-01-06 sees
    // DTWEXB of 2005-12-30, Monday 2006-01-09 DTWEXBGS of 2006-01-06: the same week's move.
    const spliced = value(frame, 'dollar', '2006-01-09') / value(frame, 'dollar', '2006-01-06') - 1;
    const raw = 110.2291 / 111.7024 - 1;
    expect(Math.abs(spliced - raw)).toBeLessThan(1e-3);
    expect(100.0241 / 111.7024 - 1).toBeLessThan(-0.09);
  });

  it('reports a revised link value in the vintage and keeps the published pre-2006 levels', async () => {
    const copy = await copyDataDir((id, date, line) => (id === 'DTWEXBGS' && date === '2006-01-02' ? '2006-01-02,101.5' : line));
    try {
      const revised = await loadFeatureFrame(copy.dir);
      expect(revised.vintage.warnings).toHaveLength(1);
      expect(revised.vintage.warnings[0]).toContain('dollar splice link differs');
      expect(value(revised, 'dollar', '2005-12-30')).toBe(value(frame, 'dollar', '2005-12-30'));
    } finally {
      await copy.remove();
    }
  });
});

describe('10Y−2Y curve', () => {
  it('is T10Y2Y on the bundled data', () => {
    // H.15 rates of 2020-03-17 are out Wednesday 2020-03-18 at 16:15, before Wednesday's regime is published.
    expect(value(frame, 'curve_10y2y_pp', '2020-03-18')).toBe(Number(rawLine('T10Y2Y', '2020-03-17')));
  });

  it('falls back to DGS10 − DGS2 (2 decimals) when T10Y2Y lags, without ending the calendar early', async () => {
    const copy = await copyDataDir((id, date, line) => (id === 'T10Y2Y' && date > '2025-06-30' ? null : line));
    try {
      const late = await loadFeatureFrame(copy.dir);
      expect(late.dates.at(-1)).toBe('2025-11-26');
      // [trading day, the H.15 date it sees: the Fed business day before]
      for (const [day, date] of [
        ['2025-07-02', '2025-07-01'],
        ['2025-09-15', '2025-09-12'],
        ['2025-11-26', '2025-11-25'],
      ] as const) {
        const expected = Math.round((Number(rawLine('DGS10', date)) - Number(rawLine('DGS2', date))) * 100) / 100;
        expect(value(late, 'curve_10y2y_pp', day)).toBe(expected);
        // FRED's T10Y2Y is that same difference, so the fallback reproduces it.
        expect(expected).toBe(Number(rawLine('T10Y2Y', date)));
      }
      // 2025-07-01 still sees the last T10Y2Y row kept, 2025-06-30's.
      expect(value(late, 'curve_10y2y_pp', '2025-07-01')).toBe(Number(rawLine('T10Y2Y', '2025-06-30')));
    } finally {
      await copy.remove();
    }
  });
});

describe('returns', () => {
  it('are simple close-to-close returns, including the first calendar day', () => {
    const first = frame.dates[0] as string;
    expect(value(frame, 'ret_equity', first)).toBe(Number(rawClose('GSPC', first)) / Number(rawClose('GSPC', '2002-12-18')) - 1);
    expect(value(frame, 'ret_spy', '2020-03-16')).toBe(Number(rawClose('SPY', '2020-03-16')) / Number(rawClose('SPY', '2020-03-13')) - 1);
  });

  it('has no gold before GLD starts (2004-11-18) and no gold return on its first day', () => {
    expect(Number.isNaN(value(frame, 'gold_close', '2004-11-17'))).toBe(true);
    expect(value(frame, 'gold_close', '2004-11-18')).toBe(Number(rawClose('GLD', '2004-11-18')));
    expect(Number.isNaN(value(frame, 'ret_gold', '2004-11-18'))).toBe(true);
    expect(value(frame, 'ret_gold', '2004-11-19')).toBe(Number(rawClose('GLD', '2004-11-19')) / Number(rawClose('GLD', '2004-11-18')) - 1);
  });
});

function rawFields(id: string, date: string): string[] {
  const line = readFileSync(path.join(DATA_DIR, `${id}.csv`), 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${date},`));
  if (!line) throw new Error(`${id}.csv has no ${date}`);
  return line.split(',');
}
function rawLine(id: string, date: string): string {
  return rawFields(id, date)[1] ?? '';
}
function rawClose(id: string, date: string): string {
  return rawFields(id, date)[4] ?? '';
}
