/**
 * The point-in-time rule (pipeline spec PIPELINE.md): every feature of day t uses only data usable on t. For a few
 * cut dates t, three runs must give exactly the full run's rows for every day ≤ t, every column bit for bit:
 * the run "as of" t, a run on files with every later observation removed, and a run on files with every
 * later observation multiplied by 1.5. The perturbed run must also differ after t, so the check has teeth.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FEATURE_COLUMNS } from '../../../pipeline/features/columns.js';
import { loadFeatureFrame, type FeatureFrame } from '../../../pipeline/features/frame.js';
import { copyDataDir, DATA_DIR, perturbAfter, truncateAfter, type DataCopy } from './data-dir.js';

/** Cut dates: pre-splice 2004, Wednesdays of H.4.1 weeks in 2008 and 2020, the eve of daily RRP, a 2025 Wednesday. */
const CUTS = ['2004-06-30', '2008-09-17', '2013-09-20', '2020-03-18', '2025-06-11'];

let full: FeatureFrame;
beforeAll(async () => {
  full = await loadFeatureFrame(DATA_DIR);
});

/** Rows of `frame` dated ≤ cut, as raw bytes per column (so NaN payloads and −0 count too). */
function prefix(frame: FeatureFrame, cut: string): { dates: string[]; bytes: Record<string, Buffer> } {
  const n = frame.dates.filter((d) => d <= cut).length;
  const bytes: Record<string, Buffer> = {};
  for (const c of FEATURE_COLUMNS) {
    const column = frame.columns[c.name] as Float64Array;
    bytes[c.name] = Buffer.from(column.buffer, column.byteOffset, n * 8);
  }
  return { dates: frame.dates.slice(0, n), bytes };
}

function expectSamePrefix(frame: FeatureFrame, cut: string): void {
  const mine = prefix(frame, cut);
  const reference = prefix(full, cut);
  expect(mine.dates.at(-1)).toBe(cut);
  expect(mine.dates).toEqual(reference.dates);
  const differing = FEATURE_COLUMNS.filter((c) => !(mine.bytes[c.name] as Buffer).equals(reference.bytes[c.name] as Buffer)).map((c) => c.name);
  expect(differing).toEqual([]);
}

describe.each(CUTS)('cut at %s', (cut) => {
  let copies: DataCopy[] = [];
  afterAll(async () => {
    await Promise.all(copies.map((c) => c.remove()));
    copies = [];
  });

  it('the run as of the cut equals the full run up to the cut, and ends there', async () => {
    const asOf = await loadFeatureFrame(DATA_DIR, cut);
    expect(asOf.dates.at(-1)).toBe(cut);
    expect(asOf.vintage.asOf).toBe(cut);
    expectSamePrefix(asOf, cut);
  });

  it('removing every later observation changes nothing up to the cut', async () => {
    const copy = await copyDataDir(truncateAfter(cut));
    copies.push(copy);
    expectSamePrefix(await loadFeatureFrame(copy.dir), cut);
  });

  it('multiplying every later observation by 1.5 changes nothing up to the cut, and changes the days after', async () => {
    const copy = await copyDataDir(perturbAfter(cut));
    copies.push(copy);
    const perturbed = await loadFeatureFrame(copy.dir);
    expectSamePrefix(perturbed, cut);
    const next = full.dates.findIndex((d) => d > cut);
    expect(perturbed.dates[next]).toBe(full.dates[next]);
    for (const name of ['equity_close', 'ust10y_pct', 'vix', 'dollar']) {
      expect((perturbed.columns[name] as Float64Array)[next], name).not.toBe((full.columns[name] as Float64Array)[next]);
    }
  });
});

describe('the H.4.1 lag on a Wednesday', () => {
  it('a change to the Wednesday 2020-03-18 WALCL shows from Thursday on, not on the Wednesday', async () => {
    const copy = await copyDataDir((id, date, line) => (id === 'WALCL' && date === '2020-03-18' ? '2020-03-18,9999999.0' : line));
    try {
      const changed = await loadFeatureFrame(copy.dir);
      const wed = full.dates.indexOf('2020-03-18');
      const walcl = (f: FeatureFrame, i: number): number => (f.columns.walcl_mn as Float64Array)[i] as number;
      expect(walcl(changed, wed)).toBe(walcl(full, wed));
      expect(walcl(changed, wed)).toBe(4311911);
      expect(walcl(changed, wed + 1)).toBe(9999999);
      expect(changed.vintage.inputSha256).not.toBe(full.vintage.inputSha256);
    } finally {
      await copy.remove();
    }
  });
});
