/**
 * The time order of a quant's CSV file (pipeline/quant/date-order.ts): oldest first is taken as it is, newest
 * first is read backwards, a file without a date column in its own order; dates that go up and down, repeat,
 * are missing or are not dates are `data_invalid`, every such row named by file and line.
 */
import { describe, expect, it } from 'vitest';
import { dateOrder } from '../../../pipeline/quant/date-order.js';
import { isTradesealError } from '../../../src/core/errors.js';

const csv = (header: string, cells: string[]): string => `${header}\n${cells.map((c, i) => `${c},${i}`).join('\n')}\n`;

/** The `data_invalid` entries of the error `fn` throws, as `file:line: message`. */
function problems(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (!isTradesealError(err) || err.code !== 'data_invalid') throw err;
    return (err.errors ?? []).map((e) => `${e.field}: ${e.message}`);
  }
  throw new Error('no error');
}

describe('dateOrder', () => {
  it.each([
    ['oldest first', 'date,v', ['2024-01-02', '2024-01-03', '2024-01-05'], { column: 'date', newestFirst: false }],
    ['newest first', 'date,v', ['2024-01-05', '2024-01-03', '2024-01-02'], { column: 'date', newestFirst: true }],
    [
      'date-times with zones, newest first',
      'timestamp,v',
      ['2024-01-02T09:30:00Z', '2024-01-02T11:00:00+02:00', '2024-01-02 07:45'],
      { column: 'timestamp', newestFirst: true },
    ],
    ['Unix times', 'time,v', ['1700000000', '1700000060', '1700000120'], { column: 'time', newestFirst: false }],
    ['no date column', 'x,v', ['3', '1', '2'], { column: null, newestFirst: false }],
  ])('%s', (_, header, cells, expected) => {
    expect(dateOrder('f.csv', csv(header, cells))).toEqual(expected);
  });

  it("refuses dates that go up and down, naming each line against the file's direction", () => {
    expect(problems(() => dateOrder('f.csv', csv('date,v', ['2024-01-01', '2024-01-03', '2024-01-02', '2024-01-04'])))).toEqual([
      'f.csv:4: date "2024-01-02": comes before 2024-01-03 on line 3, but the file runs oldest first (from 2024-01-01 to 2024-01-04): the dates must go one way',
    ]);
    expect(problems(() => dateOrder('f.csv', csv('date,v', ['2024-01-04', '2024-01-02', '2024-01-03', '2024-01-01'])))).toEqual([
      'f.csv:4: date "2024-01-03": comes after 2024-01-02 on line 3, but the file runs newest first (from 2024-01-04 to 2024-01-01): the dates must go one way',
    ]);
  });

  it('refuses a date given twice, and dates that are missing or not dates', () => {
    expect(problems(() => dateOrder('f.csv', csv('date,v', ['2024-01-01', '2024-01-02', '2024-01-02', '2024-01-03'])))).toEqual([
      'f.csv:4: date "2024-01-02": repeats the date of line 3: one row per date',
    ]);
    expect(problems(() => dateOrder('f.csv', csv('Date,v', ['2024-01-01', '', '01/03/2024', '2024-02-30', '2024-01-05'])))).toEqual([
      'f.csv:3: Date "": is empty: every row needs its date, by which the rows are put in time order',
      'f.csv:4: Date "01/03/2024": is not a date (YYYY-MM-DD, or an ISO 8601 date-time)',
      'f.csv:5: Date "2024-02-30": is not a date (YYYY-MM-DD, or an ISO 8601 date-time)',
    ]);
    expect(problems(() => dateOrder('f.csv', csv('time,v', ['1700000000', '2024-01-01'])))).toEqual([
      'f.csv:3: time "2024-01-01": is not a Unix time like the rest of the column',
    ]);
  });
});
