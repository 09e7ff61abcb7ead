/**
 * `tradeseal quant arima` on the file `tradeseal signals export` writes, which is newest first: the rows are
 * read oldest first (said on stderr), so the forecast is the one of the same rows written oldest first, to
 * the last bit; a file whose dates go up and down or repeat is refused, naming the lines.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, describeRun, runCli, tempHome, type CliEnv } from '../helpers/cli.js';
import { testStore, type TestStore } from '../helpers/db.js';

const home = tempHome();
let store: TestStore;
let env: CliEnv;

beforeAll(async () => {
  store = await testStore({ history: 'published' });
  env = cliEnv(home, store.url);
}, 600_000);
afterAll(async () => store?.close());

const NOTE = 'rows sorted by date (the file is newest first)';

/** `lines` (a header, then rows) written to a file of the test's home. */
function write(name: string, lines: string[]): string {
  const file = path.join(home, name);
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

describe('tradeseal quant arima on a newest-first file', () => {
  it("fits `signals export`'s rows oldest first: the same forecast as the same rows written oldest first", async () => {
    const newest = path.join(home, 'regimes.csv');
    const exported = await runCli(['signals', 'export', '--limit', '500', '--out', newest], env);
    expect(exported.code, describeRun(exported)).toBe(0);
    const [header, ...rows] = fs.readFileSync(newest, 'utf8').trimEnd().split('\n');
    expect(rows).toHaveLength(500);
    expect(rows[0]!.slice(0, 10) > rows[1]!.slice(0, 10)).toBe(true);
    const oldest = write('regimes-oldest-first.csv', [header!, ...rows.slice().reverse()]);

    const [fromNewest, fromOldest, text] = await Promise.all([
      runCli(['quant', 'arima', newest, '--column', 'risk_score', '--json'], env),
      runCli(['quant', 'arima', oldest, '--column', 'risk_score', '--json'], env),
      runCli(['quant', 'arima', newest, '--column', 'risk_score'], env),
    ]);
    expect(fromNewest.code, describeRun(fromNewest)).toBe(0);
    expect(fromOldest.code, describeRun(fromOldest)).toBe(0);
    expect(fromNewest.json()).toEqual(fromOldest.json());
    expect(fromNewest.json().n).toBe(500);
    expect(fromNewest.stderr.trim()).toBe(NOTE);
    expect(fromOldest.stderr).toBe('');
    expect(text.code, describeRun(text)).toBe(0);
    expect(text.stderr.trim()).toBe(NOTE);
    expect(text.stdout).toContain('500 observations of "risk_score" in regimes.csv');
  }, 120_000);

  it('refuses a file whose dates go up and down or repeat, naming file and line', async () => {
    const exported = await runCli(['signals', 'export', '--limit', '500'], env);
    expect(exported.code, describeRun(exported)).toBe(0);
    const [header, ...rows] = exported.stdout.trimEnd().split('\n');
    // (500 days: the newest 300 have one risk score, a column with nothing to fit.) Rows 5 and 6 swapped (lines 6 and 7 of the file), and row 20 written twice (lines 21 and 22).
    const shuffled = rows.slice();
    [shuffled[4], shuffled[5]] = [shuffled[5]!, shuffled[4]!];
    shuffled.splice(20, 0, shuffled[19]!);
    const file = write('shuffled.csv', [header!, ...shuffled]);
    const [json, text] = await Promise.all([
      runCli(['quant', 'arima', file, '--column', 'risk_score', '--json'], env),
      runCli(['quant', 'arima', file, '--column', 'risk_score'], env),
    ]);
    expect(json.code, describeRun(json)).toBe(2);
    const d = (row: string): string => row.slice(0, 10);
    expect(json.json().error).toMatchObject({
      code: 'data_invalid',
      exit: 2,
      detail: 'shuffled.csv: the rows are not in date order: 2 problems in shuffled.csv',
      errors: [
        {
          field: 'shuffled.csv:7',
          message: `date "${d(rows[4]!)}": comes after ${d(rows[5]!)} on line 6, but the file runs newest first (from ${d(rows[0]!)} to ${d(rows.at(-1)!)}): the dates must go one way`,
        },
        { field: 'shuffled.csv:22', message: `date "${d(rows[19]!)}": repeats the date of line 21: one row per date` },
      ],
    });
    expect(text.code, describeRun(text)).toBe(2);
    expect(text.stderr).toContain('data_invalid: shuffled.csv: the rows are not in date order');
    expect(text.stderr).toContain('shuffled.csv:22: date');
  }, 60_000);
});
