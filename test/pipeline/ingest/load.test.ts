/**
 * The DuckDB loader on the bundled files: every row of every file in `obs`, each layout's missing-value
 * marker read as NULL, the release rule of its series in `usable_from`, and files that break a rule of their series
 * refused, nothing computed from them returned, while they load (the rules themselves are tested in validate.test.ts).
 * Row and missing counts are the ones data/macro/PROVENANCE.md states (counted there independently).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE, seriesSpec } from '../../../pipeline/ingest/catalogue.js';
import { openDatabase, queryRows, type Database } from '../../../pipeline/ingest/duckdb.js';
import { readDataFiles, validateDataFiles } from '../../../pipeline/ingest/check-dir.js';
import { insertSeries, loadObservations, withObservations } from '../../../pipeline/ingest/load.js';
import { validateOffThread } from '../../../pipeline/ingest/validate-thread.js';
import { TradesealError } from '../../../src/core/errors.js';
import { firstUsableDay, RELEASE_KIND, type ReleaseKind } from '../release/reference.js';

const DATA_DIR = fileURLToPath(new URL('../../../data/macro/', import.meta.url));

let db: Database;
beforeAll(async () => {
  db = await openDatabase();
  await loadObservations(db.conn, DATA_DIR);
});
afterAll(() => db.close());

const one = async (sql: string): Promise<Record<string, unknown>> => {
  const [row] = await queryRows(db.conn, sql);
  if (!row) throw new Error(`no row: ${sql}`);
  return row;
};

describe('loadObservations on the bundled files', () => {
  it.each([
    ['WALCL', 1202, 0],
    ['WTREGEN', 2081, 884],
    ['RRPONTSYD', 5974, 2824],
    ['DGS10', 12001, 502],
    ['DGS2', 12001, 502],
    ['T10Y2Y', 12002, 502],
    ['BAMLH0A0HYM2', 7664, 93],
    ['VIXCLS', 9391, 300],
    ['DTWEXBGS', 5215, 205],
    ['DTWEXB', 6520, 192],
    ['GSPC', 24777, 0],
    ['SPY', 8390, 0],
    ['GLD', 5473, 0],
  ])('%s: %i rows, %i of them missing', async (series, rows, missing) => {
    const r = await one(`SELECT count(*) AS n, count(*) FILTER (WHERE value IS NULL) AS missing FROM obs WHERE series = '${series}'`);
    expect(Number(r.n)).toBe(rows);
    expect(Number(r.missing)).toBe(missing);
  });

  it('reads an empty FRED field as NULL and keeps the row (layout date,value)', async () => {
    const r = await one("SELECT value, usable_from::VARCHAR AS u FROM obs WHERE series = 'RRPONTSYD' AND date = DATE '2003-02-10'");
    // Monday's operation reaches FRED on Tuesday 2003-02-11, so it is first used by Tuesday's regime.
    expect(r).toEqual({ value: null, u: '2003-02-11' });
    const next = await one("SELECT value FROM obs WHERE series = 'RRPONTSYD' AND date = DATE '2003-02-07'");
    expect(next.value).toBe(2.5);
  });

  it('reads the named-column layout date,DTWEXB, empty fields included', async () => {
    const r = await queryRows(
      db.conn,
      "SELECT date::VARCHAR AS d, value FROM obs WHERE series = 'DTWEXB' AND date BETWEEN DATE '2010-02-05' AND DATE '2010-02-12' ORDER BY date",
    );
    expect(r).toEqual([
      { d: '2010-02-05', value: 103.5338 },
      { d: '2010-02-08', value: null },
      { d: '2010-02-09', value: null },
      { d: '2010-02-10', value: null },
      { d: '2010-02-11', value: null },
      { d: '2010-02-12', value: 102.9029 },
    ]);
  });

  it('takes the close of the market layouts, not another price column', async () => {
    // 2026-08-21 line: open 7665.68017578125, high 7697.10986328125, low 7660.06005859375, close 7674.3701171875.
    const r = await one("SELECT value FROM obs WHERE series = 'GSPC' AND date = DATE '2026-08-21'");
    expect(r.value).toBe(7674.3701171875);
  });

  it('sets usable_from of every row from 1990 on as the independent statement of the release rules does', async () => {
    // The NYSE trading days are the GSPC file's dates, which follow the NYSE calendar from 1990-01-02 on
    // (before, Saturday sessions and unlisted closures); rows dated from then on are compared.
    const rows = await queryRows(
      db.conn,
      "SELECT series, strftime(date, '%Y-%m-%d') AS d, strftime(usable_from, '%Y-%m-%d') AS u FROM obs WHERE date >= DATE '1990-01-02' ORDER BY series, date",
    );
    const trading = new Set(rows.filter((r) => r.series === 'GSPC').map((r) => String(r.d)));
    const mismatches = rows
      .filter((r) => String(r.u) !== firstUsableDay(RELEASE_KIND[String(r.series)] as ReleaseKind, String(r.d), (d) => trading.has(d)))
      .map((r) => `${String(r.series)} ${String(r.d)} → ${String(r.u)}`);
    expect(mismatches.slice(0, 5)).toEqual([]);
    expect(new Set(rows.map((r) => r.series)).size).toBe(CATALOGUE.length);
  });

  it.each([
    // series, date, first trading day whose regime uses it, worked out by hand
    ['WALCL', '2020-03-18', '2020-03-19'], // Wednesday; H.4.1 out Thursday 16:30, Thursday's regime published Friday 06:30
    ['DGS10', '2020-03-18', '2020-03-19'], // H.15 of Wednesday out Thursday 16:15
    ['DGS10', '2020-03-20', '2020-03-23'], // a Friday's yields are out Monday 16:15, after Friday's regime (Monday 06:30)
    ['VIXCLS', '2020-03-16', '2020-03-17'], // FRED's copy, the next business day
    ['DTWEXBGS', '2020-03-16', '2020-03-23'], // H.10: the week of Monday 2020-03-16 is out Monday 2020-03-23
    ['DTWEXBGS', '2020-03-20', '2020-03-23'],
    ['GSPC', '2020-03-18', '2020-03-18'], // a close is out on its day, before the regime of that day is published
    ['WALCL', '2025-11-26', '2025-11-28'], // Thanksgiving week: H.4.1 out Friday 2025-11-28
  ])('%s of %s is first used by the regime of %s', async (series, date, usable) => {
    const r = await one(`SELECT usable_from::VARCHAR AS u FROM obs WHERE series = '${series}' AND date = DATE '${date}'`);
    expect(r.u).toBe(usable);
  });

  it('returns the SHA-256 of every file', async () => {
    const other = await openDatabase();
    try {
      const inputs = await loadObservations(other.conn, DATA_DIR);
      expect(inputs.map((i) => i.id)).toEqual(CATALOGUE.map((s) => s.id));
      const walcl = inputs.find((i) => i.id === 'WALCL');
      expect(walcl?.sha256).toBe('283207fe8811512c4927f56a0ebc63d82511adf8666947132cfcd6607dbee19b');
    } finally {
      other.close();
    }
  });
});

describe('loadObservations validates every file and loads nothing from a directory with a problem', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'tradeseal-load-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  /** Loads one series from `dir` after writing `text` as its file; returns the rows of `obs` afterwards. */
  const loadOne = async (id: string, text: string): Promise<number> => {
    const spec = seriesSpec(id);
    await writeFile(path.join(dir, spec.file), text);
    const scratch = await openDatabase();
    try {
      await loadObservations(scratch.conn, dir, [spec]);
      const [row] = await queryRows(scratch.conn, 'SELECT count(*) AS n FROM obs');
      return Number(row?.n);
    } finally {
      scratch.close();
    }
  };

  /** The data_invalid error of loading `text`, with its entries as `field: message` lines. */
  const failure = async (id: string, text: string): Promise<{ err: TradesealError; lines: string[] }> => {
    const err = await loadOne(id, text).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TradesealError);
    expect((err as TradesealError).code).toBe('data_invalid');
    const lines = ((err as TradesealError).errors ?? []).map((e) => `${e.field}: ${e.message}`);
    return { err: err as TradesealError, lines };
  };

  it('accepts a well-formed copy (the control for the cases below)', async () => {
    await expect(loadOne('GLD', await readFile(path.join(DATA_DIR, 'GLD.csv'), 'utf8'))).resolves.toBe(5473);
  });

  it('an empty close in a market file (that layout has no missing-value marker)', async () => {
    const { err, lines } = await failure('GLD', 'date,open,high,low,close,volume,dividend,split\n2004-11-18,44.43,44.49,44.07,,5992000,0,1\n');
    expect(err.message).toContain('1 problem in GLD.csv');
    expect(lines).toEqual(['GLD.csv:2: close "" on 2004-11-18: not a plain decimal number; the ohlcv_actions layout has no missing values']);
  });

  it('FRED\'s classic "." marker in a file whose layout marks missing values with an empty field', async () => {
    const { lines } = await failure('DGS10', 'date,value\n2020-01-01,.\n2020-01-02,1.88\n');
    expect(lines).toEqual(['DGS10.csv:2: value "." on 2020-01-01: not a plain decimal number; nor the missing-value marker (an empty field)']);
  });

  it('a header of another layout', async () => {
    const { lines } = await failure('DTWEXB', 'date,value\n2020-01-02,1\n');
    expect(lines).toEqual(['DTWEXB.csv:1: header "date,value": the fred_named layout\'s header is "date,DTWEXB"']);
  });

  it('a repeated date', async () => {
    const { lines } = await failure('VIXCLS', 'date,value\n2020-01-02,12.47\n2020-01-02,12.5\n');
    expect(lines).toEqual(['VIXCLS.csv:3: date "2020-01-02": repeats the date of line 2; each date appears once']);
  });

  it('a missing file, naming it', async () => {
    const err = await (async () => {
      const scratch = await openDatabase();
      try {
        return await loadObservations(scratch.conn, path.join(dir, 'nowhere'), [seriesSpec('WALCL')]).then(
          () => null,
          (e: unknown) => e,
        );
      } finally {
        scratch.close();
      }
    })();
    expect((err as TradesealError).code).toBe('data_invalid');
    expect((err as TradesealError).errors?.[0]).toMatchObject({ field: 'WALCL.csv', message: expect.stringContaining('cannot be read (ENOENT)') });
  });

  it('loads nothing when any file has a problem, even if the others are fine', async () => {
    await writeFile(path.join(dir, 'GLD.csv'), await readFile(path.join(DATA_DIR, 'GLD.csv')));
    await writeFile(path.join(dir, 'VIXCLS.csv'), 'date,value\n2020-01-02,12.47\n2020-01-03,-1\n');
    const scratch = await openDatabase();
    try {
      const err = await loadObservations(scratch.conn, dir, [seriesSpec('GLD'), seriesSpec('VIXCLS')]).then(
        () => null,
        (e: unknown) => e,
      );
      expect((err as TradesealError).errors?.map((e) => e.field)).toEqual(['VIXCLS.csv:3']);
      const tables = await queryRows(scratch.conn, "SELECT count(*) AS n FROM duckdb_tables() WHERE table_name = 'obs'");
      expect(Number(tables[0]?.n)).toBe(0);
    } finally {
      scratch.close();
    }
  });
});

describe('validation on its own thread while the rows load', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'tradeseal-overlap-'));
    await writeFile(path.join(dir, 'GLD.csv'), await readFile(path.join(DATA_DIR, 'GLD.csv')));
    // A VIX of −1 parses (DuckDB loads it) and breaks the series' bounds (the validator refuses it).
    await writeFile(path.join(dir, 'VIXCLS.csv'), 'date,value\n2020-01-02,12.47\n2020-01-03,-1\n');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));
  const specs = [seriesSpec('GLD'), seriesSpec('VIXCLS')];

  it('gives the reports of validating on the calling thread, for valid and invalid files', async () => {
    for (const [from, catalogue] of [
      [DATA_DIR, CATALOGUE],
      [dir, specs],
    ] as const) {
      const files = await readDataFiles(from, catalogue);
      expect(await validateOffThread(files)).toEqual(validateDataFiles(files));
    }
    const broken = validateDataFiles(await readDataFiles(dir, specs));
    expect(broken.flatMap((r) => r.problems.map((p) => `${p.file}:${p.line} ${p.rule}`))).toEqual(['VIXCLS.csv:3 out_of_bounds']);
  });

  it('computes on the loaded rows meanwhile, and returns nothing of it when a file is invalid', async () => {
    const scratch = await openDatabase();
    try {
      let rowsSeen = -1;
      const err = await withObservations(
        scratch.conn,
        dir,
        async () => {
          // The valid file's rows are there while the files are checked; the result must still not come back.
          const [row] = await queryRows(scratch.conn, "SELECT count(*) AS n FROM obs WHERE series = 'GLD'");
          rowsSeen = Number(row?.n);
          return 'computed';
        },
        specs,
      ).then(
        (v) => v,
        (e: unknown) => e,
      );
      expect(rowsSeen).toBe(5473);
      expect((err as TradesealError).code).toBe('data_invalid');
      expect((err as TradesealError).errors?.map((e) => e.field)).toEqual(['VIXCLS.csv:3']);
      const tables = await queryRows(scratch.conn, "SELECT count(*) AS n FROM duckdb_tables() WHERE table_name = 'obs'");
      expect(Number(tables[0]?.n)).toBe(0);
    } finally {
      scratch.close();
    }
  });

  it("reports the files' problems rather than what computing on them threw, and a valid directory's own error as it is", async () => {
    const scratch = await openDatabase();
    try {
      const fails = async (): Promise<never> => {
        throw new Error('a stage failed');
      };
      const onInvalid = await withObservations(scratch.conn, dir, fails, specs).then(
        () => null,
        (e: unknown) => e,
      );
      expect((onInvalid as TradesealError).code).toBe('data_invalid');
      const onValid = await withObservations(scratch.conn, DATA_DIR, fails, [seriesSpec('GLD')]).then(
        () => null,
        (e: unknown) => e,
      );
      expect((onValid as Error).message).toBe('a stage failed');
      await expect(withObservations(scratch.conn, DATA_DIR, async (inputs) => inputs.map((i) => i.id), [seriesSpec('GLD')])).resolves.toEqual(['GLD']);
    } finally {
      scratch.close();
    }
  });
});

describe('the DuckDB reader, behind the validator', () => {
  it("names the file and DuckDB's line when a file does not parse with its layout", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tradeseal-insert-'));
    const scratch = await openDatabase();
    try {
      const spec = seriesSpec('DGS10');
      const file = path.join(dir, spec.file);
      await writeFile(file, 'date,value\n2020-01-02,1.88\n2020-01-03,n/a\n');
      await scratch.conn.run(
        'CREATE TABLE obs (series VARCHAR NOT NULL, date DATE, value DOUBLE, usable_from DATE, open DOUBLE, dividend DOUBLE, split DOUBLE)',
      );
      const err = await insertSeries(scratch.conn, spec, file).then(
        () => null,
        (e: unknown) => e,
      );
      expect((err as TradesealError).code).toBe('data_invalid');
      expect((err as Error).message).toMatch(/^DGS10\.csv does not parse with its catalogue layout \(fred\): .*Line: 3/);
    } finally {
      scratch.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
