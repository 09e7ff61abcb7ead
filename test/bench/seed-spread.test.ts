/**
 * bench/support/seed-spread.ts: the seed-spread benchmark's figures from hand-made runs: the agreement of the
 * published regimes (every pair, and each seed with the reference), the fits below the best likelihood any seed
 * found for the same refit, and the spread of the evaluation's figures.
 */
import { describe, expect, it } from 'vitest';
import { agreement, fitShortfalls, spread, type SeedRun } from '../../bench/support/seed-spread.js';

const DAYS = ['2020-01-02', '2020-01-03', '2020-01-06', '2020-01-07'];

function run(seed: number, regimes: string[], lls: number[], sharpe: number, calmar: number): SeedRun {
  return {
    seed,
    regimes: new Map(regimes.map((r, i) => [DAYS[i]!, r])),
    fits: lls.map((ll, i) => ({ date: `2020-0${i + 1}-01`, logLikelihood: ll })),
    in_sample: { sharpe: sharpe + 0.1, calmar: calmar + 0.1 },
    out_of_sample: { sharpe, calmar },
  };
}

const runs = [
  run(1, ['expansion', 'expansion', 'risk_off', 'risk_off'], [-100, -200], 0.9, 0.5),
  run(7, ['expansion', 'expansion', 'risk_off', 'recovery'], [-100, -150], 1.0, 0.6),
  run(9, ['expansion', 'tightening', 'tightening', 'recovery'], [-100.005, -150], 0.95, 0.7),
];

describe('agreement', () => {
  it('finds the pair that agrees least, and each seed against the reference', () => {
    const a = agreement(runs, 7);
    expect(a.days).toBe(4);
    expect(a.lowestPair).toEqual({ seeds: [1, 9], share: 0.25 });
    expect(Object.fromEntries(a.withReference)).toEqual({ 1: 0.75, 7: 1, 9: 0.5 });
  });

  it('counts only the days every run published, and needs two runs', () => {
    const short = { ...runs[0]!, regimes: new Map([...runs[0]!.regimes].slice(0, 2)) };
    expect(agreement([short, runs[1]!], 7).days).toBe(2);
    expect(agreement([short, runs[1]!], 7).lowestPair.share).toBe(1);
    expect(agreement([runs[0]!, runs[1]!], 42).withReference.size).toBe(0);
    expect(() => agreement([runs[0]!], 7)).toThrow(/at least two runs/);
  });
});

describe('fitShortfalls', () => {
  it('counts the fits more than 0.01 nats below the best of the same refit, and the largest gap', () => {
    const s = fitShortfalls(runs);
    expect(s.get(1)).toEqual({ below: 1, worst: 50 });
    expect(s.get(7)).toEqual({ below: 0, worst: 0 });
    // 0.005 nats below the best: within EM's tolerance, not counted.
    expect(s.get(9)!.below).toBe(0);
    expect(s.refitsWithShortfall).toBe(1);
  });
});

describe('spread', () => {
  it('is the largest minus the smallest of each figure, null when a run has none', () => {
    const s = spread(runs);
    expect(s.out_of_sample.sharpe).toBeCloseTo(0.1, 12);
    expect(s.out_of_sample.calmar).toBeCloseTo(0.2, 12);
    expect(s.in_sample.sharpe).toBeCloseTo(0.1, 12);
    expect(spread([runs[0]!, { ...runs[1]!, out_of_sample: { sharpe: null, calmar: 0.6 } }]).out_of_sample.sharpe).toBeNull();
  });
});
