/**
 * Line charts in the terminal (asciichart), for what a quant would rather look at than read: probabilities
 * over time, a strategy against buy-and-hold. Shown only on a terminal and never with `--json` (the command
 * decides with `chartsWanted`); coloured unless NO_COLOR is set. A series longer than the chart is wide is
 * sampled at evenly spaced points, the last point always kept.
 */
import asciichart from 'asciichart';

export interface ChartLine {
  label: string;
  values: readonly number[];
}

const COLORS = [asciichart.green, asciichart.yellow, asciichart.magenta, asciichart.red, asciichart.cyan];

/** Whether a command should draw charts: standard output is a terminal and the answer is not JSON. */
export function chartsWanted(json: boolean): boolean {
  return !json && process.stdout.isTTY === true;
}

/** `values` sampled to at most `width` points, evenly spaced, first and last kept. */
export function sample<T>(values: readonly T[], width: number): T[] {
  if (values.length <= width) return [...values];
  return Array.from({ length: width }, (_, i) => values[Math.round((i * (values.length - 1)) / (width - 1))]!);
}

export interface ChartOptions {
  title: string;
  height?: number;
  /** Terminal columns to fill; default: the terminal's width, else 80. */
  columns?: number;
  format?: (x: number) => string;
  /** The first and last label of the x axis (dates). */
  from?: string;
  to?: string;
}

export function lineChart(lines: readonly ChartLine[], options: ChartOptions): string {
  const format = options.format ?? ((x: number) => x.toFixed(2));
  const labelWidth = 10;
  const width = Math.max(20, (options.columns ?? process.stdout.columns ?? 80) - labelWidth - 2);
  const color = !process.env.NO_COLOR;
  const series = lines.map((l) => sample(l.values, width));
  const plot = asciichart.plot(series, {
    height: options.height ?? 10,
    ...(color ? { colors: lines.map((_, i) => COLORS[i % COLORS.length]) } : {}),
    format: (x: number) => format(x).padStart(labelWidth),
  });
  const legend = lines.map((l, i) => (color ? asciichart.colored('──', COLORS[i % COLORS.length]) : '──') + ` ${l.label}`).join('   ');
  const axis = options.from && options.to ? `${' '.repeat(labelWidth + 2)}${options.from}${options.to.padStart(Math.max(0, Math.min(width, series[0]?.length ?? 0) - options.from.length))}` : null;
  return [options.title, plot, ...(axis ? [axis] : []), `${' '.repeat(labelWidth + 2)}${legend}`].join('\n');
}
