/**
 * The two pure comparisons behind `pipeline fetch`, rule by rule on small texts:
 *
 * - `mergeBars` (pipeline/fetch/merge-bars.ts): a market file keeps every row the vendor agrees with byte for
 *   byte (prices to PRICE_AGREEMENT, so single-precision noise is no revision, while a cent is); each field the
 *   vendor serves differently replaces the row and is listed; volumes, dividends and split ratios compare
 *   exactly; a day the vendor stops serving is kept and listed; new days are added in order.
 * - `fileRevisions` (pipeline/fetch/file-revisions.ts): what a FRED refresh revised, removed or inserted inside
 *   the old range, compared as numbers, with rows past the old last date counted as added.
 *
 * These are what FETCHED.json and `pipeline fetch` report to the operator, and what decides whether a file on
 * disk changes at all.
 */
import { describe, expect, it } from 'vitest';
import { fileRevisions } from '../../../pipeline/fetch/file-revisions.js';
import { mergeBars, PRICE_AGREEMENT } from '../../../pipeline/fetch/merge-bars.js';
import { seriesSpec } from '../../../pipeline/ingest/catalogue.js';
import type { DailyBar } from '../../../pipeline/sources/market-source.js';

const SPY = seriesSpec('SPY');
const GSPC = seriesSpec('GSPC');

const ROWS = {
  d16: '2025-06-16,600.4,604.45,600.22,602.68,79984100,0,1',
  d17: '2025-06-17,600.21,601.75,596.76,597.53,82209400,0,1',
  d18: '2025-06-18,598.44,601.22,596.47,597.44,76605000,0,1',
  d20: '2025-06-20,598.38,599.46,592.86,594.28,94051400,1.761,1',
  d23: '2025-06-23,595.04,600.54,591.89,600.15,87426000,0,1',
};

const fileOf = (header: string, lines: string[]): string => `${[header, ...lines].join('\n')}\n`;
const spyFile = (...lines: string[]): string => fileOf('date,open,high,low,close,volume,dividend,split', lines);

/** The bar a file line describes (dividend 0 and split 1 for an index line). */
function bar(line: string, change: Partial<DailyBar> = {}): DailyBar {
  const [date = '', open, high, low, close, volume, dividend = '0', split = '1'] = line.split(',');
  return {
    date,
    open: Number(open),
    high: Number(high),
    low: Number(low),
    close: Number(close),
    volume: Number(volume),
    dividend: Number(dividend),
    split: Number(split),
    ...change,
  };
}

/** A bar as Yahoo sends it: every price widened from single precision (594.28 → 594.280029296875). */
const widened = (b: DailyBar): DailyBar => ({
  ...b,
  open: Math.fround(b.open),
  high: Math.fround(b.high),
  low: Math.fround(b.low),
  close: Math.fround(b.close),
});

describe('mergeBars: what the vendor agrees with stays as it is', () => {
  const file = spyFile(ROWS.d16, ROWS.d17, ROWS.d18, ROWS.d20);

  it('bars equal to the rows: the same text, nothing added, no revision', () => {
    expect(
      mergeBars(
        SPY,
        file,
        [ROWS.d16, ROWS.d17, ROWS.d18, ROWS.d20].map((l) => bar(l)),
      ),
    ).toEqual({ text: file, rows: 4, added: 0, revisions: [] });
  });

  it('prices widened from single precision are the same prices: the file keeps its text', () => {
    const bars = [ROWS.d17, ROWS.d18, ROWS.d20].map((l) => widened(bar(l)));
    expect(bars[2]?.close).toBe(594.280029296875);
    expect(mergeBars(SPY, file, bars)).toEqual({ text: file, rows: 4, added: 0, revisions: [] });
  });

  it('rows before the first bar served are kept byte for byte, however they are written', () => {
    const odd = spyFile('2025-06-16,600.40,604.450,600.22,602.68,79984100,0.0,1.0', ROWS.d17);
    expect(mergeBars(SPY, odd, [bar(ROWS.d17)]).text).toBe(odd);
  });

  it('numbers written differently in a non-price field are equal (a split of 1.0 is a split of 1)', () => {
    const written = spyFile('2025-06-18,598.44,601.22,596.47,597.44,76605000,0.0,1.0');
    expect(mergeBars(SPY, written, [bar(ROWS.d18)])).toEqual({ text: written, rows: 1, added: 0, revisions: [] });
  });

  it('no bars: the file as it was', () => {
    expect(mergeBars(SPY, file, [])).toEqual({ text: file, rows: 4, added: 0, revisions: [] });
  });
});

describe('mergeBars: new days', () => {
  it("bars after the last row are added, in order, in the layout's columns", () => {
    const merged = mergeBars(
      SPY,
      spyFile(ROWS.d16, ROWS.d17),
      [ROWS.d17, ROWS.d18, ROWS.d20].map((l) => bar(l)),
    );
    expect(merged).toEqual({ text: spyFile(ROWS.d16, ROWS.d17, ROWS.d18, ROWS.d20), rows: 4, added: 2, revisions: [] });
  });

  it('an ex-dividend day arrives with its dividend and changes no earlier row', () => {
    const before = spyFile(ROWS.d16, ROWS.d17, ROWS.d18);
    const merged = mergeBars(
      SPY,
      before,
      [ROWS.d18, ROWS.d20].map((l) => bar(l)),
    );
    expect(merged.text).toBe(`${before}${ROWS.d20}\n`);
    expect(merged.revisions).toEqual([]);
  });

  it('a split day arrives with its ratio', () => {
    const merged = mergeBars(SPY, spyFile(ROWS.d18), [
      bar(ROWS.d20, { open: 299.19, high: 299.73, low: 296.43, close: 297.14, volume: 188102800, dividend: 0, split: 2 }),
    ]);
    expect(merged.text.split('\n')[2]).toBe('2025-06-20,299.19,299.73,296.43,297.14,188102800,0,2');
    expect(merged.added).toBe(1);
  });

  it('an index row has no dividend or split columns', () => {
    const header = 'date,open,high,low,close,volume';
    const row = '2025-06-18,5987.93,6018.25,5971.89,5980.87,5106470000';
    const merged = mergeBars(GSPC, fileOf(header, [row]), [bar(row), bar('2025-06-20,5999.67,6018.2,5952.56,5967.84,7451500000')]);
    expect(merged.text).toBe(fileOf(header, [row, '2025-06-20,5999.67,6018.2,5952.56,5967.84,7451500000']));
  });

  it('into a file with only its header: every bar is added', () => {
    const merged = mergeBars(SPY, spyFile(), [bar(ROWS.d16), bar(ROWS.d17)]);
    expect(merged).toEqual({ text: spyFile(ROWS.d16, ROWS.d17), rows: 2, added: 2, revisions: [] });
  });
});

describe('mergeBars: revisions', () => {
  const file = spyFile(ROWS.d16, ROWS.d17, ROWS.d18, ROWS.d20);
  const served = (changes: Record<string, Partial<DailyBar>>): DailyBar[] =>
    [ROWS.d16, ROWS.d17, ROWS.d18, ROWS.d20].map((l) => bar(l, changes[l.slice(0, 10)] ?? {}));

  it("a revised close replaces the row with the vendor's and is listed with its old and new text", () => {
    const merged = mergeBars(SPY, file, served({ '2025-06-17': { close: 597.5 } }));
    expect(merged.revisions).toEqual([{ date: '2025-06-17', field: 'close', was: '597.53', now: '597.5' }]);
    expect(merged.text).toBe(spyFile(ROWS.d16, '2025-06-17,600.21,601.75,596.76,597.5,82209400,0,1', ROWS.d18, ROWS.d20));
    expect(merged.added).toBe(0);
  });

  it('a cent on a price near 600 is a revision, not noise', () => {
    expect(mergeBars(SPY, file, served({ '2025-06-20': { close: 594.29 } })).revisions).toEqual([
      { date: '2025-06-20', field: 'close', was: '594.28', now: '594.29' },
    ]);
  });

  it('every differing field is listed, oldest day first', () => {
    const merged = mergeBars(SPY, file, served({ '2025-06-20': { high: 599.5, volume: 94051401 }, '2025-06-16': { open: 600.5 } }));
    expect(merged.revisions).toEqual([
      { date: '2025-06-16', field: 'open', was: '600.4', now: '600.5' },
      { date: '2025-06-20', field: 'high', was: '599.46', now: '599.5' },
      { date: '2025-06-20', field: 'volume', was: '94051400', now: '94051401' },
    ]);
  });

  it('volumes compare exactly: one share is a revision', () => {
    expect(mergeBars(SPY, file, served({ '2025-06-17': { volume: 82209401 } })).revisions).toEqual([
      { date: '2025-06-17', field: 'volume', was: '82209400', now: '82209401' },
    ]);
  });

  it('dividends agree to a millionth, as prices do: binary noise is no revision, a tenth of a cent is', () => {
    expect(mergeBars(SPY, file, served({ '2025-06-20': { dividend: 1.7610000000000001 } })).revisions).toEqual([]);
    expect(mergeBars(SPY, file, served({ '2025-06-20': { dividend: 1.7610005 } })).revisions).toEqual([]);
    expect(mergeBars(SPY, file, served({ '2025-06-20': { dividend: 1.762 } })).revisions).toEqual([
      { date: '2025-06-20', field: 'dividend', was: '1.761', now: '1.762' },
    ]);
  });

  it("a row that differs in one field keeps the file's text for every other (a change of vendor is no revision of prices)", () => {
    // The file's close 594.28 comes back widened from single precision, with another volume: only the volume is revised.
    const merged = mergeBars(SPY, file, served({ '2025-06-20': { close: 594.280029296875, volume: 94051500 } }));
    expect(merged.revisions).toEqual([{ date: '2025-06-20', field: 'volume', was: '94051400', now: '94051500' }]);
    expect(merged.text.split('\n').find((l) => l.startsWith('2025-06-20,'))).toBe('2025-06-20,598.38,599.46,592.86,594.28,94051500,1.761,1');
  });

  it('a dividend the vendor now dates a day earlier: two revisions, one per day', () => {
    const merged = mergeBars(SPY, file, served({ '2025-06-18': { dividend: 1.761 }, '2025-06-20': { dividend: 0 } }));
    expect(merged.revisions).toEqual([
      { date: '2025-06-18', field: 'dividend', was: '0', now: '1.761' },
      { date: '2025-06-20', field: 'dividend', was: '1.761', now: '0' },
    ]);
  });

  it('a split ratio the vendor no longer serves is a revision of the split', () => {
    const withSplit = spyFile(ROWS.d18, '2025-06-20,299.19,299.73,296.43,297.14,188102800,0,2');
    const merged = mergeBars(SPY, withSplit, [bar(ROWS.d18), bar('2025-06-20,299.19,299.73,296.43,297.14,188102800,0,1')]);
    expect(merged.revisions).toEqual([{ date: '2025-06-20', field: 'split', was: '2', now: '1' }]);
  });

  it('a day the vendor no longer serves is kept, in its place, and listed as a row revision', () => {
    const merged = mergeBars(
      SPY,
      file,
      [ROWS.d16, ROWS.d18, ROWS.d20].map((l) => bar(l)),
    );
    expect(merged.text).toBe(file);
    expect(merged.rows).toBe(4);
    expect(merged.revisions).toEqual([{ date: '2025-06-17', field: 'row', was: ROWS.d17, now: null }]);
  });

  it("a day the vendor serves inside the file's range that the file lacks is inserted in order and listed, not added", () => {
    const merged = mergeBars(
      SPY,
      spyFile(ROWS.d16, ROWS.d18, ROWS.d20),
      [ROWS.d16, ROWS.d17, ROWS.d18, ROWS.d20, ROWS.d23].map((l) => bar(l)),
    );
    expect(merged.text).toBe(spyFile(ROWS.d16, ROWS.d17, ROWS.d18, ROWS.d20, ROWS.d23));
    expect(merged.added).toBe(1);
    expect(merged.revisions).toEqual([{ date: '2025-06-17', field: 'row', was: null, now: ROWS.d17 }]);
  });
});

describe('PRICE_AGREEMENT: a millionth of the larger price', () => {
  const file = spyFile('2025-06-18,600,600,600,600,1000,0,1');
  const closeOf = (close: number) =>
    mergeBars(SPY, file, [bar('2025-06-18,600,600,600,600,1000,0,1', { close, high: Math.max(600, close), low: Math.min(600, close) })]);

  it('is a millionth', () => {
    expect(PRICE_AGREEMENT).toBe(1e-6);
  });

  it('just inside (600 and 600.0006, 1.0e-6 apart): the same price, the row kept', () => {
    expect(closeOf(600.0006)).toEqual({ text: file, rows: 1, added: 0, revisions: [] });
    expect(closeOf(599.99941).revisions).toEqual([]);
  });

  it('just outside (600 and 600.000601, 1.0017e-6 apart): a revision', () => {
    expect(closeOf(600.000601).revisions).toEqual([
      { date: '2025-06-18', field: 'high', was: '600', now: '600.000601' },
      { date: '2025-06-18', field: 'close', was: '600', now: '600.000601' },
    ]);
    expect(closeOf(599.999399).revisions.map((r) => r.field)).toEqual(['low', 'close']);
  });
});

describe('fileRevisions (a FRED file before and after a refresh)', () => {
  const WALCL = seriesSpec('WALCL');
  const walcl = (...lines: string[]): string => fileOf('date,value', lines);

  it('the same values written differently are no revision; rows after the old last date are added', () => {
    const before = walcl('2025-06-04,6677000.0', '2025-06-11,6681000');
    expect(fileRevisions(WALCL, before, walcl('2025-06-04,6677000', '2025-06-11,6681000.00', '2025-06-18,6680000'))).toEqual({ revisions: [], added: 1 });
  });

  it('a revised value, a removed row and an inserted row are listed, oldest first', () => {
    const before = walcl('2025-05-21,6700000', '2025-06-04,6677000', '2025-06-11,6681000');
    const after = walcl('2025-05-28,6690000', '2025-06-04,6677500', '2025-06-11,6681000');
    expect(fileRevisions(WALCL, before, after)).toEqual({
      revisions: [
        { date: '2025-05-21', field: 'row', was: '2025-05-21,6700000', now: null },
        { date: '2025-05-28', field: 'row', was: null, now: '2025-05-28,6690000' },
        { date: '2025-06-04', field: 'value', was: '6677000', now: '6677500' },
      ],
      added: 0,
    });
  });

  it("a holiday's empty value that gets one, and one that loses it, are revisions; two empty values are not", () => {
    const dgs10 = seriesSpec('DGS10');
    const before = fileOf('date,value', ['2025-06-18,4.39', '2025-06-19,', '2025-06-20,4.38', '2025-06-23,']);
    const after = fileOf('date,value', ['2025-06-18,', '2025-06-19,4.39', '2025-06-20,4.38', '2025-06-23,']);
    expect(fileRevisions(dgs10, before, after).revisions).toEqual([
      { date: '2025-06-18', field: 'value', was: '4.39', now: '' },
      { date: '2025-06-19', field: 'value', was: '', now: '4.39' },
    ]);
  });

  it('names the column of a file whose header is the series id', () => {
    const dtwexb = seriesSpec('DTWEXB');
    const revisions = fileRevisions(dtwexb, fileOf('date,DTWEXB', ['2019-12-31,126.3']), fileOf('date,DTWEXB', ['2019-12-31,126.4'])).revisions;
    expect(revisions).toEqual([{ date: '2019-12-31', field: 'DTWEXB', was: '126.3', now: '126.4' }]);
  });

  it('a file that did not exist: every row added, no revision', () => {
    expect(fileRevisions(WALCL, '', walcl('2025-06-04,6677000', '2025-06-11,6681000'))).toEqual({ revisions: [], added: 2 });
  });
});
