/**
 * A regime ribbon: one character per column of the terminal, each the regime of the day it stands for (a
 * long history sampled evenly, as the charts are, ./charts.ts), so a glance shows when the regimes changed.
 * Each regime has its letter (E expansion, R recovery, T tightening, X risk_off), shown as a coloured block
 * with colour and as the letter without it, and a legend says so.
 */
import chalk from 'chalk';
import { REGIMES, type Regime } from '../core/vocabulary.js';
import { sample } from './charts.js';

const LETTERS: Readonly<Record<Regime, string>> = { expansion: 'E', recovery: 'R', tightening: 'T', risk_off: 'X' };
const COLOURS: Readonly<Record<Regime, 'green' | 'cyan' | 'yellow' | 'red'>> = { expansion: 'green', recovery: 'cyan', tightening: 'yellow', risk_off: 'red' };

export interface RibbonDay {
  date: string;
  regime: string;
}

/** The ribbon of `days` (oldest first) in at most `columns` characters, with its dates and legend. */
export function regimeRibbon(days: readonly RibbonDay[], columns: number, color: boolean): string {
  if (days.length === 0) return '';
  const width = Math.max(10, columns);
  const picked = sample(
    days.map((d) => d.regime as Regime),
    width,
  );
  const paint = color ? new chalk.Instance({ level: 1 }) : null;
  const cell = (r: Regime): string => (paint ? paint[COLOURS[r]]('█') : (LETTERS[r] ?? '?'));
  const first = days[0]!.date;
  const last = days[days.length - 1]!.date;
  const legend = REGIMES.map((r) => `${cell(r)} ${r}`).join('  ');
  return ['regime by day', picked.map(cell).join(''), `${first}${last.padStart(Math.max(last.length, picked.length - first.length))}`, legend].join('\n');
}
