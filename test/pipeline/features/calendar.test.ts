/**
 * The trading calendar: GSPC days from the first day every input has a usable value (2002-12-19, the
 * Thursday the first H.4.1 week became usable) to the last day every input is current (2025-11-26, a
 * week after the last WTREGEN week), and how an as-of date or a late series moves its end.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadFeatureFrame, type FeatureFrame } from '../../../pipeline/features/frame.js';
import { TradesealError } from '../../../src/errors.js';
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

  it('moves when the late series (WTREGEN) gets its next week', async () => {
    const copy = await copyDataDir((id, date, line) => (id === 'WTREGEN' && date === '2025-11-19' ? `${line}\n2025-11-26,900000.0` : line));
    try {
      const longer = await loadFeatureFrame(copy.dir);
      expect(longer.dates.at(-1)).toBe('2025-12-03');
      expect(longer.vintage.series.WTREGEN?.lastDate).toBe('2025-11-26');
    } finally {
      await copy.remove();
    }
  });

  it('stops at the last day a daily series has reached, holiday rows included', async () => {
    // VIX rows (with values) cut after 2024-06-14: the calendar cannot go past 2024-06-14.
    const copy = await copyDataDir((id, date, line) => (id === 'VIXCLS' && date > '2024-06-14' ? null : line));
    try {
      expect((await loadFeatureFrame(copy.dir)).dates.at(-1)).toBe('2024-06-14');
    } finally {
      await copy.remove();
    }
  });

  it('refuses an as-of date before the inputs exist, naming the missing ones', async () => {
    const err = await loadFeatureFrame(DATA_DIR, '2002-12-18').then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(TradesealError);
    expect((err as TradesealError).code).toBe('data_invalid');
    expect((err as Error).message).toContain('WALCL, WTREGEN');
  });

  it('refuses an as-of that is not a date', async () => {
    await expect(loadFeatureFrame(DATA_DIR, '2020-02-30')).rejects.toThrow(RangeError);
  });
});
