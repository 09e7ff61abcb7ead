/**
 * loadFeatureFrame's contract: typed columns in FEATURE_COLUMNS order aligned with ISO dates, the data
 * vintage (file hashes, combined as `sha256sum` would list them; per-series dates as seen through the
 * as-of cut), and its running time over the full history (the stage's budget is about 1–2 s).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FEATURE_COLUMNS } from '../../../pipeline/features/columns.js';
import { loadFeatureFrame, type FeatureFrame } from '../../../pipeline/features/frame.js';
import { DATA_DIR } from './data-dir.js';

let frame: FeatureFrame;
let elapsedMs = 0;
beforeAll(async () => {
  await loadFeatureFrame(DATA_DIR); // warm: module loading and DuckDB's first start are not the stage's cost
  const started = performance.now();
  frame = await loadFeatureFrame(DATA_DIR);
  elapsedMs = performance.now() - started;
});

describe('loadFeatureFrame', () => {
  it('returns one Float64Array per documented column, aligned with ISO dates', () => {
    expect(Object.keys(frame.columns)).toEqual(FEATURE_COLUMNS.map((c) => c.name));
    for (const c of FEATURE_COLUMNS) {
      expect(frame.columns[c.name], c.name).toBeInstanceOf(Float64Array);
      expect(frame.columns[c.name]?.length, c.name).toBe(frame.dates.length);
    }
    expect(frame.dates.every((d) => /^\d{4}-\d{2}-\d{2}$/.test(d))).toBe(true);
    expect(frame.dates.every((d, i) => i === 0 || d > (frame.dates[i - 1] as string))).toBe(true);
  });

  it('has every non-optional column finite from completeFrom on', () => {
    const from = frame.dates.indexOf(frame.completeFrom ?? '');
    expect(from).toBeGreaterThan(0);
    for (const c of FEATURE_COLUMNS.filter((x) => !x.optional)) {
      const values = (frame.columns[c.name] as Float64Array).subarray(from);
      expect(values.every(Number.isFinite), c.name).toBe(true);
    }
  });

  it('records the data vintage: file hashes, their combination, last dates', () => {
    const files = readdirSync(DATA_DIR)
      .filter((f) => f.endsWith('.csv'))
      .sort();
    const listing = files
      .map(
        (f) =>
          `${createHash('sha256')
            .update(readFileSync(path.join(DATA_DIR, f)))
            .digest('hex')}  ${f}\n`,
      )
      .join('');
    expect(frame.vintage.inputSha256).toBe(createHash('sha256').update(listing).digest('hex'));
    expect(Object.keys(frame.vintage.series).sort()).toEqual(files.map((f) => f.slice(0, -4)).sort());
    expect(frame.vintage.series.WTREGEN).toMatchObject({
      file: 'WTREGEN.csv',
      lastDate: '2025-11-19',
      lastValueDate: '2025-11-19',
      sha256: expect.stringMatching(/^7f51483f09750ab8/),
    });
    expect(frame.vintage.series.DGS10).toMatchObject({ firstDate: '1980-01-01', lastDate: '2025-12-30', rows: 12001 });
    expect(frame.vintage.asOf).toBeNull();
  });

  it('describes the data as seen through the as-of cut', async () => {
    const asOf = await loadFeatureFrame(DATA_DIR, '2020-03-18');
    expect(asOf.vintage.asOf).toBe('2020-03-18');
    expect(asOf.vintage.series.WALCL?.lastDate).toBe('2020-03-11'); // the 2020-03-18 week is out Thursday the 19th
    // FRED's RRP and the H.15 yields of 2020-03-18 are out on the 19th too; the H.10 week of Monday 2020-03-16 on the 23rd.
    expect(asOf.vintage.series.RRPONTSYD?.lastDate).toBe('2020-03-17');
    expect(asOf.vintage.series.DGS10?.lastDate).toBe('2020-03-17');
    expect(asOf.vintage.series.DTWEXBGS?.lastDate).toBe('2020-03-13');
    expect(asOf.vintage.series.GSPC?.lastDate).toBe('2020-03-18');
    expect(asOf.vintage.inputSha256).toBe(frame.vintage.inputSha256);
  });

  it(`loads the full history within the stage's budget`, () => {
    console.info(`loadFeatureFrame over ${frame.dates.length} days (${frame.dates[0]} to ${frame.dates.at(-1)}): ${elapsedMs.toFixed(0)} ms`);
    expect(elapsedMs).toBeLessThan(5_000);
  });
});
