/**
 * Terminal charts: a long series is sampled to the chart's width (first and last points kept), the chart has
 * its title, a legend naming every line and the dates of its ends, and charts are wanted only on a terminal
 * and never with --json.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { chartsWanted, lineChart, sample } from '../../src/cli/charts.js';

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
    const chart = lineChart([
      { label: 'strategy', values: Array.from({ length: 730 }, (_, i) => 100 + i / 10) },
      { label: 'buy-and-hold', values: Array.from({ length: 730 }, (_, i) => 100 + Math.sin(i / 50) * 10) },
    ], { title: 'value of 100 invested', columns: 80, height: 8, from: '2023-12-01', to: '2025-11-26', format: (x) => x.toFixed(0) });
    const lines = chart.split('\n');
    expect(lines[0]).toBe('value of 100 invested');
    expect(lines.at(-1)).toContain('── strategy');
    expect(lines.at(-1)).toContain('── buy-and-hold');
    expect(lines.at(-2)).toMatch(/^\s+2023-12-01\s+2025-11-26$/);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(80);
    expect(chart).not.toMatch(/\u001b\[/);
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
