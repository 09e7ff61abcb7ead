/**
 * The walk-forward regime model on the bundled real history: deterministic and independent of the seed, no look-ahead
 * (docs/decisions/0027-point-in-time.md: perturbing or removing everything after day t changes nothing
 * published for days up to t), monthly refits on a rolling nine-year window, the reference behaviour (the worst
 * weeks of late 2008 and March 2020 are risk_off, published within a week of the stress's first day), and labels
 * that mean what they say on every fit's own window.
 */
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFeatureFrame, type FeatureFrame } from '../../../pipeline/features/frame.js';
import { backward, forward, smoothed } from '../../../pipeline/hmm/inference.js';
import { logEmissions } from '../../../pipeline/hmm/model.js';
import { project } from '../../../pipeline/model/pca.js';
import {
  DEFAULT_WALK_FORWARD,
  firstCompleteIndex,
  fitWindowStart,
  refitsAfter,
  walkForward,
  type FrameLike,
  type ModelFit,
  type ResumePoint,
  type WalkForwardResult,
} from '../../../pipeline/model/walk-forward.js';
import { walkForwardOffThread } from '../../../pipeline/model/walk-forward-thread.js';
import { mostLikely } from '../../../pipeline/regime/signals.js';
import { REGIMES } from '../../../src/core/vocabulary.js';

const DATA = path.resolve('data/macro');
const CUT = '2012-06-29';
/**
 * The perturbed run ends a year after the cut: its days up to the cut are compared, and the year after shows the
 * perturbation is real, while the twelve years a full run would add only repeat that year's refits.
 */
const PERTURBED_THROUGH = '2013-06-28';

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
      return cells
        .map((c, j) => (j === 0 || j === 5 || c === '' || c === '.' || c === 'null' || Number.isNaN(Number(c)) ? c : String(Number(c) * 1.5)))
        .join(',');
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
}, 600_000);

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

  it('refits on the last nine years of trading days once nine years are known, on everything before', () => {
    const s0 = firstCompleteIndex(frame);
    const meanOver = (name: string, from: number, to: number): number => {
      const c = frame.columns[name] as Float64Array;
      let m = 0;
      for (let t = from; t <= to; t++) m += (c[t] as number) / (to - from + 1);
      return m;
    };
    const first = base.fits[0]!;
    const last = base.fits.at(-1)!;
    const lastAt = frame.dates.indexOf(last.fit_date);
    // The first fit's window starts on the first complete day; the last one's 2,268 days before its fit day.
    expect(fitWindowStart(s0, frame.dates.indexOf(first.fit_date), DEFAULT_WALK_FORWARD.fitWindowDays)).toBe(s0);
    expect(lastAt - s0 + 1).toBeGreaterThan(DEFAULT_WALK_FORWARD.fitWindowDays);
    const from = lastAt - DEFAULT_WALK_FORWARD.fitWindowDays + 1;
    // The PCA's standardization of the last fit is that of its window, not of the whole history.
    last.pca.inputs.forEach((name, j) => {
      expect(last.pca.means[j]!, name).toBeCloseTo(meanOver(name, from, lastAt), 9);
    });
    expect(Math.abs(last.pca.means[last.pca.inputs.indexOf('hy_spread_pct')]! - meanOver('hy_spread_pct', s0, lastAt))).toBeGreaterThan(0.1);
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
    for (const d of days) expect(REGIMES[mostLikely(d.probs)], frame.dates[d.index]).toBe('risk_off');
  });

  // The first day of each stress episode: Lehman's bankruptcy, and the first day of the 2020 crash (SPY −3.4 %,
  // the VIX from 17 to 25). The published regime is the most likely one (pipeline/publish/assemble.ts).
  it.each([
    ['late 2008', '2008-09-15', '2008-12-31'],
    ['March 2020', '2020-02-24', '2020-04-30'],
  ])("publishes risk_off in %s within a week of the stress's first day, and holds it through the worst weeks", (_name, onset, to) => {
    const at = frame.dates.indexOf(onset);
    const weekLater = frame.dates[at + 5] as string;
    const published = base.days.map((d) => ({ date: frame.dates[d.index] as string, regime: REGIMES[mostLikely(d.probs)] }));
    const firstRiskOff = published.find((d) => d.date >= frame.dates[at - 20]! && d.date <= to && d.regime === 'risk_off');
    expect(firstRiskOff, `risk_off between ${onset} and ${to}`).toBeDefined();
    expect(firstRiskOff!.date <= weekLater, `risk_off on ${firstRiskOff!.date}, a week after ${onset} is ${weekLater}`).toBe(true);
    // From a week after the first day to the end of the worst weeks, risk_off every day.
    const worstEnd = onset.startsWith('2008') ? '2008-11-21' : '2020-03-27';
    for (const d of published) if (d.date >= weekLater && d.date <= worstEnd) expect(d.regime, d.date).toBe('risk_off');
  });

  it('names the states of every fit by what they do on its own window', () => {
    const s0 = firstCompleteIndex(frame);
    const column = (name: string): Float64Array => frame.columns[name] as Float64Array;
    const [hy, vix, ret, y10Mom, liq] = ['hy_spread_pct', 'vix', 'ret_equity', 'mom_z_ust10y', 'net_liq_change_4w_bn'].map(column) as Float64Array[];
    // Every 12th fit (about one a year) and the last: posterior-weighted means of what each name promises.
    const fits = base.fits.filter((_, i) => i % 12 === 0 || i === base.fits.length - 1);
    for (const fit of fits) {
      const at = frame.dates.indexOf(fit.fit_date);
      const profile = statesOn(fit, fitWindowStart(s0, at, DEFAULT_WALK_FORWARD.fitWindowDays), at, {
        hy: hy!,
        vix: vix!,
        ret: ret!,
        y10Mom: y10Mom!,
        liq: liq!,
      });
      const [expansion, recovery, tightening, riskOff] = profile;
      const others = [expansion!, recovery!, tightening!];
      // risk_off: the market's stress state, the highest high-yield spread and the highest VIX.
      for (const o of others) {
        expect(riskOff!.hy, `${fit.fit_date}: risk_off's spread`).toBeGreaterThan(o.hy);
        expect(riskOff!.vix, `${fit.fit_date}: risk_off's VIX`).toBeGreaterThan(o.vix);
      }
      // tightening: rising yields or draining liquidity, more than recovery.
      expect(tightening!.tightening, `${fit.fit_date}: tightening's score`).toBeGreaterThan(recovery!.tightening);
      // expansion: rising equity, with less stress than recovery and tightening.
      expect(expansion!.ret, `${fit.fit_date}: expansion's equity`).toBeGreaterThan(0);
      expect(expansion!.stress, `${fit.fit_date}: expansion's stress`).toBeLessThan(Math.min(recovery!.stress, tightening!.stress));
    }
    expect(fits.length).toBeGreaterThan(15);
  });

  // No start of the method draws a random number (DEFAULT_WALK_FORWARD), so the seed, still an option for the
  // research variants' seeded starts, changes nothing: seeds 1 to 8 of the seeded method agreed on as few as 83 %
  // of the days (pipeline/README.md, "A method without a seed"). One run proves both promises: the pipeline's
  // threads with the largest seed give the default seed's numbers here; the as-of run below uses seed 1.
  it("is deterministic and does not depend on its seed: the pipeline's threads with another seed give the same numbers and fits, bit for bit", async () => {
    // Computed again as the pipeline computes it: in its model thread, with a second thread screening restarts.
    const again = await walkForwardOffThread(frame, { seed: 0xfffffffe });
    expect(again.fits).toEqual(base.fits);
    expect(again.days.length).toBe(base.days.length);
    again.days.forEach((d, i) => {
      expect(Array.from(d.probs)).toEqual(Array.from(base.days[i]!.probs));
      expect(Array.from(d.factors)).toEqual(Array.from(base.days[i]!.factors));
    });
  }, 600_000);

  it(`has no look-ahead: with every value after ${CUT} multiplied by 1.5, nothing published up to ${CUT} changes`, async () => {
    const perturbedFrame = await loadFeatureFrame(perturbedDir);
    const perturbedRun = walkForward(frameThrough(perturbedFrame, PERTURBED_THROUGH));
    const perturbed = byDate(perturbedFrame, perturbedRun);
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
    expect(perturbedFrame.dates.filter((d) => d <= PERTURBED_THROUGH).at(-1)).toBe(PERTURBED_THROUGH);
    expect(compared).toBeGreaterThan(1300);
    // The perturbation is real: it changes what comes after the cut.
    expect(differentAfter).toBeGreaterThan(100);
  }, 600_000);

  it(`has no look-ahead: a run as of ${CUT} (seed 1) publishes exactly the full run's days up to ${CUT}`, async () => {
    const cutFrame = await loadFeatureFrame(DATA, CUT);
    const cut = walkForward(cutFrame, { seed: 1 });
    const original = byDate(frame, base);
    expect(cutFrame.dates.at(-1)! <= CUT).toBe(true);
    for (const d of cut.days) {
      const date = cutFrame.dates[d.index] as string;
      expect(Array.from(d.probs), date).toEqual(Array.from(original.get(date)!.probs));
      expect(Array.from(d.factors), date).toEqual(Array.from(original.get(date)!.factors));
    }
    expect(cut.days.length).toBeGreaterThan(1300);
    expect(cut.fits).toEqual(base.fits.filter((f) => f.fit_date <= CUT));
  }, 600_000);

  // A history published through a month's last day (a backfill as of it) is extended by a run whose first new
  // day is a refit: that refit warm-starts from the stored fit alone, as a full run's must. On these days a warm
  // start from the EM's own posteriors (states in the order EM found them) differs from it in the last bits.
  it.each(['2008-09-30', '2009-03-31', '2018-08-31'])(
    "resumed from the fits stored through %s, the last day before a refit, extends it with exactly the full run's numbers",
    (last) => {
      const through = frame.dates[frame.dates.indexOf(last) + 63]!;
      const original = byDate(frame, base);
      const lastDay = original.get(last)!;
      const resume: ResumePoint = {
        // Through JSON, as the store keeps them.
        fits: JSON.parse(JSON.stringify(base.fits.filter((f) => f.fit_date <= last))) as ModelFit[],
        lastDate: last,
        lastProbs: Array.from(lastDay.probs),
        lastFactors: Array.from(lastDay.factors),
      };
      const resumed = walkForward(frameThrough(frame, through), {}, resume);
      expect(resumed.fits.length).toBeGreaterThanOrEqual(3);
      expect(resumed.fits[0]!.fit_date > last).toBe(true);
      expect(resumed.days.length).toBe(63);
      for (const d of resumed.days) {
        const date = frame.dates[d.index] as string;
        expect(Array.from(d.probs), date).toEqual(Array.from(original.get(date)!.probs));
        expect(Array.from(d.factors), date).toEqual(Array.from(original.get(date)!.factors));
      }
      expect(resumed.fits).toEqual(base.fits.filter((f) => f.fit_date > last && f.fit_date <= through));
    },
    120_000,
  );

  it("a resumed run with no refit to make (a night within a month) filters on the calling thread, with the full run's numbers", async () => {
    const last = '2018-08-15';
    const original = byDate(frame, base);
    const lastDay = original.get(last)!;
    const resume: ResumePoint = {
      fits: JSON.parse(JSON.stringify(base.fits.filter((f) => f.fit_date <= last))) as ModelFit[],
      lastDate: last,
      lastProbs: Array.from(lastDay.probs),
      lastFactors: Array.from(lastDay.factors),
    };
    expect(refitsAfter(frameThrough(frame, '2018-08-31'), {}, resume)).toBe(0);
    expect(refitsAfter(frameThrough(frame, '2018-09-04'), {}, resume)).toBe(1);
    expect(refitsAfter(frameThrough(frame, '2018-11-01'), {}, resume)).toBe(3);
    const resumed = await walkForwardOffThread(frameThrough(frame, '2018-08-31'), {}, resume);
    expect(resumed.fits).toEqual([]);
    expect(resumed.days.map((d) => frame.dates[d.index])).toEqual(frame.dates.filter((d) => d > last && d <= '2018-08-31'));
    for (const d of resumed.days) expect(Array.from(d.probs)).toEqual(Array.from(original.get(frame.dates[d.index]!)!.probs));
  });
});

/** The frame's days up to `last`: a run on data that end there (every feature uses trailing windows only). */
function frameThrough(f: FeatureFrame, last: string): FrameLike {
  const n = f.dates.filter((d) => d <= last).length;
  return { dates: f.dates.slice(0, n), columns: Object.fromEntries(Object.entries(f.columns).map(([k, c]) => [k, c.slice(0, n)])) };
}

interface StateOnWindow {
  hy: number;
  vix: number;
  ret: number;
  /** Standardized 10Y momentum minus the standardized 4-week net liquidity change (as the label rule scores it). */
  tightening: number;
  /** Mean of the standardized spread and VIX (as the label rule scores it). */
  stress: number;
}

/** Each regime's posterior-weighted means over the fit's window (frame indexes start..at), in REGIMES. */
function statesOn(
  fit: ModelFit,
  start: number,
  at: number,
  c: { hy: Float64Array; vix: Float64Array; ret: Float64Array; y10Mom: Float64Array; liq: Float64Array },
): StateOnWindow[] {
  const model = {
    K: 4,
    d: 4,
    startProb: Float64Array.from(fit.hmm.startProb),
    transmat: Float64Array.from(fit.hmm.transmat),
    means: fit.hmm.means.map((m) => Float64Array.from(m)),
    covars: fit.hmm.covars.map((m) => Float64Array.from(m)),
  };
  const X: Float64Array[] = [];
  for (let t = start; t <= at; t++)
    X.push(
      project(
        fit.pca,
        fit.pca.inputs.map((n) => (frame.columns[n] as Float64Array)[t] as number),
      ),
    );
  const le = logEmissions(model, X);
  const fw = forward(model, le);
  const gamma = smoothed(fw, backward(model, le, fw.logNormalizers));
  const T = X.length;
  const z = (a: Float64Array): ((x: number) => number) => {
    let m = 0;
    for (let t = start; t <= at; t++) m += (a[t] as number) / T;
    let v = 0;
    for (let t = start; t <= at; t++) v += ((a[t] as number) - m) ** 2 / (T - 1);
    return (x) => (x - m) / Math.sqrt(v);
  };
  const [zHy, zVix, zLiq] = [z(c.hy), z(c.vix), z(c.liq)];
  return REGIMES.map((_, k) => {
    let w = 0;
    const sum = { hy: 0, vix: 0, ret: 0, tightening: 0, stress: 0 };
    for (let i = 0; i < T; i++) {
      const t = start + i;
      const g = gamma[i * 4 + k] as number;
      w += g;
      sum.hy += g * (c.hy[t] as number);
      sum.vix += g * (c.vix[t] as number);
      sum.ret += g * (Number.isFinite(c.ret[t]) ? (c.ret[t] as number) : 0);
      sum.tightening += g * ((c.y10Mom[t] as number) - zLiq(c.liq[t] as number));
      sum.stress += (g * (zHy(c.hy[t] as number) + zVix(c.vix[t] as number))) / 2;
    }
    return { hy: sum.hy / w, vix: sum.vix / w, ret: sum.ret / w, tightening: sum.tightening / w, stress: sum.stress / w };
  });
}
