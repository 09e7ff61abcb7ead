/**
 * The periodicity of a returns series and its annualisation factor, as empyrical defines them
 * (quantopian/empyrical 0.5.5, `empyrical/periods.py`, `ANNUALIZATION_FACTORS`): 252 trading days, 52 weeks
 * or 12 months a year. Every annualised figure of this module uses the factor of the series' period: a
 * volatility and a Sharpe ratio scale by √factor, an annual return compounds over `n / factor` years.
 */
import { invalidArgument } from './inputs.js';

export const PERIODS = ['daily', 'weekly', 'monthly'] as const;
export type Period = (typeof PERIODS)[number];

export const ANNUALIZATION_FACTORS: Readonly<Record<Period, number>> = Object.freeze({ daily: 252, weekly: 52, monthly: 12 });

/** 252, 52 or 12; an unknown period is a `validation_failed` naming `period`. */
export function annualizationFactor(period: Period): number {
  if (!Object.hasOwn(ANNUALIZATION_FACTORS, period)) {
    throw invalidArgument('period', `expected one of ${PERIODS.join(', ')}, got ${JSON.stringify(period)}`);
  }
  return ANNUALIZATION_FACTORS[period];
}
