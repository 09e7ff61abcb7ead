/**
 * Performance figures of a returns series with the conventions of empyrical (quantopian/empyrical 0.5.5, the
 * library behind pyfolio and zipline): pure functions over `Float64Array`s of simple returns per period, NaN
 * for a missing value, `null` for a figure that is undefined. `performanceMetrics` gives every figure at once;
 * the single figures are exported too. Each file's comment states the convention of its figures; the tests in
 * test/pipeline/performance/ hold them to the values empyrical's own test suite publishes.
 */
export { alpha, alphaBeta, beta, type AlphaBeta } from './alpha-beta.js';
export { calmarRatio, maxDrawdown } from './drawdown.js';
export type { Rate } from './inputs.js';
export { performanceMetrics, type BenchmarkMetrics, type MetricsOptions, type PerformanceMetrics } from './metrics.js';
export { ANNUALIZATION_FACTORS, PERIODS, annualizationFactor, type Period } from './periods.js';
export { sharpeRatio, sortinoRatio } from './ratios.js';
export { annualReturn, cumReturnsFinal } from './returns.js';
export { annualVolatility, downsideRisk } from './volatility.js';
