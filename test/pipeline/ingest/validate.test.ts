/**
 * The input validator, rule by rule (table-driven, on small texts in each layout), then on the bundled
 * files (every one passes as it is) and on the four corruptions the pipeline used to publish from.
 */
import { describe, expect, it } from 'vitest';
import { CATALOGUE, LAYOUTS, seriesSpec } from '../../../pipeline/ingest/catalogue.js';
import { checkDataDir } from '../../../pipeline/ingest/check-dir.js';
import { describeProblem, type RuleId } from '../../../pipeline/ingest/problems.js';
import { validateSeriesText } from '../../../pipeline/ingest/validate.js';
import { CORRUPTIONS, DATA_DIR, bundledText, corruptedCopy } from './corruptions.js';

type Found = [line: number, rule: RuleId, subject: string, text: string];

/** The problems of `body` (data lines, joined) under the series' header, as [line, rule, subject, text]. */
function problemsOf(id: string, body: string[], header?: string): Found[] {
  const spec = seriesSpec(id);
  const head = header ?? LAYOUTS[spec.layout].header(id).join(',');
  return validateSeriesText(spec, `${[head, ...body].join('\n')}\n`).problems.map((p) => [p.line, p.rule, p.subject, p.text]);
}

/** The messages of the problems of `body`, as `describeProblem` renders them. */
function messagesOf(id: string, body: string[]): string[] {
  const spec = seriesSpec(id);
  const head = LAYOUTS[spec.layout].header(id).join(',');
  return validateSeriesText(spec, `${[head, ...body].join('\n')}\n`).problems.map(describeProblem);
}

describe('header and CSV', () => {
  it.each<[string, string, string, Found[]]>([
    ["another layout's header", 'DTWEXB', 'date,value\n2020-01-02,100\n', [[1, 'header', 'header', 'date,value']]],
    ['a renamed column', 'GSPC', 'date,open,high,low,close,adj_close\n', [[1, 'header', 'header', 'date,open,high,low,close,adj_close']]],
    ['an empty file', 'WALCL', '', [[1, 'header', 'header', '']]],
    ['a row with a field too many', 'DGS10', 'date,value\n2020-01-02,1.88,x\n', [[2, 'field_count', 'row', '2020-01-02,1.88,x']]],
    ['an empty line', 'DGS10', 'date,value\n2020-01-02,1.88\n\n2020-01-03,1.8\n', [[3, 'field_count', 'row', '']]],
    [
      'a stray quote, and the reading goes on',
      'DGS10',
      'date,value\n2020-01-02,1"88\n2020-01-03,x\n',
      [
        [2, 'csv_syntax', 'row', ''],
        [3, 'not_a_number', 'value', 'x'],
      ],
    ],
  ])('%s (%s)', (_name, id, text, expected) => {
    expect(validateSeriesText(seriesSpec(id), text).problems.map((p) => [p.line, p.rule, p.subject, p.text])).toEqual(expected);
  });

  it('reads quoted fields as csv-parse does (a quoted number is a number)', () => {
    expect(problemsOf('DGS10', ['2020-01-02,"1.88"', '"2020-01-03",1.8'])).toEqual([]);
  });
});

describe('values', () => {
  it.each<[string, string, string, Found[]]>([
    ['an empty FRED field is the missing-value marker', 'DGS10', '2020-01-02,', []],
    ['FRED\'s "." is not this layout\'s marker', 'DGS10', '2020-01-02,.', [[2, 'not_a_number', 'value', '.']]],
    ['an exponent', 'DGS10', '2020-01-02,1.8e0', [[2, 'not_a_number', 'value', '1.8e0']]],
    ['a leading space', 'DGS10', '2020-01-02, 1.8', [[2, 'not_a_number', 'value', ' 1.8']]],
    ['a plus sign', 'DGS10', '2020-01-02,+1.8', [[2, 'not_a_number', 'value', '+1.8']]],
    ['NaN', 'VIXCLS', '2020-01-02,NaN', [[2, 'not_a_number', 'value', 'NaN']]],
    ['a decimal comma (quoted)', 'VIXCLS', '2020-01-02,"12,5"', [[2, 'not_a_number', 'value', '12,5']]],
    ['an empty close: a market file has no missing values', 'GSPC', '2020-01-02,3244.67,3258.14,3235.53,,3459930000', [[2, 'not_a_number', 'close', '']]],
    ['a date that does not exist', 'DGS10', '2021-02-29,1.1', [[2, 'date_format', 'date', '2021-02-29']]],
    ['a date in another format', 'DGS10', '01/02/2020,1.9', [[2, 'date_format', 'date', '01/02/2020']]],
  ])('%s', (_name, id, row, expected) => {
    expect(problemsOf(id, [row])).toEqual(expected);
  });
});

describe('bounds, written in the catalogue', () => {
  it.each<[string, string, string]>([
    ['WALCL', '-7234.0', 'WALCL must be ≥ 0 (a balance sheet is never negative)'],
    ['WALCL', '60000000.0', 'WALCL must be ≤ 50000000'],
    ['WTREGEN', '-1.0', 'WTREGEN must be ≥ 0'],
    ['RRPONTSYD', '-0.5', 'RRPONTSYD must be ≥ 0'],
    ['RRPONTSYD', '2553716', "RRPONTSYD must be ≤ 10000 (more than the Fed's whole balance sheet: a value in millions, not billions)"],
    ['DGS10', '25.5', 'DGS10 must be ≤ 25'],
    ['DGS2', '-5.01', 'DGS2 must be ≥ -5'],
    ['T10Y2Y', '12', 'T10Y2Y must be ≤ 10'],
    ['BAMLH0A0HYM2', '0', 'BAMLH0A0HYM2 must be > 0'],
    ['BAMLH0A0HYM2', '350', 'BAMLH0A0HYM2 must be ≤ 40 (the spread peaked at 21.82 % (2008-12-15); above 40 the value is in basis points)'],
    ['VIXCLS', '4.9', 'VIXCLS must be ≥ 5'],
    ['VIXCLS', '150.1', 'VIXCLS must be ≤ 150'],
    ['DTWEXBGS', '12.1', 'DTWEXBGS must be ≥ 50'],
    ['DTWEXBGS', '1210', 'DTWEXBGS must be ≤ 250'],
  ])('%s %s is refused: %s', (id, value, says) => {
    const [message] = messagesOf(id, [`2022-09-14,${value}`]);
    expect(message).toContain(`value "${value}" on 2022-09-14: ${says}`);
  });

  it.each<[string, string]>([
    ['WALCL', '0'],
    ['RRPONTSYD', '0'],
    ['DGS10', '-0.5'],
    ['DGS2', '16.95'],
    ['T10Y2Y', '-2.41'],
    ['BAMLH0A0HYM2', '21.82'],
    ['VIXCLS', '82.69'],
    ['DTWEXBGS', '130.2142'],
  ])('%s %s, within its bounds, passes', (id, value) => {
    expect(problemsOf(id, [`2022-09-14,${value}`])).toEqual([]);
  });

  it('states bounds for every series', () => {
    for (const s of CATALOGUE) expect(s.bounds.whyMin.length, s.id).toBeGreaterThan(10);
  });
});

describe('market rows: prices, their order and the volume', () => {
  const ok = '2007-01-03,1418.030029296875,1429.4200439453125,1407.8599853515625,1416.5999755859375,3429160000';
  it.each<[string, string, Found[]]>([
    ['a well-formed row', ok, []],
    [
      'a price of 0',
      '2007-01-03,0,1429.42,0,1416.6,3429160000',
      [
        [2, 'out_of_bounds', 'open', '0'],
        [2, 'out_of_bounds', 'low', '0'],
      ],
    ],
    ['low above high', '2007-01-03,1418.03,1407.86,1429.42,1416.6,3429160000', [[2, 'price_order', 'low', '1429.42']]],
    ['open above high', '2007-01-03,1430.5,1429.42,1407.86,1416.6,3429160000', [[2, 'price_order', 'open', '1430.5']]],
    ['close below low', '2007-01-03,1418.03,1429.42,1407.86,1400,3429160000', [[2, 'price_order', 'close', '1400']]],
    // SPY 1993-02-19 as yfinance adjusted it: the close exceeds the high by one unit in the last place.
    ['an adjusted close a rounding above its high', '2007-01-03,23.8830829549212,23.969055175781246,23.84869406657718,23.96905517578125,34900', []],
    ['a fractional volume', '2007-01-03,1418.03,1429.42,1407.86,1416.6,3429160000.5', [[2, 'volume', 'volume', '3429160000.5']]],
    ['a negative volume', '2007-01-03,1418.03,1429.42,1407.86,1416.6,-1', [[2, 'volume', 'volume', '-1']]],
  ])('%s', (_name, row, expected) => {
    expect(problemsOf('GSPC', [row])).toEqual(expected);
  });
});

describe("a share's actions: the dividend that went ex and the split", () => {
  const bar = '2025-06-20,598.38,599.46,592.86,594.28,94051400';
  it.each<[string, string, Found[]]>([
    ['a day without an action', `${bar},0,1`, []],
    ['an ex-dividend day', `${bar},1.76112,1`, []],
    ['a 2-for-1 split', `${bar},0,2`, []],
    ['a 1-for-10 reverse split', `${bar},0,0.1`, []],
    ['a negative dividend', `${bar},-1.76,1`, [[2, 'out_of_bounds', 'dividend', '-1.76']]],
    ['a dividend as large as the close (a price in the wrong column)', `${bar},594.28,1`, [[2, 'out_of_bounds', 'dividend', '594.28']]],
    ['a split of 0 (yfinance writes 0 for "no split")', `${bar},0,0`, [[2, 'out_of_bounds', 'split', '0']]],
    ['a split beyond 1000:1', `${bar},0,5000`, [[2, 'out_of_bounds', 'split', '5000']]],
    ['an empty dividend', `${bar},,1`, [[2, 'not_a_number', 'dividend', '']]],
    ['no action columns', bar, [[2, 'field_count', 'row', bar]]],
  ])('%s', (_name, row, expected) => {
    expect(problemsOf('SPY', [row])).toEqual(expected);
  });

  it('says why a dividend is refused', () => {
    expect(messagesOf('SPY', ['2025-06-20,598.38,599.46,592.86,594.28,94051400,594.28,1'])).toEqual([
      'dividend "594.28" on 2025-06-20: SPY dividend must be below the day\'s close 594.28 (a payout of the whole price is a price in the wrong column)',
    ]);
  });
});

describe('dates: strictly increasing, each once', () => {
  it('names the first line of a repeated date, wherever it is', () => {
    const body = ['2020-01-02,1.88', '2020-01-03,1.8', '2020-01-06,1.81', '2020-01-03,1.8'];
    const report = validateSeriesText(seriesSpec('DGS10'), ['date,value', ...body, ''].join('\n'));
    expect(report.problems.map((p) => p.message)).toEqual(['repeats the date of line 3; each date appears once']);
  });

  it.each<[string, string[], Found[]]>([
    ['two rows swapped', ['2020-01-02,1.88', '2020-01-06,1.81', '2020-01-03,1.8', '2020-01-07,1.83'], [[4, 'date_order', 'date', '2020-01-03']]],
    ['a repeated date', ['2020-01-02,1.88', '2020-01-02,1.88', '2020-01-03,1.8'], [[3, 'date_repeated', 'date', '2020-01-02']]],
    [
      'a row moved to the top is one problem, not one per row',
      ['2020-01-08,1.87', '2020-01-02,1.88', '2020-01-03,1.8', '2020-01-06,1.81', '2020-01-07,1.83'],
      [[3, 'date_order', 'date', '2020-01-02']],
    ],
    // The dates above a first step back are indexed too: the repeat of line 3 is named after it.
    [
      'a date repeated further down, after the dates went on',
      ['2020-01-02,1.88', '2020-01-03,1.8', '2020-01-06,1.81', '2020-01-03,1.8', '2020-01-07,1.83', '2020-01-02,1.88'],
      [
        [5, 'date_repeated', 'date', '2020-01-03'],
        [7, 'date_repeated', 'date', '2020-01-02'],
      ],
    ],
  ])('%s', (_name, body, expected) => {
    expect(problemsOf('DGS10', body)).toEqual(expected);
  });
});

describe('publication rhythm', () => {
  it.each<[string, string, string[], Found[]]>([
    [
      'FRED daily: every weekday, holidays as empty values',
      'DGS10',
      ['2019-12-31,1.92', '2020-01-01,', '2020-01-02,1.88', '2020-01-03,1.8', '2020-01-06,1.81'],
      [],
    ],
    ['FRED daily: a weekday without a row', 'DGS10', ['2020-01-02,1.88', '2020-01-06,1.81'], [[3, 'gap', 'date', '2020-01-06']]],
    ['FRED daily: a row on a Saturday', 'DGS10', ['2020-01-03,1.8', '2020-01-04,1.8', '2020-01-06,1.81'], [[3, 'off_rhythm', 'date', '2020-01-04']]],
    ['ICE: a weekend month end is allowed', 'BAMLH0A0HYM2', ['2020-02-28,4.01', '2020-02-29,4.01', '2020-03-02,4.3'], []],
    ['ICE: another weekend day is not', 'BAMLH0A0HYM2', ['2020-02-21,3.6', '2020-02-22,3.6', '2020-02-24,3.9'], [[3, 'off_rhythm', 'date', '2020-02-22']]],
    ['H.4.1: Wednesdays 7 days apart', 'WALCL', ['2020-03-11,4362086.0', '2020-03-18,4668101.0', '2020-03-25,5254047.0'], []],
    ['H.4.1: a week left out', 'WALCL', ['2020-03-11,4362086.0', '2020-03-25,5254047.0'], [[3, 'gap', 'date', '2020-03-25']]],
    [
      'H.4.1: a Thursday',
      'WALCL',
      ['2020-03-11,4362086.0', '2020-03-19,4668101.0', '2020-03-25,5254047.0'],
      [
        [3, 'off_rhythm', 'date', '2020-03-19'],
        [4, 'gap', 'date', '2020-03-25'],
      ],
    ],
    [
      "NYSE: New Year's Day and the Ford funeral have no row",
      'GSPC',
      ['2006-12-29,1424.7,1427,1416.8,1418.3,1678200000', '2007-01-03,1418,1429.4,1407.9,1416.6,3429160000'],
      [],
    ],
    [
      'NYSE: a trading day without a row',
      'GSPC',
      ['2007-01-03,1418,1429.4,1407.9,1416.6,3429160000', '2007-01-05,1418.3,1418.3,1405.8,1409.7,2919400000'],
      [[3, 'gap', 'date', '2007-01-05']],
    ],
    [
      'NYSE: a row on a special closure',
      'GSPC',
      ['2012-10-26,1412,1417,1403,1411.9,3284910000', '2012-10-29,1411.9,1411.9,1411.9,1411.9,0', '2012-10-31,1410,1418.8,1405.9,1412.2,3577110000'],
      [[3, 'off_rhythm', 'date', '2012-10-29']],
    ],
    [
      'NYSE: a row on a holiday',
      'GSPC',
      ['2022-06-17,3665,3707.7,3643.3,3674.8,7609670000', '2022-06-20,3674.8,3674.8,3674.8,3674.8,0', '2022-06-21,3715.3,3779.7,3715.3,3764.8,4000000000'],
      [[3, 'off_rhythm', 'date', '2022-06-20']],
    ],
    [
      'NYSE: before 1990 (Saturday sessions) the days are not checked',
      'GSPC',
      ['1950-01-06,16.9,16.9,16.9,16.9,0', '1950-01-07,16.9,16.9,16.9,16.9,0', '1950-01-11,16.9,16.9,16.9,16.9,0'],
      [],
    ],
  ])('%s', (_name, id, body, expected) => {
    expect(problemsOf(id, body)).toEqual(expected);
  });

  it('names the missing days and the rule in the message', () => {
    expect(messagesOf('GSPC', ['2007-01-03,1418,1429.4,1407.9,1416.6,3429160000', '2007-01-05,1418.3,1418.3,1405.8,1409.7,2919400000'])).toEqual([
      'date "2007-01-05": no row for the NYSE trading day 2007-01-04 before it (the row before is 2007-01-03); GSPC has a row on every NYSE trading day from 1990-01-02 and on no other day (regular holidays from nyse-holidays, special closures listed in the catalogue)',
    ]);
    expect(messagesOf('DGS10', ['2020-01-02,1.88', '2020-01-08,1.87'])[0]).toContain('no row for the 3 weekdays 2020-01-03 to 2020-01-07 before it');
    expect(
      messagesOf('GSPC', [
        '2012-10-26,1412,1417,1403,1411.9,3284910000',
        '2012-10-29,1411.9,1411.9,1411.9,1411.9,0',
        '2012-10-31,1410,1418.8,1405.9,1412.2,3577110000',
      ])[0],
    ).toContain('the NYSE was closed (Hurricane Sandy)');
  });
});

describe('runs of missing values', () => {
  const days = (from: string, n: number): string[] => {
    const out: string[] = [];
    for (let t = Date.parse(`${from}T00:00:00Z`); out.length < n; t += 86_400_000) {
      const d = new Date(t);
      if (d.getUTCDay() !== 0 && d.getUTCDay() !== 6) out.push(d.toISOString().slice(0, 10));
    }
    return out;
  };
  const series = (id: string, from: string, values: string[]): string[] => days(from, values.length).map((d, i) => `${d},${values[i]}`);

  it.each<[string, string, string, string[], Found[]]>([
    ['5 empty weekdays in a row (a week of closures) pass', 'DTWEXBGS', '2010-02-05', ['103.5', '', '', '', '', '', '103'], []],
    ['6 in a row are refused, once, on the first', 'DTWEXBGS', '2010-02-05', ['103.5', '', '', '', '', '', '', '103'], [[3, 'missing_run', 'value', '']]],
    ['a series ending in a blank run', 'VIXCLS', '2020-03-02', ['33.4', '', '', '', '', '', ''], [[3, 'missing_run', 'value', '']]],
    ['empty rows before the first value are dates before the series began', 'DGS10', '2020-01-02', ['', '', '', '', '', '', '', '1.8'], []],
    ['RRP: long empty runs before daily operations (2013-09-23) pass', 'RRPONTSYD', '2013-08-01', ['5.0', ...Array<string>(30).fill(''), '1.0'], []],
    ['RRP: but not after', 'RRPONTSYD', '2013-09-23', ['1.0', ...Array<string>(6).fill(''), '2.0'], [[3, 'missing_run', 'value', '']]],
  ])('%s', (_name, id, from, values, expected) => {
    expect(problemsOf(id, series(id, from, values))).toEqual(expected);
  });

  it('H.4.1 has no missing value once a series has begun, but may begin with empty weeks (WTREGEN 1986-2002)', () => {
    expect(problemsOf('WTREGEN', ['2002-12-04,', '2002-12-11,', '2002-12-18,4000.0', '2002-12-25,5000.0'])).toEqual([]);
    expect(problemsOf('WALCL', ['2020-03-11,4362086.0', '2020-03-18,', '2020-03-25,5254047.0'])).toEqual([[3, 'missing_run', 'value', '']]);
  });

  it('says how long the run is and where', () => {
    expect(messagesOf('DTWEXBGS', series('DTWEXBGS', '2010-02-05', ['103.5', '', '', '', '', '', '', '103']))).toEqual([
      'value "" on 2010-02-08: 6 missing values in a row (2010-02-08 to 2010-02-15, lines 3-8); DTWEXBGS allows at most 5 in a row (no more than a week of holidays and closures in a row)',
    ]);
  });
});

describe('every problem, not just the first', () => {
  it('reports each problem of a file, by line', () => {
    const found = problemsOf('VIXCLS', ['2020-01-02,12.47', '2020-01-03,-1', '2020-01-07,x', '2020-01-06,14', '2020-02-30,13', '2020-01-09,13.5']);
    expect(found).toEqual([
      [3, 'out_of_bounds', 'value', '-1'],
      [4, 'not_a_number', 'value', 'x'],
      [5, 'date_order', 'date', '2020-01-06'],
      [6, 'date_format', 'date', '2020-02-30'],
      // Dates are taken in calendar order for the rhythm, so the swapped pair is no gap; 2020-01-08 is.
      [7, 'gap', 'date', '2020-01-09'],
    ]);
  });
});

describe('the bundled files', () => {
  it('every file in data/macro passes every rule as it is', async () => {
    const reports = await checkDataDir(DATA_DIR);
    expect(reports.map((r) => r.file)).toEqual(CATALOGUE.map((s) => s.file));
    for (const r of reports) expect(r.problems.map(describeProblem), r.file).toEqual([]);
    // The rows and date ranges data/macro/PROVENANCE.md states.
    expect(reports.find((r) => r.id === 'GSPC')).toMatchObject({ rows: 24777, firstDate: '1927-12-30', lastDate: '2026-08-21' });
    expect(reports.find((r) => r.id === 'WTREGEN')).toMatchObject({ rows: 2081, firstDate: '1986-01-08', lastDate: '2025-11-19' });
  }, 30_000);
});

describe('the four corruptions that used to be published', () => {
  it.each(CORRUPTIONS.map((make) => [make().name, make] as const))('%s: refused, naming the file, each line, the value and the rule', async (_name, make) => {
    const c = make();
    const { problems } = validateSeriesText(seriesSpec(c.file.replace(/\.csv$/, '')), c.text);
    expect(problems.map((p) => [p.file, p.line, p.text, p.rule])).toEqual(c.expected.map((e) => [c.file, e.line, e.text, e.rule]));
    problems.forEach((p, i) => expect(describeProblem(p)).toContain(c.expected[i]?.says));
  });

  it('counts: 61 GSPC days, 101 high-yield rows, one swap, one negative balance sheet', () => {
    expect(CORRUPTIONS.map((make) => make().expected.length)).toEqual([61, 101, 1, 1]);
  });

  it('on a copy of data/macro, only the corrupted files have problems', async () => {
    const made = CORRUPTIONS.map((make) => make());
    const copy = await corruptedCopy(made);
    try {
      const reports = await checkDataDir(copy.dir);
      expect(Object.fromEntries(reports.map((r) => [r.file, r.problems.length]))).toEqual(
        Object.fromEntries(CATALOGUE.map((s) => [s.file, made.find((c) => c.file === s.file)?.expected.length ?? 0])),
      );
    } finally {
      await copy.remove();
    }
  }, 30_000);

  it('the corruptions change the bundled files (the control: they are real)', async () => {
    for (const make of CORRUPTIONS) {
      const c = make();
      expect(c.text).not.toBe(await bundledText(c.file));
    }
  });
});
