/**
 * Line charts in the terminal (asciichart), for what a quant would rather look at than read: probabilities
 * over time, a strategy against buy-and-hold. Shown only on a terminal and never with `--json` (the command
 * decides with `chartsWanted`). A series longer than the chart is wide is sampled at evenly spaced points, the
 * last point always kept.
 *
 * With colour (./terminal.ts) each line has its colour and the legend shows it. Without colour (NO_COLOR,
 * TERM=dumb) colour cannot tell the lines apart, so each is drawn in a line style of its own (light, heavy,
 * double, dashed, dotted box-drawing characters) and the legend shows each label after two characters of its
 * style. asciichart draws every series with one set of symbols, so each series is plotted alone on the common
 * scale and the plots are laid over each other, later series over earlier ones as asciichart itself draws them.
 */
import asciichart from 'asciichart';
import { terminalOf } from './terminal.js';

export interface ChartLine {
  label: string;
  values: readonly number[];
}

const COLORS = [asciichart.green, asciichart.yellow, asciichart.magenta, asciichart.red, asciichart.cyan];

/** A line style without colour: its horizontal and vertical strokes, and the corners ╰ ╭ ╮ ╯ in that order. */
interface LineStyle {
  horizontal: string;
  vertical: string;
  corners: readonly [string, string, string, string];
}

/** The line styles of a chart without colour, one per series (as many as there are colours). */
export const LINE_STYLES: readonly LineStyle[] = [
  { horizontal: '─', vertical: '│', corners: ['╰', '╭', '╮', '╯'] },
  { horizontal: '━', vertical: '┃', corners: ['┗', '┏', '┓', '┛'] },
  { horizontal: '═', vertical: '║', corners: ['╚', '╔', '╗', '╝'] },
  { horizontal: '┄', vertical: '┆', corners: ['└', '┌', '┐', '┘'] },
  { horizontal: '·', vertical: '·', corners: ['·', '·', '·', '·'] },
];

/** The y axis' symbols, shared by every series: the axis at zero (and a series' first value), a tick. */
const AXIS = ['┼', '┤'] as const;

/** asciichart's symbols for a series drawn in `style`. */
const symbolsOf = ({ horizontal, vertical, corners: [downTo, downFrom, upFrom, upTo] }: LineStyle) =>
  [AXIS[0], AXIS[1], '╶', '╴', horizontal, downTo, downFrom, upFrom, upTo, vertical] as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];

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
  /** Draw in colour; default: whether standard output takes colour (./terminal.ts). */
  color?: boolean;
}

/**
 * The series drawn without colour, each in its line style, on the scale of all of them: one plot per series,
 * laid over the first character by character (every plot has the same axis labels, so the same columns).
 */
function plotInStyles(series: readonly number[][], config: { height: number; format: (x: number) => string }): string {
  const all = series.flat();
  const scale = { ...config, min: Math.min(...all), max: Math.max(...all) };
  const plots = series.map((s, i) => asciichart.plot(s, { ...scale, symbols: symbolsOf(LINE_STYLES[i % LINE_STYLES.length]!) }).split('\n'));
  const rows = plots[0]!.map((row) => [...row]);
  for (const plot of plots.slice(1)) {
    plot.forEach((row, r) => {
      [...row].forEach((ch, c) => {
        if (ch !== ' ' && ch !== AXIS[1] && ch !== rows[r]![c]) rows[r]![c] = ch;
      });
    });
  }
  return rows.map((row) => row.join('')).join('\n');
}

export function lineChart(lines: readonly ChartLine[], options: ChartOptions): string {
  const format = options.format ?? ((x: number) => x.toFixed(2));
  const labelWidth = 10;
  const width = Math.max(20, (options.columns ?? process.stdout.columns ?? 80) - labelWidth - 2);
  const color = options.color ?? terminalOf().color;
  const series = lines.map((l) => sample(l.values, width));
  const config = { height: options.height ?? 10, format: (x: number) => format(x).padStart(labelWidth) };
  const plot =
    color || series.length === 1
      ? asciichart.plot(series, { ...config, ...(color ? { colors: lines.map((_, i) => COLORS[i % COLORS.length]) } : {}) })
      : plotInStyles(series, config);
  const legend = lines
    .map((l, i) => (color ? asciichart.colored('──', COLORS[i % COLORS.length]) : LINE_STYLES[i % LINE_STYLES.length]!.horizontal.repeat(2)) + ` ${l.label}`)
    .join('   ');
  const axis =
    options.from && options.to
      ? `${' '.repeat(labelWidth + 2)}${options.from}${options.to.padStart(Math.max(0, Math.min(width, series[0]?.length ?? 0) - options.from.length))}`
      : null;
  return [options.title, plot, ...(axis ? [axis] : []), `${' '.repeat(labelWidth + 2)}${legend}`].join('\n');
}
