/**
 * Reading CSV text with line numbers: csv-parse's own line count (`info`), and the direct split of a text
 * without quotes, must give the same records on the same lines.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { readCsvRecords } from '../../../pipeline/ingest/csv-records.js';
import { DATA_DIR } from './corruptions.js';

describe('readCsvRecords', () => {
  it.each<[string, () => Promise<string>]>([
    ...['GLD', 'GSPC', 'WTREGEN', 'DTWEXB', 'BAMLH0A0HYM2'].map(
      (id) => [`the bundled ${id}.csv`, async () => readFile(`${DATA_DIR}/${id}.csv`, 'utf8')] as [string, () => Promise<string>],
    ),
    ['empty lines and CRLF line ends', async () => 'date,value\r\n2020-01-02,1\r\n\r\n2020-01-03,\r\n'],
    ['no final line end', async () => 'date,value\n2020-01-02,1\n2020-01-03,2'],
    ['empty fields and a trailing comma', async () => 'date,value\n2020-01-02,\n,1\n2020-01-03,2,\n'],
  ])('gives the records and lines csv-parse gives (with its info): %s', async (_name, text) => {
    const t = await text();
    const fast = readCsvRecords(t);
    const counted = readCsvRecords(t, { withInfo: true });
    expect(fast).toEqual(counted);
    expect(counted.records.at(-1)?.line).toBe(t.replace(/\r?\n$/, '').split(/\r?\n/).length);
  });

  it('numbers a record by the line it ends on, and goes on after a line that is not CSV', () => {
    const { records, syntaxErrors } = readCsvRecords('date,value\n2020-01-02,"1\n"\n2020-01-03,1"x\n2020-01-06,2\n');
    expect(records.map((r) => [r.line, r.fields])).toEqual([
      [1, ['date', 'value']],
      [3, ['2020-01-02', '1\n']],
      [5, ['2020-01-06', '2']],
    ]);
    expect(syntaxErrors.map((e) => e.line)).toEqual([4]);
  });
});
