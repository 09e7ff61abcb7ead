/**
 * The input digests, pure: canonical lines, block digests checked against `sha256sum` (vectors computed with
 * `printf '<lines>' | sha256sum`), and what counts as a change of the rows usable through the last published
 * day: a revised value, an inserted row, a removed row, each named by series and first date; rows usable only
 * after that day, and series the record does not name, are no change.
 */
import { describe, expect, it } from 'vitest';
import {
  canonicalLine,
  describeChanges,
  differingBlocks,
  digestInputs,
  firstDifference,
  inputChanges,
  type InputChange,
  type InputRow,
  type InputRows,
} from '../../../pipeline/publish/input-digests.js';

const day = (date: string, value: number | null, lag = 0): InputRow => {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + lag);
  return { date, value, usableFrom: d.toISOString().slice(0, 10) };
};

/** Weekly H.4.1 rows (usable the day after their Wednesday) and a daily series with a holiday. */
const BASE: InputRows = {
  WALCL: [day('2018-12-26', 4075164, 1), day('2019-05-01', 3889691, 1), day('2019-05-08', 3892216, 1)],
  DGS10: [day('2019-05-01', 2.5), day('2019-05-02', null), day('2019-05-03', 2.53)],
};
const THROUGH = '2019-05-06';

/** The record of BASE through THROUGH, and the findings for `now`. */
function changesOf(now: InputRows, through = THROUGH): InputChange[] {
  const recorded = digestInputs(BASE, through);
  const current = digestInputs(now, through);
  const needed = differingBlocks(recorded.series, current);
  return inputChanges(recorded.series, current, new Map(needed.map((d) => [d, recorded.blocks.get(d)!])));
}

const edit = (series: string, rows: InputRow[]): InputRows => ({ ...BASE, [series]: rows });

describe('canonical lines and digests', () => {
  it('writes date,value with the shortest text of the parsed double, and an empty value for a missing one', () => {
    expect(canonicalLine(day('2019-05-01', 3889691.0))).toBe('2019-05-01,3889691\n');
    expect(canonicalLine(day('2019-05-01', 2.53))).toBe('2019-05-01,2.53\n');
    expect(canonicalLine(day('2019-05-02', null))).toBe('2019-05-02,\n');
  });

  it("digests each year's lines as sha256sum does, and only the rows usable through the day", () => {
    const d = digestInputs({ WALCL: [day('2019-05-01', 3889691, 1), day('2019-05-08', 3892216, 1)] }, '2019-05-09');
    expect(d.series).toEqual([
      {
        series: 'WALCL',
        through: '2019-05-09',
        rows: 2,
        sha256: '31d8a1e682978bb8b2f01fc11e4808780921dcdde30baa15f9337a287125c640',
        years: { 2019: '31d8a1e682978bb8b2f01fc11e4808780921dcdde30baa15f9337a287125c640' },
      },
    ]);
    // The Wednesday 2019-05-08 is usable from the Thursday: through 2019-05-08 only the row before counts.
    const early = digestInputs({ WALCL: [day('2019-05-01', 3889691, 1), day('2019-05-08', 3892216, 1)] }, '2019-05-08');
    expect(early.series[0]).toMatchObject({ rows: 1, sha256: '0437eae2598d5fc49ab05fd90831da2dd4884b6f79929f24ec7badece2979483' });
    expect(early.blocks.get('0437eae2598d5fc49ab05fd90831da2dd4884b6f79929f24ec7badece2979483')).toBe('2019-05-01,3889691\n');
  });
});

describe('changes of the rows usable through the last published day', () => {
  const rows = BASE.WALCL as InputRow[];
  const daily = BASE.DGS10 as InputRow[];
  it.each<[string, InputRows, Partial<InputChange> | null]>([
    ['the same rows', BASE, null],
    [
      'a revised value',
      edit('WALCL', [rows[0]!, { ...rows[1]!, value: 3889691 * 5 }, rows[2]!]),
      { series: 'WALCL', date: '2019-05-01', kind: 'revised', was: '3889691', now: '19448455' },
    ],
    [
      'a missing value that got one',
      edit('DGS10', [daily[0]!, { ...daily[1]!, value: 2.51 }, daily[2]!]),
      { series: 'DGS10', date: '2019-05-02', kind: 'revised', was: '', now: '2.51' },
    ],
    ['a removed row', edit('DGS10', [daily[0]!, daily[2]!]), { series: 'DGS10', date: '2019-05-02', kind: 'removed', was: '', now: null }],
    [
      'an inserted row between two',
      edit('WALCL', [rows[0]!, day('2019-04-24', 3928273, 1), rows[1]!, rows[2]!]),
      { series: 'WALCL', date: '2019-04-24', kind: 'inserted', was: null, now: '3928273' },
    ],
    [
      'an inserted row in a year the record has none of',
      edit('WALCL', [day('2017-12-27', 4400000, 1), ...rows]),
      { series: 'WALCL', date: '2017-12-27', kind: 'inserted' },
    ],
    ['a removed year', edit('WALCL', rows.slice(1)), { series: 'WALCL', date: '2018-12-26', kind: 'removed', was: '4075164' }],
    ['a series whose file lost every row', { DGS10: daily }, { series: 'WALCL', date: '2018-12-26', kind: 'removed' }],
  ])('%s', (_name, now, expected) => {
    const changes = changesOf(now);
    if (expected === null) expect(changes).toEqual([]);
    else expect(changes[0]).toMatchObject(expected);
  });

  it.each<[string, InputRows]>([
    [
      'a revised row usable only after the day (the Wednesday 2019-05-08, released the Thursday)',
      edit('WALCL', [rows[0]!, rows[1]!, { ...rows[2]!, value: 1 }]),
    ],
    ['a new row after the day', edit('DGS10', [...daily, day('2019-05-06', 2.49), day('2019-05-07', 2.45)])],
    ['a new row dated before the day but usable after it', edit('WALCL', [rows[0]!, rows[1]!, day('2019-05-05', 3890000, 1)])],
    ['a series the record does not name', { ...BASE, VIXCLS: [day('2019-05-01', 14.8)] }],
  ])('no change: %s', (_name, now) => {
    expect(changesOf(now, '2019-05-05')).toEqual([]);
  });

  it('names the earliest change first, then the first of each other series', () => {
    const now = { WALCL: [rows[0]!, { ...rows[1]!, value: 1 }, rows[2]!], DGS10: [daily[0]!, daily[2]!] };
    const changes = changesOf(now);
    expect(changes.map((c) => [c.series, c.date])).toEqual([
      ['WALCL', '2019-05-01'],
      ['DGS10', '2019-05-02'],
    ]);
    expect(describeChanges(changes, THROUGH)).toBe(
      'the input WALCL changed on or before the last published day 2019-05-06: its first changed row is ' +
        '2019-05-01 (revised: 3889691 then, 1 now); DGS10 changed too, first on 2019-05-02 (removed: it was missing)',
    );
  });

  it("asks for the text of the changed years' blocks only, and refuses an incomplete record", () => {
    const recorded = digestInputs(BASE, THROUGH);
    const current = digestInputs(edit('WALCL', [rows[0]!, { ...rows[1]!, value: 1 }, rows[2]!]), THROUGH);
    expect(differingBlocks(recorded.series, current)).toEqual([recorded.series.find((s) => s.series === 'WALCL')!.years['2019']]);
    expect(() => inputChanges(recorded.series, current, new Map())).toThrow(/missing from the store/);
  });

  it('compares two blocks line by line', () => {
    expect(firstDifference('X', '2019-01-02,1\n2019-01-03,2\n', '2019-01-02,1\n2019-01-03,2\n')).toBeNull();
    expect(firstDifference('X', '2019-01-02,1\n', '2019-01-02,1\n2019-01-03,2\n')).toMatchObject({ date: '2019-01-03', kind: 'inserted' });
    expect(firstDifference('X', '2019-01-02,1\n2019-01-03,2\n', '2019-01-02,1\n')).toMatchObject({ date: '2019-01-03', kind: 'removed' });
  });
});
