/**
 * The walk-forward regime model on the bundled real history: deterministic for a seed, no look-ahead
 * (PIPELINE.md: perturbing or removing everything after day t changes nothing published for days up to t),
 * monthly refits, and the reference behaviour: the worst weeks of late 2008 and March 2020 are risk_off.
 */
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFeatureFrame, type FeatureFrame } from '../../../pipeline/features/frame.js';
import { walkForward, type WalkForwardResult } from '../../../pipeline/model/walk-forward.js';
import { mostLikely, REGIME_ORDER } from '../../../pipeline/regime/signals.js';

const DATA = path.resolve('data/macro');
const CUT = '2012-06-29';

let frame: FeatureFrame;
let base: WalkForwardResult;
let perturbedDir: string;

/** Copies the data directory, multiplying every value dated after `cut` by 1.5 (dates and layout kept). */
function perturbAfter(cut: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'tradeseal-perturbed-'));
  for (const file of readdirSync(DATA)) {
    if (!file.endsWith('.csv')) {
      copyFileSync(path.join(DATA, file), path.join(dir, file));
      continue;
    }
    const lines = readFileSync(path.join(DATA, file), 'utf8').split('\n');
    const out = lines.map((line, i) => {
      if (i === 0 || line.trim() === '') return line;
      const cells = line.split(',');
      if ((cells[0] ?? '') <= cut) return line;
      // The date and a yfinance row's volume (column 5, a whole number) stay as they are.
      return cells.map((c, j) => (j === 0 || j === 5 || c === '' || c === '.' || c === 'null' || Number.isNaN(Number(c)) ? c : String(Number(c) * 1.5))).join(',');
    });
    writeFileSync(path.join(dir, file), out.join('\n'));
  }
  return dir;
}

const byDate = (f: FeatureFrame, r: WalkForwardResult): Map<string, WalkForwardResult['days'][number]> =>
  new Map(r.days.map((d) => [f.dates[d.index] as string, d]));

beforeAll(async () => {
  frame = await loadFeatureFrame(DATA);
  base = walkForward(frame);
  perturbedDir = perturbAfter(CUT);
}, 300_000);

afterAll(() => {
  if (perturbedDir) rmSync(perturbedDir, { recursive: true, force: true });
});

describe('walk-forward on the bundled history', () => {
  it('refits at least monthly, on data up to the fit day only', () => {
    const fitDates = base.fits.map((f) => f.fit_date);
    const months = new Set(base.days.map((d) => (frame.dates[d.index] as string).slice(0, 7)));
    for (const m of months) expect(fitDates.some((f) => f.startsWith(m))).toBe(true);
    for (const d of base.days) expect(d.hmm_fit_date <= (frame.dates[d.index] as string)).toBe(true);
  });

  it('publishes probabilities that sum to 1 on every day', () => {
    for (const d of base.days) expect(d.probs.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
  });

  it.each([
    ['2008-10-06', '2008-10-10'],
    ['2008-10-20', '2008-10-24'],
    ['2008-11-17', '2008-11-21'],
    ['2020-03-16', '2020-03-20'],
    ['2020-03-23', '2020-03-27'],
  ])('calls the week %s to %s risk_off', (from, to) => {
    const days = base.days.filter((d) => (frame.dates[d.index] as string) >= from && (frame.dates[d.index] as string) <= to);
    expect(days.length).toBeGreaterThanOrEqual(4);
    for (const d of days) expect(REGIME_ORDER[mostLikely(d.probs)], frame.dates[d.index]).toBe('risk_off');
  });

  it('is deterministic: the same data and seed give the same numbers, bit for bit', () => {
    const again = walkForward(frame);
    expect(again.days.length).toBe(base.days.length);
    again.days.forEach((d, i) => {
      expect(Array.from(d.probs)).toEqual(Array.from(base.days[i]!.probs));
      expect(Array.from(d.factors)).toEqual(Array.from(base.days[i]!.factors));
    });
  }, 120_000);

  it(`has no look-ahead: with every value after ${CUT} multiplied by 1.5, nothing published up to ${CUT} changes`, async () => {
    const perturbedFrame = await loadFeatureFrame(perturbedDir);
    const perturbed = byDate(perturbedFrame, walkForward(perturbedFrame));
    const original = byDate(frame, base);
    let compared = 0;
    let differentAfter = 0;
    for (const [date, d] of original) {
      const p = perturbed.get(date);
      if (date <= CUT) {
        expect(p, date).toBeDefined();
        expect(Array.from(p!.probs), date).toEqual(Array.from(d.probs));
        expect(Array.from(p!.factors), date).toEqual(Array.from(d.factors));
        compared++;
      } else if (p && Array.from(p.factors).join() !== Array.from(d.factors).join()) differentAfter++;
    }
    expect(compared).toBeGreaterThan(1300);
    // The perturbation is real: it changes what comes after the cut.
    expect(differentAfter).toBeGreaterThan(100);
  }, 180_000);

  it(`has no look-ahead: a run as of ${CUT} publishes exactly the full run's days up to ${CUT}`, async () => {
    const cutFrame = await loadFeatureFrame(DATA, CUT);
    const cut = walkForward(cutFrame);
    const original = byDate(frame, base);
    expect(cutFrame.dates.at(-1)! <= CUT).toBe(true);
    for (const d of cut.days) {
      const date = cutFrame.dates[d.index] as string;
      expect(Array.from(d.probs), date).toEqual(Array.from(original.get(date)!.probs));
    }
    expect(cut.days.length).toBeGreaterThan(1300);
  }, 120_000);
});
