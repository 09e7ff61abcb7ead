/**
 * The regime ribbon above `signals history` on a terminal: one character per column, each the regime of the
 * day it samples (first and last day kept), letters without colour and coloured blocks with it, the range's
 * dates under it and a legend.
 */
import { describe, expect, it } from 'vitest';
import { regimeRibbon } from '../../src/cli/regime-ribbon.js';

const days = (regimes: string[]): Array<{ date: string; regime: string }> =>
  regimes.map((regime, i) => ({ date: new Date(Date.UTC(2020, 0, 1 + i)).toISOString().slice(0, 10), regime }));

describe('regimeRibbon', () => {
  it('a short history: one letter per day, the dates of its ends, a legend of the four regimes', () => {
    const out = regimeRibbon(days(['expansion', 'expansion', 'risk_off', 'recovery', 'tightening']), 79, false).split('\n');
    expect(out[0]).toBe('regime by day');
    expect(out[1]).toBe('EEXRT');
    expect(out[2]).toMatch(/^2020-01-01\s*2020-01-05$/);
    expect(out[3]).toBe('E expansion  R recovery  T tightening  X risk_off');
  });

  it('a long history is sampled to the width, the first and last day kept, and no line is wider', () => {
    const regimes = [...Array(1000).fill('expansion'), ...Array(1000).fill('risk_off'), 'recovery'];
    const out = regimeRibbon(days(regimes), 50, false).split('\n');
    expect(out[1]).toHaveLength(50);
    expect(out[1]!.startsWith('EEEE')).toBe(true);
    expect(out[1]!.endsWith('XR')).toBe(true);
    expect(out[1]!.match(/E/g)).toHaveLength(25);
    for (const line of out) expect(line.length).toBeLessThanOrEqual(50);
  });

  it("with colour each day is a block in its regime's colour", () => {
    const out = regimeRibbon(days(['risk_off', 'expansion']), 79, true).split('\n');
    expect(out[1]).toBe('\u001b[31m█\u001b[39m\u001b[32m█\u001b[39m');
    expect(out[3]).toContain('\u001b[33m█\u001b[39m tightening');
  });
});
