import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Args, Flags } from '@oclif/core';
import { TradesealCommand } from '../../src/cli/base-command.js';
import { renderTable } from '../../src/cli/table.js';
import { reportStyle } from '../../src/cli/table-flags.js';
import { validationError, type FieldError } from '../../src/core/errors.js';
import { dataInvalidError } from '../../pipeline/ingest/problems.js';
import { PERIODS, performanceMetrics, type BenchmarkMetrics, type Period, type PerformanceMetrics } from '../../pipeline/performance/index.js';
import { readNumericColumns } from '../../pipeline/quant/columns.js';

type Metrics = PerformanceMetrics & Partial<BenchmarkMetrics>;

/** A plain decimal number, as a cell of the CSV file is one. */
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** Six significant digits for the terminal; `--json` has every digit. */
const show = (x: number | null): string => (x === null ? 'n/a' : String(Number(x.toPrecision(6))));

export default class QuantMetrics extends TradesealCommand {
  static override summary = 'Performance figures of a returns column: Sharpe, Sortino, annual return, volatility, drawdown, alpha, beta';
  static override description =
    "Reads simple returns per period (0.01 = 1 %; an empty cell is a missing value) from a column of a CSV file and computes the figures with the conventions of empyrical 0.5.5 (the library behind pyfolio): Sharpe ratio mean(r − rf) / std(r − rf, ddof=1) × √252 (√52 weekly, √12 monthly); Sortino ratio and downside risk below --required-return; geometric annual return (∏(1 + r))^(252/rows) − 1; annual volatility; maximum drawdown (≤ 0, from the wealth before the first return); Calmar ratio annual return / |max drawdown|; total return ∏(1 + r) − 1; with --benchmark, beta = cov/var and alpha = (1 + mean(r − rf − β(b − rf)))^252 − 1. --risk-free and --required-return are rates per period: a number, or (--risk-free) a column. `n` counts the returns present. A figure that is undefined (too few returns, no variance, no drawdown) is null. The same functions compute the pipeline's published performance figures.";
  static override examples = [
    '<%= config.bin %> quant metrics strategy.csv --returns strategy',
    '<%= config.bin %> quant metrics strategy.csv --returns strategy --benchmark spx --risk-free 0.0001',
    '<%= config.bin %> quant metrics monthly.csv --returns fund --risk-free tbill --required-return 0.005 --period monthly --json',
  ];
  static override args = { file: Args.string({ description: 'CSV file: a header row, then one row per period', required: true }) };
  static override flags = {
    returns: Flags.string({ summary: 'Column of simple returns per period (0.01 = 1 %)', required: true }),
    benchmark: Flags.string({ summary: "Column of the benchmark's returns, for alpha and beta" }),
    'risk-free': Flags.string({ summary: 'Risk-free rate per period, for Sharpe and alpha: a number, or a column (default 0)' }),
    'required-return': Flags.string({ summary: 'Target return per period, for Sortino and downside risk (default 0)' }),
    period: Flags.string({ summary: 'Periodicity of the returns: annualises by 252, 52 or 12', options: [...PERIODS], default: 'daily' }),
  };

  async run(): Promise<Metrics> {
    const { args, flags } = await this.parse(QuantMetrics);
    const bad: FieldError[] = [];
    const rate = (field: string, text: string): number => {
      const x = NUMBER.test(text.trim()) ? Number(text) : Number.NaN;
      if (!Number.isFinite(x)) bad.push({ field, message: `${JSON.stringify(text)} is not a finite number (a rate per period: 0.001 = 0.1 %)` });
      return x;
    };
    // --risk-free is a rate when it reads as a number, and otherwise the name of a column.
    const riskFree = flags['risk-free'];
    const riskFreeColumn = riskFree !== undefined && !NUMBER.test(riskFree.trim()) ? riskFree : undefined;
    const riskFreeRate = riskFree !== undefined && riskFreeColumn === undefined ? rate('--risk-free', riskFree) : 0;
    const requiredReturn = flags['required-return'] === undefined ? 0 : rate('--required-return', flags['required-return']);
    if (bad.length > 0) throw validationError(bad);

    const names = [...new Set([flags.returns, flags.benchmark, riskFreeColumn].filter((n): n is string => n !== undefined))];
    const name = path.basename(args.file);
    let text: string;
    try {
      text = await readFile(args.file, 'utf8');
    } catch (err) {
      const reason = (err as NodeJS.ErrnoException).code ?? 'error';
      throw dataInvalidError(
        [{ file: name, line: 0, subject: 'file', text: args.file, date: null, rule: 'unreadable', message: `cannot be read (${reason})` }],
        `${args.file} cannot be read`,
        'check the path',
      );
    }
    // Sums of squares of the returns (volatility, Sharpe) overflow a double from about 1e154: a bound at the edge
    // names the cell, where the figures would otherwise come out as 0 or null with nothing said.
    const { columns } = readNumericColumns(name, text, names, {
      max: 1e100,
      why: 'the squares the figures sum would overflow a double (returns are per period: 0.01 = 1 %)',
    });

    const metrics: Metrics = performanceMetrics(columns[flags.returns]!, {
      period: flags.period as Period,
      riskFree: riskFreeColumn !== undefined ? columns[riskFreeColumn]! : riskFreeRate,
      requiredReturn,
      ...(flags.benchmark !== undefined ? { benchmark: columns[flags.benchmark]! } : {}),
    });
    this.log(
      renderTable(
        ['figure', 'value'],
        Object.entries(metrics).map(([key, value]) => [key, key === 'n' ? String(value) : show(value)]),
        reportStyle({}, undefined, '--json'),
      ),
    );
    return metrics;
  }
}
