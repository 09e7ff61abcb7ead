/**
 * Reading CSV text with line numbers: csv-parse's own line count (`info`), and the faster path for text
 * without quotes, must give every record the same line.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { readCsvRecords } from '../../../pipeline/ingest/csv-records.js';
import { DATA_DIR } from './corruptions.js';

describe('readCsvRecords', () => {
  it.each([
    ['a bundled file', async () => readFile(`${DATA_DIR}/GLD.csv`, 'utf8')],
    ['empty lines and CRLF line ends', async () => 'date,value\r\n2020-01-02,1\r\n\r\n2020-01-03,\r\n'],
    ['no final line end', async () => 'date,value\n2020-01-02,1\n2020-01-03,2'],
  ])('gives the same lines with and without csv-parse\'s info: %s', async (_name, text) => {
    const t = await text();
    const fast = readCsvRecords(t);
    const counted = readCsvRecords(t, { withInfo: true });
    expect(fast).toEqual(counted);
    expect(counted.records.at(-1)?.line).toBe(t.replace(/\r?\n$/, '').split(/\r?\n/).length);
  });

  it('numbers a record by the line it ends on, and goes on after a line that is not CSV', () => {
    const { records, syntaxErrors } = readCsvRecords('date,value\n2020-01-02,"1\n"\n2020-01-03,1"x\n2020-01-06,2\n');
    expect(records.map((r) => [r.line, r.fields])).toEqual([[1, ['date', 'value']], [3, ['2020-01-02', '1\n']], [5, ['2020-01-06', '2']]]);
    expect(syntaxErrors.map((e) => e.line)).toEqual([4]);
  });
});
