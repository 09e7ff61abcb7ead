/**
 * The FRED-format parser: FRED API JSON ("." = missing) gives exactly the `obs` rows the DuckDB loader
 * gives for the same series from its CSV file, and a FRED CSV file survives a parse/format round trip
 * byte for byte, so fetched and bundled data are interchangeable.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE, seriesSpec } from '../../../pipeline/ingest/catalogue.js';
import { openDatabase, queryRows, type Database } from '../../../pipeline/ingest/duckdb.js';
import { formatFredCsv, FredFormatError, parseFredCsv, readFredObservations, toObsRows, type ObsRow } from '../../../pipeline/ingest/fred-format.js';
import { loadObservations } from '../../../pipeline/ingest/load.js';
import { fredJsonFromCsv } from '../../../replay/vendors/fred-json.js';

const DATA_DIR = fileURLToPath(new URL('../../../data/macro/', import.meta.url));
const FRED_SERIES = CATALOGUE.filter((s) => s.source === 'fred');

let db: Database;
beforeAll(async () => {
  db = await openDatabase();
  await loadObservations(db.conn, DATA_DIR);
});
afterAll(() => db.close());

describe('readFredObservations + toObsRows', () => {
  it('reads "." as a missing value and applies the release rule of the series', () => {
    const obs = readFredObservations(
      {
        realtime_start: '2026-01-02',
        count: 3,
        observations: [
          { realtime_start: '2026-01-02', realtime_end: '2026-01-02', date: '2020-03-11', value: '4311911' },
          { realtime_start: '2026-01-02', realtime_end: '2026-01-02', date: '2020-03-18', value: '.' },
          { realtime_start: '2026-01-02', realtime_end: '2026-01-02', date: '2020-03-25', value: '5254181.0' },
        ],
      },
      'WALCL',
    );
    expect(toObsRows(seriesSpec('WALCL'), obs)).toEqual<ObsRow[]>([
      { series: 'WALCL', date: '2020-03-11', value: 4311911, usable_from: '2020-03-12' },
      { series: 'WALCL', date: '2020-03-18', value: null, usable_from: '2020-03-19' },
      { series: 'WALCL', date: '2020-03-25', value: 5254181, usable_from: '2020-03-26' },
    ]);
    // H.4.1 of a Wednesday is out Thursday 16:30, before Thursday's regime is published (Friday 06:30). The
    // yields of Friday 2020-02-28 are out Monday 2020-03-02 at 16:15: after Friday's regime was published (Monday
    // 06:30), so first used by Monday's.
    expect(toObsRows(seriesSpec('DGS10'), [{ date: '2020-02-28', value: '1.13' }])[0]?.usable_from).toBe('2020-03-02');
  });

  it.each([
    ['no observations array', { error_code: 400 }, /no observations array/],
    ['a number instead of text', { observations: [{ date: '2020-01-02', value: 1.5 }] }, /neither a number nor "\."/],
    ['an empty value (only "." means missing)', { observations: [{ date: '2020-01-02', value: '' }] }, /neither/],
    ['hexadecimal', { observations: [{ date: '2020-01-02', value: '0x10' }] }, /neither/],
    ['Infinity', { observations: [{ date: '2020-01-02', value: 'Infinity' }] }, /neither/],
    ['an impossible date', { observations: [{ date: '2021-02-30', value: '1' }] }, /not an ISO date/],
    [
      'dates out of order',
      {
        observations: [
          { date: '2020-01-03', value: '1' },
          { date: '2020-01-02', value: '1' },
        ],
      },
      /does not follow/,
    ],
    [
      'a repeated date',
      {
        observations: [
          { date: '2020-01-02', value: '1' },
          { date: '2020-01-02', value: '2' },
        ],
      },
      /does not follow/,
    ],
  ])('refuses %s', (_name, body, message) => {
    expect(() => readFredObservations(body, 'DGS10')).toThrow(FredFormatError);
    expect(() => readFredObservations(body, 'DGS10')).toThrow(message);
  });
});

describe('FRED JSON and the DuckDB loader agree on every bundled FRED series', () => {
  it.each(FRED_SERIES.map((s) => [s.id]))('%s', async (id) => {
    const spec = seriesSpec(id);
    const csv = await readFile(`${DATA_DIR}/${spec.file}`, 'utf8');
    const json = fredJsonFromCsv(spec, csv);
    const parsed = toObsRows(spec, readFredObservations(JSON.parse(JSON.stringify(json)), id));
    const loaded = await queryRows(
      db.conn,
      `SELECT series, strftime(date, '%Y-%m-%d') AS date, value, strftime(usable_from, '%Y-%m-%d') AS usable_from FROM obs WHERE series = '${id}' ORDER BY date`,
    );
    expect(parsed.length).toBe(loaded.length);
    expect(parsed.filter((r) => r.value === null).length).toBe(json.observations.filter((o) => o.value === '.').length);
    // Bit-for-bit: JS Number() and DuckDB's DOUBLE parser must round every decimal the same way.
    expect(parsed).toEqual(loaded);
  });
});

describe('FRED CSV layouts', () => {
  it.each(FRED_SERIES.map((s) => [s.id]))('%s: parse then format gives back the file byte for byte', async (id) => {
    const spec = seriesSpec(id);
    const csv = await readFile(`${DATA_DIR}/${spec.file}`, 'utf8');
    expect(formatFredCsv(spec, parseFredCsv(spec, csv))).toBe(csv);
  });

  it('writes "." as the layout\'s empty field and the named header for DTWEXB', () => {
    const text = formatFredCsv(seriesSpec('DTWEXB'), [
      { date: '2010-02-05', value: '103.5338' },
      { date: '2010-02-08', value: '.' },
    ]);
    expect(text).toBe('date,DTWEXB\n2010-02-05,103.5338\n2010-02-08,\n');
  });

  it('refuses a yfinance series and a wrong header', () => {
    expect(() => formatFredCsv(seriesSpec('GSPC'), [])).toThrow(/not a FRED layout/);
    expect(() => parseFredCsv(seriesSpec('DGS10'), 'DATE,DGS10\n2020-01-02,1.88\n')).toThrow(/header/);
  });
});
