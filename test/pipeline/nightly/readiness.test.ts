/**
 * Whether a night may publish its due day (src/signals/nightly/readiness.ts), on the bundled files' last rows as
 * they were at chosen instants (`cutText`, replay/reveal.ts: only the rows released by then): with every
 * released row in, the day is ready; with the newest released row of any one series missing, the night waits
 * and names that series, the row it lacks and when that row came out. The cases where the calendar is easy to
 * get wrong are pinned: the H.4.1 week that Juneteenth delayed to Friday, FRED's empty holiday row, the NYSE
 * holiday in a market file's rhythm, and the spliced dollar (DTWEXB ended in 2019; DTWEXBGS goes on).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE, RELEASES, type SeriesSpec } from '../../../pipeline/ingest/catalogue.js';
import { dueDay } from '../../../src/signals/nightly/due.js';
import { describeLate, isCurrent, readiness } from '../../../src/signals/nightly/readiness.js';
import { releasedAt } from '../../../pipeline/release/rules.js';
import { cutText } from '../../../replay/reveal.js';
import { BUNDLED_DIR } from '../../../replay/vendors/bundled-bars.js';

/** 06:30 New York (EDT) of a June 2025 day: when the regime of the trading day before is published. */
const morning = (date: string): number => Date.parse(`${date}T06:30:00-04:00`);

/**
 * A bundled file's header and its rows from the last one before 2025 on: the same last row at every instant of
 * these tests as the whole file (DTWEXB's included, which ended in 2019), and quick to cut.
 */
function recentText(text: string): string {
  const [header = '', ...rows] = text.trimEnd().split('\n');
  const first = rows.findIndex((r) => r >= '2025');
  return `${[header, ...rows.slice(first === -1 ? -1 : Math.max(0, first - 1))].join('\n')}\n`;
}

const texts = new Map<string, string>();
beforeAll(async () => {
  for (const spec of CATALOGUE) texts.set(spec.id, recentText(await readFile(path.join(BUNDLED_DIR, spec.file), 'utf8')));
});

/** Each series' last row among the bundled rows released by `nowMs`. */
function lastRowsAt(nowMs: number): Map<string, string | null> {
  const out = new Map<string, string | null>();
  for (const spec of CATALOGUE) {
    const last = cutText(spec, texts.get(spec.id) ?? '', nowMs)
      .trimEnd()
      .split('\n')
      .slice(1)
      .at(-1);
    out.set(spec.id, last === undefined ? null : last.slice(0, 10));
  }
  return out;
}

/** `rows` with one series' last row replaced (null: a file without rows; undefined: no file). */
const withRow = (rows: ReadonlyMap<string, string | null>, series: string, last: string | null | undefined): Map<string, string | null> => {
  const out = new Map(rows);
  if (last === undefined) out.delete(series);
  else out.set(series, last);
  return out;
};

/** The date of the row before `spec`'s last one in the bundled rows released by `nowMs`. */
function rowBeforeLast(spec: SeriesSpec, nowMs: number): string {
  const lines = cutText(spec, texts.get(spec.id) ?? '', nowMs)
    .trimEnd()
    .split('\n');
  return (lines.at(-2) ?? '').slice(0, 10);
}

describe('every released row in: ready', () => {
  it('at 06:30 on Friday 2025-06-13 the due day is Thursday 06-12, and every series is current', () => {
    const now = morning('2025-06-13');
    const rows = lastRowsAt(now);
    expect(dueDay(now)).toBe('2025-06-12');
    // What was out: the market closes of the 12th, the FRED daily rows of the 11th, H.4.1 of Wednesday the 11th, H.10's week to the 6th.
    expect([rows.get('GSPC'), rows.get('SPY'), rows.get('DGS10'), rows.get('WALCL'), rows.get('DTWEXBGS'), rows.get('DTWEXB')]).toEqual([
      '2025-06-12',
      '2025-06-12',
      '2025-06-11',
      '2025-06-11',
      '2025-06-06',
      '2019-12-31',
    ]);
    expect(readiness('2025-06-12', rows)).toEqual({ due: '2025-06-12', ready: true, late: [] });
  });

  it.each(['2025-06-16', '2025-06-20', '2025-06-23', '2025-06-24'])('and at 06:30 on %s, for the day then due', (date) => {
    const due = dueDay(morning(date));
    expect(readiness(due, lastRowsAt(morning(date))).late).toEqual([]);
  });
});

describe('the newest released row of one series missing: that series is late', () => {
  const now = morning('2025-06-13');
  // DTWEXB ended in 2019: its group stays current through DTWEXBGS (below).
  const alone = CATALOGUE.filter((s) => s.id !== 'DTWEXB');

  it.each(alone.map((s) => [s.id, s] as const))('%s', (_id, spec) => {
    const rows = lastRowsAt(now);
    const newest = rows.get(spec.id) ?? '';
    const result = readiness('2025-06-12', withRow(rows, spec.id, rowBeforeLast(spec, now)));
    expect(result.ready).toBe(false);
    expect(result.late).toEqual([
      {
        series: spec.id,
        file: spec.file,
        last_row: rowBeforeLast(spec, now),
        needed_row: newest,
        released_at: new Date(releasedAt(spec.release, newest)).toISOString(),
        rule: spec.release.source,
      },
    ]);
    // The row that is missing was out before the night began.
    expect(releasedAt(spec.release, newest)).toBeLessThanOrEqual(now);
  });

  it('a FRED daily series, in words', () => {
    const [late] = readiness('2025-06-12', withRow(lastRowsAt(now), 'DGS10', '2025-06-10')).late;
    expect(late && describeLate(late)).toBe('DGS10.csv lacks the row of 2025-06-11 (released 2025-06-12T20:15:00.000Z; its last row is 2025-06-10)');
  });

  it('a market series, in words: the close is out at 16:30 New York on the day', () => {
    const [late] = readiness('2025-06-12', withRow(lastRowsAt(now), 'GSPC', '2025-06-11')).late;
    expect(late && describeLate(late)).toBe('GSPC.csv lacks the row of 2025-06-12 (released 2025-06-12T20:30:00.000Z; its last row is 2025-06-11)');
  });

  it("several late series are each named, in the catalogue's order", () => {
    const rows = withRow(withRow(lastRowsAt(now), 'GLD', '2025-06-11'), 'VIXCLS', '2025-06-10');
    expect(readiness('2025-06-12', rows).late.map((l) => [l.series, l.needed_row])).toEqual([
      ['VIXCLS', '2025-06-11'],
      ['GLD', '2025-06-12'],
    ]);
  });
});

describe('holidays in the rhythm', () => {
  it('WALCL for due 2025-06-20 needs the week of 06-18, which H.4.1 published Friday 06-20 (Thursday was Juneteenth)', () => {
    const rows = withRow(lastRowsAt(morning('2025-06-23')), 'WALCL', '2025-06-11');
    const result = readiness('2025-06-20', rows);
    expect(result.late).toEqual([
      {
        series: 'WALCL',
        file: 'WALCL.csv',
        last_row: '2025-06-11',
        needed_row: '2025-06-18',
        released_at: '2025-06-20T20:30:00.000Z',
        rule: RELEASES.h41.source,
      },
    ]);
  });

  it('WALCL for due 2025-06-18 does not: the week of 06-18 was not out when 06-18 was published', () => {
    const now = morning('2025-06-20');
    expect(dueDay(now)).toBe('2025-06-18');
    const rows = lastRowsAt(now);
    expect(rows.get('WALCL')).toBe('2025-06-11');
    expect(readiness('2025-06-18', rows)).toEqual({ due: '2025-06-18', ready: true, late: [] });
  });

  it("FRED's empty Juneteenth row counts: without it a daily series is late for Friday 06-20", () => {
    const rows = lastRowsAt(morning('2025-06-23'));
    expect(rows.get('DGS10')).toBe('2025-06-19');
    const [late] = readiness('2025-06-20', withRow(rows, 'DGS10', '2025-06-18')).late;
    expect(late && describeLate(late)).toBe('DGS10.csv lacks the row of 2025-06-19 (released 2025-06-20T20:15:00.000Z; its last row is 2025-06-18)');
  });

  it("a market file's next row skips the NYSE holiday: SPY at 06-18 needs 06-20 for due 06-20", () => {
    const [late] = readiness('2025-06-20', withRow(lastRowsAt(morning('2025-06-23')), 'SPY', '2025-06-18')).late;
    expect(late?.needed_row).toBe('2025-06-20');
    expect(
      isCurrent(
        CATALOGUE.find((s) => s.id === 'SPY')!,
        '2025-06-18',
        '2025-06-18',
      ),
    ).toBe(true);
  });
});

describe('a start group counts its members together (the dollar)', () => {
  let rows: Map<string, string | null>;
  beforeAll(() => {
    rows = lastRowsAt(morning('2025-06-13'));
  });

  it('DTWEXB ended in 2019, DTWEXBGS is current: not late', () => {
    expect(rows.get('DTWEXB')).toBe('2019-12-31');
    expect(readiness('2025-06-12', rows).late).toEqual([]);
  });

  it('both behind: late, naming DTWEXBGS, the member that went furthest', () => {
    const result = readiness('2025-06-12', withRow(rows, 'DTWEXBGS', '2025-06-05'));
    expect(result.late.map((l) => [l.series, l.last_row, l.needed_row])).toEqual([['DTWEXBGS', '2025-06-05', '2025-06-06']]);
  });

  it('both without a file: late, naming DTWEXBGS', () => {
    const result = readiness('2025-06-12', withRow(withRow(rows, 'DTWEXBGS', undefined), 'DTWEXB', undefined));
    expect(result.late.map((l) => l.series)).toEqual(['DTWEXBGS']);
  });
});

describe('a file without rows', () => {
  let rows: Map<string, string | null>;
  beforeAll(() => {
    rows = lastRowsAt(morning('2025-06-13'));
  });

  it.each([
    ['with only its header', null],
    ['absent', undefined],
  ] as const)('%s: late, with no row to name', (_name, last) => {
    const result = readiness('2025-06-12', withRow(rows, 'GLD', last));
    expect(result.late).toEqual([{ series: 'GLD', file: 'GLD.csv', last_row: null, needed_row: null, released_at: null, rule: RELEASES.close.source }]);
    expect(describeLate(result.late[0]!)).toBe('GLD.csv has no row');
  });
});
