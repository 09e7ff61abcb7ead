/**
 * `tradeseal quant arima`: on gretl's reference series it prints gretl's exact-ML estimates, forecasts and
 * forecast standard errors (test/pipeline/forecast/fixtures/README.md), as a summary on a terminal and as
 * `{n, mean, phi, theta, sigma2, loglik, forecast, forecast_se}` under --json. A file it cannot use, and a bad
 * flag, end with exit 2 and a message that says what is wrong and where. The command needs no store.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, describeRun, runCli, tempHome } from '../helpers/cli.js';
import { fixturePath, gretl } from '../pipeline/forecast/reference-data.js';

const home = tempHome();
const env = cliEnv(home);
const GRETL = fixturePath('gretl_y_arma11.csv');

interface Report {
  n: number;
  mean: number;
  phi: number;
  theta: number;
  sigma2: number;
  loglik: number;
  forecast: number[];
  forecast_se: number[];
}

interface Failure {
  error: { code: string; detail: string; exit: number; errors?: Array<{ field: string; message: string }> };
}

/** A CSV in the test's home directory. */
function csv(name: string, lines: string[]): string {
  const file = path.join(home, name);
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

const rows = (values: Array<number | string>): string[] => ['date,value', ...values.map((v, i) => `2024-01-${String(i + 1).padStart(2, '0')},${v}`)];
const TWELVE = [0.3, -1.2, 0.8, 2.1, -0.4, 0.0, 1.5, -0.9, 0.6, 1.1, 0.2, -0.5];

const within = (actual: number, expected: number, tol: number): void => {
  expect(Math.abs(actual - expected), `${actual} vs ${expected}`).toBeLessThanOrEqual(tol);
};

describe("tradeseal quant arima on gretl's reference series", () => {
  it.each([
    ['y_arma11', 'without a mean (--no-mean, the default column)', ['--no-mean']],
    ['y_arma11c', 'with a mean (--column y_arma11c)', ['--column', 'y_arma11c']],
  ] as const)(
    "%s, %s: gretl's estimates, log-likelihood, forecasts and standard errors (--json)",
    async (column, _, flags) => {
      const r = await runCli(['quant', 'arima', GRETL, ...flags, '--json'], env);
      expect(r.code, describeRun(r)).toBe(0);
      const report = r.json<Report>();
      const ref = gretl[column];
      expect(Object.keys(report)).toEqual(['n', 'mean', 'phi', 'theta', 'sigma2', 'loglik', 'forecast', 'forecast_se']);
      expect(report.n).toBe(250);
      within(report.mean, ref.mean, 1e-6);
      within(report.phi, ref.phi, 1e-6);
      within(report.theta, ref.theta, 1e-6);
      within(report.sigma2, ref.sigma ** 2, 1e-6);
      within(report.loglik, ref.llf, 1e-9);
      expect(report.forecast).toHaveLength(10);
      ref.forecast.forEach((f, j) => within(report.forecast[j]!, f, 1e-6));
      ref.forecast_se.forEach((se, j) => within(report.forecast_se[j]!, se, 5e-6 * se));
    },
    60_000,
  );

  it('prints a summary and a table of forecasts on a terminal; --horizon sets the steps', async () => {
    const [text, short] = await Promise.all([
      runCli(['quant', 'arima', GRETL, '--no-mean'], env),
      runCli(['quant', 'arima', GRETL, '--column', 'y_arma11c', '--horizon', '3', '--json'], env),
    ]);
    expect(text.code, describeRun(text)).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('ARMA(1,1) without a mean, exact maximum likelihood: 250 observations of "y_arma11" in gretl_y_arma11.csv');
    expect(lines[1]).toMatch(/^ {2}mean 0\.000000 {2}phi 0\.788452\d {2}theta 0\.381793\d {2}sigma2 0\.98951\d+ {2}loglik -354\.2449$/);
    expect(lines[3]).toMatch(/^step\s+forecast\s+std\. error$/);
    expect(lines.slice(5)).toHaveLength(10);
    expect(lines[5]).toMatch(/^ +1\s+-0\.093113\d+\s+0\.994743\d*$/);
    expect(lines[14]).toMatch(/^ +10\s+-0\.01096\d+\s+2\.1263\d+$/);

    expect(short.code, describeRun(short)).toBe(0);
    const report = short.json<Report>();
    expect(report.forecast).toHaveLength(3);
    expect(report.forecast_se).toHaveLength(3);
    within(report.forecast[2]!, gretl.y_arma11c.forecast[2]!, 1e-6);
  }, 60_000);
});

describe('tradeseal quant arima refuses what it cannot use (exit 2)', () => {
  it('a missing or non-finite value: data_invalid naming the file, the line, the column and the cell', async () => {
    const file = csv('gaps.csv', rows([...TWELVE.slice(0, 4), '', ...TWELVE.slice(4, 8), '1e400', ...TWELVE.slice(8)]));
    const [text, json] = await Promise.all([runCli(['quant', 'arima', file], env), runCli(['quant', 'arima', file, '--json'], env)]);
    expect(text.code, describeRun(text)).toBe(2);
    expect(text.stderr).toContain('data_invalid: gaps.csv: column "value" cannot be fitted: 2 problems in gaps.csv');
    expect(text.stderr).toContain('gaps.csv:6: value "": is empty (a missing value): an ARIMA fit needs a value on every row');
    expect(text.stderr).toContain('gaps.csv:11: value "1e400": is Infinity as a double, not a finite number');
    expect(json.code, describeRun(json)).toBe(2);
    expect(json.json<Failure>().error).toMatchObject({ code: 'data_invalid', exit: 2, errors: [{ field: 'gaps.csv:6' }, { field: 'gaps.csv:11' }] });
  }, 60_000);

  it('too short, or constant: validation_failed naming the file and the column', async () => {
    const short = csv('short.csv', rows(TWELVE.slice(0, 9)));
    const flat = csv('flat.csv', rows(Array(20).fill('2.50')));
    const [a, b] = await Promise.all([runCli(['quant', 'arima', short, '--json'], env), runCli(['quant', 'arima', flat], env)]);
    expect(a.code, describeRun(a)).toBe(2);
    expect(a.json<Failure>().error).toMatchObject({
      code: 'validation_failed',
      exit: 2,
      errors: [{ field: 'short.csv column "value"', message: 'has 9 observations; an ARMA(1,1) fit needs at least 10' }],
    });
    expect(b.code, describeRun(b)).toBe(2);
    expect(b.stderr).toContain('validation_failed: flat.csv: column "value" cannot be fitted: it is constant (every value is 2.5)');
  }, 60_000);

  it('no such column, no column to fit, a file that cannot be read', async () => {
    const onlyDates = csv('dates.csv', ['date', '2024-01-01', '2024-01-02']);
    const [column, none, missing] = await Promise.all([
      runCli(['quant', 'arima', GRETL, '--column', 'price', '--json'], env),
      runCli(['quant', 'arima', onlyDates, '--json'], env),
      runCli(['quant', 'arima', path.join(home, 'nowhere.csv'), '--json'], env),
    ]);
    expect(column.code, describeRun(column)).toBe(2);
    expect(column.json<Failure>().error).toMatchObject({
      code: 'data_invalid',
      errors: [{ field: 'gretl_y_arma11.csv:1', message: expect.stringContaining('has no column "price" (columns: date, y_arma11, y_arma11c)') }],
    });
    expect(none.code, describeRun(none)).toBe(2);
    expect(none.json<Failure>().error).toMatchObject({
      code: 'validation_failed',
      errors: [{ field: '--column', message: 'dates.csv has no column other than a date or time (columns: date)' }],
    });
    expect(missing.code, describeRun(missing)).toBe(2);
    expect(missing.json<Failure>().error).toMatchObject({
      code: 'data_invalid',
      errors: [{ field: 'nowhere.csv', message: expect.stringContaining('cannot be read (ENOENT)') }],
    });
  }, 60_000);

  it('bad flags: a horizon outside 1…100 or not a number, an unknown flag, no file', async () => {
    const runs = await Promise.all([
      runCli(['quant', 'arima', GRETL, '--horizon', '0', '--json'], env),
      runCli(['quant', 'arima', GRETL, '--horizon', '101'], env),
      runCli(['quant', 'arima', GRETL, '--horizon', 'ten'], env),
      runCli(['quant', 'arima', GRETL, '--order', '2'], env),
      runCli(['quant', 'arima'], env),
    ]);
    for (const r of runs) expect(r.code, describeRun(r)).toBe(2);
    expect(runs[0]!.json<Failure>().error).toMatchObject({ code: 'usage_error', exit: 2, detail: expect.stringContaining('greater than or equal to 1') });
    expect(runs[1]!.stderr).toContain('less than or equal to 100');
    expect(runs[2]!.stderr).toContain('usage_error');
    expect(runs[3]!.stderr).toContain('Nonexistent flag: --order');
    expect(runs[4]!.stderr).toContain('Missing 1 required arg');
  }, 60_000);
});
