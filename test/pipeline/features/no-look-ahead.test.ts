/**
 * The point-in-time rule (docs/decisions/0027-point-in-time.md): every feature of day t uses only data
 * released before t's publication (06:30 New York on the next trading day). For a few cut dates t, three runs must
 * give exactly the full run's rows for every day ≤ t, every column bit for bit: the run "as of" t, a run on files
 * with every observation released later removed, and a run on files with every observation released later
 * multiplied by 1.5, whatever its date (so the yields dated t itself, out the next afternoon, are among them). The
 * perturbed run must also differ after t, each series from the first day its perturbed values are out, so the check
 * has teeth; and a value released just before the cut's publication must change the cut day.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FEATURE_COLUMNS } from '../../../pipeline/features/columns.js';
import { loadFeatureFrame, type FeatureFrame } from '../../../pipeline/features/frame.js';
import { copyDataDir, DATA_DIR, perturbAfter, scaleLine, truncateAfter, usableFrom, type DataCopy, type LineEdit } from './data-dir.js';
import { readPoints } from './reference.js';

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
    // Each series changes from the first trading day after the cut on which one of its values is out (the next
    // day for closes, yields and the VIX; the Monday of the next H.10 release for the dollar), and not before.
    for (const [name, ids] of [
      ['equity_close', ['GSPC']],
      ['ust10y_pct', ['DGS10']],
      ['vix', ['VIXCLS']],
      ['dollar', ['DTWEXBGS', 'DTWEXB']],
    ] as const) {
      const first = firstUsableAfter(ids, cut);
      const i = full.dates.indexOf(first);
      expect(i, `${name} first changes on ${first}`).toBeGreaterThan(0);
      const column = (f: FeatureFrame): number[] => Array.from((f.columns[name] as Float64Array).slice(next, i + 1));
      expect(column(perturbed).slice(0, -1), name).toEqual(column(full).slice(0, -1));
      expect(column(perturbed).at(-1), name).not.toBe(column(full).at(-1));
    }
  });
});

/** The first trading day after `cut` on which a non-missing value of one of `ids` becomes usable. */
function firstUsableAfter(ids: readonly string[], cut: string): string {
  const days = ids.flatMap((id) =>
    readPoints(DATA_DIR, id)
      .filter((p) => p.value !== null)
      .map((p) => usableFrom(id, p.date)),
  );
  return days.filter((d) => d > cut).sort()[0] as string;
}

/** Multiplies by 1.5 the rows of `rows` ([series, date]), and no other. */
const perturbRows = (rows: ReadonlyArray<readonly string[]>): LineEdit => {
  const keys = new Set(rows.map(([id, date]) => `${id} ${date}`));
  return (id, date, line) => (keys.has(`${id} ${date}`) ? scaleLine(line, 1.5) : line);
};

const dayIndex = (date: string): number => {
  const i = full.dates.indexOf(date);
  if (i < 0) throw new Error(`${date} not in the calendar`);
  return i;
};
const valueAt = (f: FeatureFrame, name: string, date: string): number => (f.columns[name] as Float64Array)[dayIndex(date)] as number;

/**
 * Values dated on or before a cut but released after its publication instant. Each case: the cut, the rows
 * perturbed, a column they feed, and the first day that column may change (worked out by hand below).
 */
describe.each([
  {
    // The H.15 yields, the ICE spread, FRED's VIX and RRP, and the H.4.1 of Wednesday 2020-03-18 itself are all
    // out Thursday 2020-03-19 afternoon: after Wednesday's regime is published (Thursday 06:30).
    cut: '2020-03-18',
    rows: [
      ['DGS10', '2020-03-18'],
      ['DGS2', '2020-03-18'],
      ['T10Y2Y', '2020-03-18'],
      ['BAMLH0A0HYM2', '2020-03-18'],
      ['VIXCLS', '2020-03-18'],
      ['RRPONTSYD', '2020-03-18'],
      ['WALCL', '2020-03-18'],
      ['WTREGEN', '2020-03-18'],
    ],
    columns: ['ust10y_pct', 'curve_10y2y_pp', 'hy_spread_pct', 'vix', 'rrp_bn', 'walcl_mn', 'wtregen_mn'],
    changes: '2020-03-19',
  },
  {
    // Thursday 2021-11-11 is Veterans Day: the Fed is closed, the NYSE open. The H.4.1 of Wednesday 2021-11-10
    // is out Friday 2021-11-12 at 16:30, after Thursday's regime is published (Friday 06:30).
    cut: '2021-11-11',
    rows: [
      ['WALCL', '2021-11-10'],
      ['WTREGEN', '2021-11-10'],
      ['DGS10', '2021-11-10'],
    ],
    columns: ['walcl_mn', 'wtregen_mn', 'ust10y_pct'],
    changes: '2021-11-12',
  },
  {
    // H.10 rates of the week to Friday 2025-06-13 are out Monday 2025-06-16 at 16:15: the week's days never see
    // their own dollar; Monday's regime (published Tuesday 06:30) sees the Friday's.
    cut: '2025-06-13',
    rows: ['2025-06-09', '2025-06-10', '2025-06-11', '2025-06-12', '2025-06-13'].map((d) => ['DTWEXBGS', d] as const),
    columns: ['dollar'],
    changes: '2025-06-16',
  },
])('values dated up to the cut $cut but released after its publication', ({ cut, rows, columns, changes }) => {
  it(`multiplying them by 1.5 changes nothing up to the cut; ${columns.join(', ')} change on ${changes}`, async () => {
    const copy = await copyDataDir(perturbRows(rows));
    try {
      const perturbed = await loadFeatureFrame(copy.dir);
      expectSamePrefix(perturbed, cut);
      expect(full.dates[dayIndex(cut) + 1]).toBe(changes);
      for (const name of columns) expect(valueAt(perturbed, name, changes), name).not.toBe(valueAt(full, name, changes));
    } finally {
      await copy.remove();
    }
  });
});

/** Values released just before a cut's publication instant: perturbing them must change the cut day itself. */
describe.each([
  // The yields of Tuesday 2020-03-17 are out Wednesday 2020-03-18 at 16:15, before Wednesday's regime (Thursday 06:30).
  {
    cut: '2020-03-18',
    rows: [
      ['DGS10', '2020-03-17'],
      ['VIXCLS', '2020-03-17'],
    ],
    columns: ['ust10y_pct', 'vix'],
  },
  // The H.4.1 of Wednesday 2020-03-18 is out Thursday 2020-03-19 at 16:30, before Thursday's regime (Friday 06:30).
  { cut: '2020-03-19', rows: [['WALCL', '2020-03-18']], columns: ['walcl_mn'] },
  // The H.10 week to Friday 2025-06-06 is out Monday 2025-06-09 at 16:15, before Monday's regime (Tuesday 06:30).
  { cut: '2025-06-09', rows: [['DTWEXBGS', '2025-06-06']], columns: ['dollar'] },
])('values released just before the publication of $cut', ({ cut, rows, columns }) => {
  it(`multiplying them by 1.5 changes ${columns.join(', ')} on the cut day`, async () => {
    const copy = await copyDataDir(perturbRows(rows));
    try {
      const perturbed = await loadFeatureFrame(copy.dir);
      const before = full.dates[dayIndex(cut) - 1] as string;
      for (const name of columns) {
        expect(valueAt(perturbed, name, before), name).toBe(valueAt(full, name, before));
        expect(valueAt(perturbed, name, cut), name).not.toBe(valueAt(full, name, cut));
      }
    } finally {
      await copy.remove();
    }
  });
});

describe('the H.4.1 release on a Thursday', () => {
  it('a change to the Wednesday 2020-03-18 WALCL (out Thursday 16:30) shows from Thursday on, not on the Wednesday', async () => {
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
