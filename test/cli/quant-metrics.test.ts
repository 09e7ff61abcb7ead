/**
 * `tradeseal quant metrics`: the performance figures of a column of a user's CSV file, on the series of
 * empyrical's own test suite (test/pipeline/performance/fixtures/empyrical_series.csv, sources in the README
 * there), so the figures it prints are the values that suite publishes. Bad flags, a missing column, a missing
 * file and a cell that is not a number are exit 2. The command needs no store and opens none: it runs with a
 * DATABASE_URL nobody answers and leaves TRADESEAL_HOME empty.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, describeRun, REPO_ROOT, runCli, tempHome, type CliResult } from '../helpers/cli.js';
import { expectAlmostEqual } from '../pipeline/performance/empyrical-fixture.js';

const home = tempHome();
const env = cliEnv(home, 'postgres://tradeseal@127.0.0.1:1/unreachable');
const CSV = path.join(REPO_ROOT, 'test/pipeline/performance/fixtures/empyrical_series.csv');
const metrics = (...flags: string[]): Promise<CliResult> => runCli(['quant', 'metrics', CSV, ...flags], env);

type Figures = Record<string, number | null>;

describe("tradeseal quant metrics on empyrical's test series", () => {
  it('mixed_returns against negative_returns[1:]: every figure empyrical publishes, as JSON and as a table', async () => {
    const [json, text] = await Promise.all([
      metrics('--returns', 'mixed_returns', '--benchmark', 'negative_returns_tail', '--json'),
      metrics('--returns', 'mixed_returns'),
    ]);
    expect(json.code, describeRun(json)).toBe(0);
    const m = json.json<Figures>();
    expect(Object.keys(m)).toEqual([
      'n',
      'sharpe_ratio',
      'sortino_ratio',
      'annual_return',
      'annual_volatility',
      'max_drawdown',
      'calmar_ratio',
      'downside_risk',
      'cum_returns_final',
      'alpha',
      'beta',
    ]);
    expect(m.n).toBe(8);
    expectAlmostEqual(m.sharpe_ratio!, 1.7238613961706866);
    expectAlmostEqual(m.sortino_ratio!, 2.605531251673693);
    expectAlmostEqual(m.annual_return!, 1.9135925373194231);
    expectAlmostEqual(m.annual_volatility!, 0.9136465399704637);
    expectAlmostEqual(m.max_drawdown!, -0.1);
    expectAlmostEqual(m.calmar_ratio!, 19.135925373194233);
    expectAlmostEqual(m.downside_risk!, 0.60448325038829653);
    expectAlmostEqual(m.cum_returns_final!, 0.03893, 4);
    expectAlmostEqual(m.alpha!, -0.9997853834885004);
    expectAlmostEqual(m.beta!, -0.71296296296296313);

    expect(text.code, describeRun(text)).toBe(0);
    const rows = text.stdout.trimEnd().split('\n');
    expect(rows[0]).toMatch(/^figure\s+value$/);
    // Numbers right-aligned in their column.
    expect(rows).toContain('n                          8');
    expect(rows).toContainEqual(expect.stringMatching(/^sharpe_ratio\s+1\.72386$/));
    expect(rows).toContainEqual(expect.stringMatching(/^max_drawdown\s+-0\.1$/));
    expect(text.stdout).not.toMatch(/alpha|beta/);
  }, 120_000);

  it('takes the risk-free rate as a column or a number, the required return, and the period', async () => {
    const [rfColumn, rfNumber, weekly, monthly, flat] = await Promise.all([
      metrics('--returns', 'mixed_returns', '--risk-free', 'simple_benchmark', '--json'),
      metrics('--returns', 'mixed_returns', '--risk-free', '0.01', '--required-return', '0.1', '--json'),
      metrics('--returns', 'weekly_returns', '--period', 'weekly', '--json'),
      metrics('--returns', 'monthly_returns', '--period', 'monthly', '--json'),
      metrics('--returns', 'flat_line_1', '--benchmark', 'flat_line_1'),
    ]);
    for (const r of [rfColumn, rfNumber, weekly, monthly, flat]) expect(r.code, describeRun(r)).toBe(0);
    expectAlmostEqual(rfColumn.json<Figures>().sharpe_ratio!, 0.34111411441060574);
    // empyrical's excess_sharpe(mixed_returns, flat_line_1) = −0.06515583641446039 is the same quotient without √252.
    expectAlmostEqual(rfNumber.json<Figures>().sharpe_ratio!, -0.06515583641446039 * Math.sqrt(252));
    expectAlmostEqual(rfNumber.json<Figures>().downside_risk!, 1.7161730681956295);
    const w = weekly.json<Figures>();
    expectAlmostEqual(w.annual_return!, 0.24690830513998208);
    expectAlmostEqual(w.annual_volatility!, 0.38851569394870583);
    expectAlmostEqual(w.sortino_ratio!, 1.1158901056866439);
    expectAlmostEqual(w.calmar_ratio!, 2.4690830513998208);
    expectAlmostEqual(w.downside_risk!, 0.25888650451930134);
    const mo = monthly.json<Figures>();
    expectAlmostEqual(mo.annual_return!, 0.052242061386048144);
    expectAlmostEqual(mo.annual_volatility!, 0.18663690238892558);
    expectAlmostEqual(mo.sortino_ratio!, 0.53605626741889756);
    expectAlmostEqual(mo.calmar_ratio!, 0.52242061386048144);
    expectAlmostEqual(mo.downside_risk!, 0.1243650540411842);
    // A flat series: no variance, no downside, no drawdown; the undefined figures read n/a.
    expect(flat.stdout).toMatch(/^sharpe_ratio\s+n\/a$/m);
    expect(flat.stdout).toMatch(/^beta\s+n\/a$/m);
    expect(flat.stdout).toMatch(/^downside_risk\s+0$/m);
  }, 120_000);
});

describe('mistakes are exit 2', () => {
  it('a missing column, a flag that is not a number, an unknown period, a missing file, a cell that is not a number', async () => {
    const bad = path.join(home, 'bad.csv');
    fs.writeFileSync(bad, 'date,r\n2000-01-03,0.01\n2000-01-04,1 %\n');
    const [column, benchmark, rates, period, file, cell] = await Promise.all([
      metrics('--returns', 'nope', '--json'),
      metrics('--returns', 'mixed_returns', '--benchmark', 'spx'),
      metrics('--returns', 'mixed_returns', '--required-return', 'five', '--risk-free', '1e999', '--json'),
      metrics('--returns', 'mixed_returns', '--period', 'yearly', '--json'),
      runCli(['quant', 'metrics', path.join(home, 'none.csv'), '--returns', 'r', '--json'], env),
      runCli(['quant', 'metrics', bad, '--returns', 'r', '--json'], env),
    ]);
    for (const r of [column, benchmark, rates, period, file, cell]) expect(r.code, describeRun(r)).toBe(2);

    expect(column.json().error).toMatchObject({
      code: 'data_invalid',
      errors: [{ field: 'empyrical_series.csv:1', message: expect.stringContaining('has no column "nope"') }],
    });
    expect(benchmark.stderr).toMatch(/data_invalid: .*empyrical_series\.csv[\s\S]*has no column "spx"/);
    expect(rates.json().error).toMatchObject({
      code: 'validation_failed',
      errors: [
        { field: '--risk-free', message: expect.stringContaining('"1e999" is not a finite number') },
        { field: '--required-return', message: expect.stringContaining('"five"') },
      ],
    });
    expect(period.json().error).toMatchObject({ code: 'usage_error', detail: expect.stringContaining('daily, weekly, monthly') });
    expect(file.json().error).toMatchObject({
      code: 'data_invalid',
      errors: [{ field: 'none.csv', message: expect.stringContaining('ENOENT') }],
      hint: 'check the path',
    });
    expect(cell.json().error).toMatchObject({ code: 'data_invalid', errors: [{ field: 'bad.csv:3', message: expect.stringContaining('"1 %"') }] });
  }, 120_000);

  it('opened no store: TRADESEAL_HOME holds nothing but the CSV file this test wrote there', () => {
    expect(fs.readdirSync(home).filter((f) => f !== 'bad.csv')).toEqual([]);
  });
});
