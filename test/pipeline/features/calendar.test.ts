/**
 * The trading calendar: GSPC days from the first day every input has a usable value (2002-12-19, the
 * Thursday the first H.4.1 week came out) to the last day every input is current (2025-11-26: the next
 * WTREGEN week, of 2025-11-26, is out Friday 2025-11-28 after Thanksgiving), and how an as-of date or a late
 * series moves its end. A series is current until its next row would be released: each expected end below is
 * worked out by hand from the release rules.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadFeatureFrame, type FeatureFrame } from '../../../pipeline/features/frame.js';
import { TradesealError } from '../../../src/core/errors.js';
import { copyDataDir, DATA_DIR } from './data-dir.js';

let frame: FeatureFrame;
beforeAll(async () => {
  frame = await loadFeatureFrame(DATA_DIR);
});

describe('calendar of the bundled data', () => {
  it('runs from 2002-12-19 to 2025-11-26', () => {
    expect([frame.dates[0], frame.dates.at(-1), frame.dates.length]).toEqual(['2002-12-19', '2025-11-26', 5772]);
    expect(frame.vintage).toMatchObject({ start: '2002-12-19', end: '2025-11-26', days: 5772 });
  });

  it('is exactly the GSPC trading days in that range', () => {
    const gspc = readFileSync(path.join(DATA_DIR, 'GSPC.csv'), 'utf8')
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((l) => l.slice(0, 10))
      .filter((d) => d >= '2002-12-19' && d <= '2025-11-26');
    expect(frame.dates).toEqual(gspc);
    expect(frame.dates.filter((d) => [0, 6].includes(new Date(`${d}T00:00:00Z`).getUTCDay()))).toEqual([]);
    expect(frame.dates).not.toContain('2020-04-10'); // Good Friday
    expect(frame.dates).not.toContain('2012-10-29'); // Hurricane Sandy closure
  });

  it('starts where the first H.4.1 week becomes usable; trailing windows are complete a year later', () => {
    expect(frame.dates).not.toContain('2002-12-18');
    expect(frame.completeFrom).toBe('2003-12-19');
    const i = frame.dates.indexOf('2003-12-19');
    expect(i).toBe(252);
    expect(Number.isNaN((frame.columns.mom_z_vix as Float64Array)[i - 1] as number)).toBe(true);
    expect(Number.isNaN((frame.columns.net_liq_zscore as Float64Array)[251] as number)).toBe(false);
  });
});

describe('the end of the calendar', () => {
  it('ends on the as-of date, or the trading day before it', async () => {
    const weekend = await loadFeatureFrame(DATA_DIR, '2020-03-21');
    expect(weekend.dates.at(-1)).toBe('2020-03-20');
  });

  it("moves when the late series (WTREGEN) gets its next week: to the day before that week's successor is out", async () => {
    // With the week of 2025-11-26, WTREGEN's next row is 2025-12-03, out Thursday 2025-12-04 16:30: Wednesday
    // 2025-12-03 (published Thursday 06:30) is the last day it cannot reach.
    const copy = await copyDataDir((id, date, line) => (id === 'WTREGEN' && date === '2025-11-19' ? `${line}\n2025-11-26,900000.0` : line));
    try {
      const longer = await loadFeatureFrame(copy.dir);
      expect(longer.dates.at(-1)).toBe('2025-12-03');
      expect(longer.vintage.series.WTREGEN?.lastDate).toBe('2025-11-26');
    } finally {
      await copy.remove();
    }
  });

  it('ends a daily series that stops early on the last day its next row would not reach', async () => {
    // VIX rows cut after Friday 2024-06-14. Its next row, Monday 2024-06-17, would be out (FRED, next Fed business
    // day) Tuesday 2024-06-18 16:30; Monday's regime is published Tuesday 06:30, before it, with Friday's VIX
    // (out Monday): so the file holds all Monday can use, and the calendar ends on Monday 2024-06-17.
    const copy = await copyDataDir((id, date, line) => (id === 'VIXCLS' && date > '2024-06-14' ? null : line));
    try {
      const cut = await loadFeatureFrame(copy.dir);
      expect(cut.dates.at(-1)).toBe('2024-06-17');
      expect((cut.columns.vix as Float64Array).at(-1)).toBe(12.66); // VIXCLS 2024-06-14
    } finally {
      await copy.remove();
    }
  });

  it('counts a holiday row as reached: it lets the calendar run one day further', async () => {
    // DGS10 through Wednesday 2025-06-18: its next row, Juneteenth 2025-06-19 (empty, Fed and NYSE closed), is out
    // on the next Fed business day, Friday 2025-06-20, so the calendar ends on 2025-06-18. With the empty
    // Juneteenth row too, the next row is Friday 2025-06-20, out Monday 2025-06-23: Friday is published.
    const through = async (last: string): Promise<string | undefined> => {
      const copy = await copyDataDir((id, date, line) => (id === 'DGS10' && date > last ? null : line));
      try {
        return (await loadFeatureFrame(copy.dir)).dates.at(-1);
      } finally {
        await copy.remove();
      }
    };
    expect(await through('2025-06-18')).toBe('2025-06-18');
    expect(await through('2025-06-19')).toBe('2025-06-20');
  });

  it('never holds the newest day back for the weekly dollar release: dollar files ending on a Friday publish through the next Friday', async () => {
    // DTWEXBGS through Friday 2025-06-13 (out with its week on Monday 2025-06-16). Its next row, Monday 2025-06-16,
    // comes out with the following week's rates on Monday 2025-06-23 at 16:15, after Friday 2025-06-20's regime is
    // published (06:30 that Monday): every day to 2025-06-20 has all the dollar it can use, the rates of 06-13.
    const copy = await copyDataDir((id, date, line) => (id === 'DTWEXBGS' && date > '2025-06-13' ? null : line));
    try {
      const cut = await loadFeatureFrame(copy.dir);
      expect(cut.dates.at(-1)).toBe('2025-06-20');
      expect((cut.columns.dollar as Float64Array).at(-1)).toBe(120.7131); // DTWEXBGS 2025-06-13
      expect((cut.columns.dollar as Float64Array)[cut.dates.indexOf('2025-06-13')]).not.toBe(120.7131); // not out yet that Friday
    } finally {
      await copy.remove();
    }
  });

  it('refuses an as-of date before the inputs exist, naming the missing ones', async () => {
    const err = await loadFeatureFrame(DATA_DIR, '2002-12-18').then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TradesealError);
    expect((err as TradesealError).code).toBe('data_invalid');
    expect((err as Error).message).toContain('WALCL, WTREGEN');
  });

  it('refuses an as-of that is not a date', async () => {
    await expect(loadFeatureFrame(DATA_DIR, '2020-02-30')).rejects.toThrow(RangeError);
  });
});
