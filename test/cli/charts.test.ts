/**
 * Terminal charts: a long series is sampled to the chart's width (first and last points kept), the chart has
 * its title, a legend naming every line and the dates of its ends, and charts are wanted only on a terminal
 * and never with --json. Without colour each line is drawn in a style of its own, and the legend shows it.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { chartsWanted, LINE_STYLES, lineChart, sample } from '../../src/cli/charts.js';

afterEach(() => vi.unstubAllEnvs());

describe('sample', () => {
  it('keeps a short series whole and samples a long one evenly, first and last kept', () => {
    expect(sample([1, 2, 3], 5)).toEqual([1, 2, 3]);
    const long = Array.from({ length: 1001 }, (_, i) => i);
    const s = sample(long, 11);
    expect(s).toEqual([0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]);
  });
});

describe('lineChart', () => {
  it('draws every line within the width, with the title, the legend and the dates of the ends', () => {
    vi.stubEnv('NO_COLOR', '1');
    const chart = lineChart(
      [
        { label: 'strategy', values: Array.from({ length: 730 }, (_, i) => 100 + i / 10) },
        { label: 'buy-and-hold', values: Array.from({ length: 730 }, (_, i) => 100 + Math.sin(i / 50) * 10) },
      ],
      { title: 'value of 100 invested', columns: 80, height: 8, from: '2023-12-01', to: '2025-11-26', format: (x) => x.toFixed(0) },
    );
    const lines = chart.split('\n');
    expect(lines[0]).toBe('value of 100 invested');
    expect(lines.at(-1)).toContain('── strategy');
    expect(lines.at(-1)).toContain('━━ buy-and-hold');
    expect(lines.at(-2)).toMatch(/^\s+2023-12-01\s+2025-11-26$/);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(80);
    expect(chart).not.toMatch(/\u001b\[/);
  });
});

describe('lineChart without colour', () => {
  const PROBABILITIES = ['expansion', 'recovery', 'tightening', 'risk_off'];

  it("draws each line in its own style, and the legend shows each label after that style's stroke", () => {
    vi.stubEnv('NO_COLOR', '1');
    // Four flat lines, far apart: each is drawn on a row of its own, so what is drawn for each can be read.
    const levels = [0.9, 0.6, 0.3, 0.0];
    const chart = lineChart(
      PROBABILITIES.map((label, i) => ({ label, values: Array(40).fill(levels[i]) })),
      { title: 'probabilities', columns: 80, height: 9 },
    );
    expect(chart).not.toMatch(/\u001b\[/);
    const lines = chart.split('\n');
    const legend = lines.at(-1)!.trim().split(/ {3}/);
    expect(legend).toHaveLength(4);
    const strokes = legend.map((entry) => entry.slice(0, 2));
    expect(legend.map((entry) => entry.slice(3))).toEqual(PROBABILITIES);
    expect(new Set(strokes).size).toBe(4);
    levels.forEach((level, i) => {
      const row = lines.find((l) => l.trim().startsWith(level.toFixed(2)))!;
      const drawn = row.slice(row.indexOf(level.toFixed(2)) + level.toFixed(2).length + 2).trim();
      // The row of the line at `level` is that line's stroke all the way along, and its stroke is the legend's.
      expect(strokes[i]![0]!.repeat(2)).toBe(strokes[i]);
      expect(drawn).toBe(strokes[i]![0]!.repeat(drawn.length));
      expect(drawn.length).toBeGreaterThanOrEqual(39);
    });
  });

  it('draws a line that turns in the strokes and corners of its own style, a later line over an earlier one', () => {
    // a steps up at the 5th point, b steps down at the 15th; where they cross, b (drawn later) is seen.
    const a = Array.from({ length: 20 }, (_, i) => (i < 5 ? 0 : 4));
    const b = Array.from({ length: 20 }, (_, i) => (i < 15 ? 4 : 0));
    const chart = lineChart(
      [
        { label: 'a', values: a },
        { label: 'b', values: b },
      ],
      { title: 't', columns: 60, height: 4, color: false },
    );
    const rows = chart.split('\n').slice(1, 6);
    const [light, heavy] = LINE_STYLES;
    const at = (row: number, col: number): string => rows[row]![12 + col]!;
    // a's turn up: its ╭ on the top row is under b, which runs along that row until it turns down.
    expect([at(4, 4), at(3, 4), at(2, 4), at(1, 4), at(0, 4)]).toEqual(['╯', light!.vertical, light!.vertical, light!.vertical, heavy!.horizontal]);
    expect([at(0, 14), at(1, 14), at(2, 14), at(3, 14), at(4, 14)]).toEqual(['┓', heavy!.vertical, heavy!.vertical, heavy!.vertical, '┗']);
    expect([at(4, 2), at(0, 8), at(0, 16), at(4, 16)]).toEqual([light!.horizontal, heavy!.horizontal, light!.horizontal, heavy!.horizontal]);
  });

  it('keeps colour for the lines when colour is on, and the legend in the same colours', () => {
    const chart = lineChart(
      [
        { label: 'a', values: [1, 2, 3] },
        { label: 'b', values: [3, 2, 1] },
      ],
      { title: 't', columns: 40, color: true },
    );
    expect(chart).toMatch(/\u001b\[32m──\u001b\[0m a/);
    expect(chart).toMatch(/\u001b\[33m──\u001b\[0m b/);
  });
});

describe('chartsWanted', () => {
  it('is false with --json and when standard output is not a terminal', () => {
    expect(chartsWanted(true)).toBe(false);
    const tty = process.stdout.isTTY;
    try {
      Object.defineProperty(process.stdout, 'isTTY', { value: false, configurable: true });
      expect(chartsWanted(false)).toBe(false);
      Object.defineProperty(process.stdout, 'isTTY', { value: true, configurable: true });
      expect(chartsWanted(false)).toBe(true);
    } finally {
      Object.defineProperty(process.stdout, 'isTTY', { value: tty, configurable: true });
    }
  });
});
